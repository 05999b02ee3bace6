// The local-disk tier's bookkeeping outside the object metadata (rules
// local.*), as Mooncake's master keeps it for the client that holds a local
// disk: the per-object offload marker type, and the holder's mailbox (the
// offloads queued for it, not yet taken by its heartbeat) and its hand (the
// offloads it took and has not reported, key -> offload id). Only the setup
// client holds a disk here. Its mutex is a leaf, taken after the shard locks.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "object.h"
#include "op.h"

namespace pinsim::embedded {

// An offload under way on an object: which one (a report names the one its
// holder took), the memory replica it pins, and when it was queued.
struct OffloadMarker {
  uint64_t id = 0;
  ReplicaId source = 0;
  Time start = 0;
};

class LocalDiskHolder {
 public:
  LocalDiskHolder() = default;
  // EmbeddedMaster::clone and assign (quiescent): the mutex stays its own.
  LocalDiskHolder(const LocalDiskHolder& o) { *this = o; }
  LocalDiskHolder& operator=(const LocalDiskHolder& o) {
    mailbox_ = o.mailbox_;
    hand_ = o.hand_;
    next_id_ = o.next_id_;
    return *this;
  }

  // A new offload of `key`, queued in the mailbox; returns its id.
  uint64_t queue(ObjectId key) {
    std::lock_guard lock(mutex_);
    mailbox_[key] = next_id_;
    return next_id_++;
  }
  // Whether offload `id` of `key` is still in the mailbox (not taken).
  bool queued(ObjectId key, uint64_t id) const {
    std::lock_guard lock(mutex_);
    auto it = mailbox_.find(key);
    return it != mailbox_.end() && it->second == id;
  }
  // Drops offload `id` of `key` from the mailbox, if it is still there.
  void drop(ObjectId key, uint64_t id) {
    std::lock_guard lock(mutex_);
    if (auto it = mailbox_.find(key); it != mailbox_.end() && it->second == id) mailbox_.erase(it);
  }
  // The heartbeat: every queued offload goes into the hand.
  void take_all() {
    std::lock_guard lock(mutex_);
    for (const auto& [key, id] : mailbox_) hand_[key] = id;
    mailbox_.clear();
  }
  // A report of `key`: the offload in hand for it, which leaves the hand.
  std::optional<uint64_t> report(ObjectId key) {
    std::lock_guard lock(mutex_);
    auto it = hand_.find(key);
    if (it == hand_.end()) return std::nullopt;
    const uint64_t id = it->second;
    hand_.erase(it);
    return id;
  }

 private:
  mutable std::mutex mutex_;
  std::map<ObjectId, uint64_t> mailbox_;
  std::map<ObjectId, uint64_t> hand_;
  uint64_t next_id_ = 1;
};

}  // namespace pinsim::embedded
