// The soft-pin deadline index (RFC 3028 "Deadline index", "TTL updates and
// stale heap entries"; Mooncake's SoftPinDeadlineIndex): a min-heap of
// (deadline, key, shard) entries plus the latest registration per key. A
// superseded heap entry is not deleted; it is skipped when popped (lazy
// invalidation), and the heap is rebuilt from the live registrations when it
// exceeds max(4096, 2 * live). One mutex guards both; it is ordered after the
// shard locks and is never held while a shard lock is taken.
#pragma once
#include <cstddef>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <vector>

#include "keys.h"
#include "virtual_time.h"

namespace pinsim::embedded {

class DeadlineIndex {
 public:
  struct Entry {
    Time deadline;
    ObjectId key;
    size_t shard;
  };
  DeadlineIndex() = default;
  // EmbeddedMaster::clone and assign: the entries; the mutex stays its own.
  DeadlineIndex(const DeadlineIndex& other) { *this = other; }
  DeadlineIndex& operator=(const DeadlineIndex& other);
  static constexpr size_t kMinCompactionThreshold = 4096;
  static constexpr size_t kCompactionRatio = 2;

  // Registers (key, shard, deadline) as the latest; a no-op when exactly that
  // registration exists already.
  void upsert(ObjectId key, size_t shard, Time deadline);
  // Unregisters the key whatever its registration.
  void remove(ObjectId key);
  // Unregisters only when the registration is exactly (shard, deadline).
  void remove_if_matches(ObjectId key, size_t shard, Time deadline);
  // Pops every entry due at `now` (deadline <= now, or < now when not
  // `inclusive`). An entry that no longer matches its key's registration is
  // dropped, unless `match_registration` is false. Returns the live ones and
  // erases their registrations.
  std::vector<Entry> pop_expired(Time now, bool inclusive = true, bool match_registration = true);
  void clear();

  // The index's mutex, held by the caller: only fault F19 does this (the
  // lock order puts the index after the shard locks).
  std::unique_lock<std::mutex> hold_for_fault() const { return std::unique_lock(mutex_); }

  size_t heap_size() const;
  size_t registration_count() const;

 private:
  struct Registration {
    Time deadline;
    size_t shard;
  };
  struct Later {  // puts the earliest deadline on top
    bool operator()(const Entry& a, const Entry& b) const { return a.deadline > b.deadline; }
  };
  void maybe_compact_locked();

  mutable std::mutex mutex_;
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  std::unordered_map<ObjectId, Registration, ObjectIdHash> registrations_;
};

}  // namespace pinsim::embedded
