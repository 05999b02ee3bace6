// The deadline index; see deadline_index.h.
#include "deadline_index.h"

#include <algorithm>
#include <limits>

namespace pinsim::embedded {

DeadlineIndex& DeadlineIndex::operator=(const DeadlineIndex& other) {
  std::lock_guard guard(other.mutex_);
  heap_ = other.heap_;
  registrations_ = other.registrations_;
  return *this;
}

void DeadlineIndex::upsert(ObjectId key, size_t shard, Time deadline) {
  std::lock_guard lock(mutex_);
  auto it = registrations_.find(key);
  if (it != registrations_.end() && it->second.deadline == deadline && it->second.shard == shard) return;
  registrations_[key] = {deadline, shard};
  heap_.push({deadline, key, shard});
  maybe_compact_locked();
}

void DeadlineIndex::remove(ObjectId key) {
  std::lock_guard lock(mutex_);
  if (registrations_.erase(key) > 0) maybe_compact_locked();
}

void DeadlineIndex::remove_if_matches(ObjectId key, size_t shard, Time deadline) {
  std::lock_guard lock(mutex_);
  auto it = registrations_.find(key);
  if (it == registrations_.end() || it->second.deadline != deadline || it->second.shard != shard) return;
  registrations_.erase(it);
  maybe_compact_locked();
}

std::vector<DeadlineIndex::Entry> DeadlineIndex::pop_expired(Time now, bool inclusive, bool match_registration) {
  std::vector<Entry> due;
  std::lock_guard lock(mutex_);
  while (!heap_.empty() && (inclusive ? heap_.top().deadline <= now : heap_.top().deadline < now)) {
    const Entry top = heap_.top();
    heap_.pop();
    auto it = registrations_.find(top.key);
    const bool live = it != registrations_.end() && it->second.deadline == top.deadline &&
                      it->second.shard == top.shard;
    if (!live && match_registration) continue;  // stale: superseded or removed
    if (it != registrations_.end()) registrations_.erase(it);
    due.push_back(top);
  }
  maybe_compact_locked();
  return due;
}

void DeadlineIndex::clear() {
  std::lock_guard lock(mutex_);
  heap_ = {};
  registrations_.clear();
}

size_t DeadlineIndex::heap_size() const {
  std::lock_guard lock(mutex_);
  return heap_.size();
}

size_t DeadlineIndex::registration_count() const {
  std::lock_guard lock(mutex_);
  return registrations_.size();
}

// Rebuilds the heap with one entry per live registration once it exceeds
// max(4096, 2 * live); the multiplication saturates.
void DeadlineIndex::maybe_compact_locked() {
  const size_t live = registrations_.size();
  const size_t doubled =
      live > std::numeric_limits<size_t>::max() / kCompactionRatio ? std::numeric_limits<size_t>::max()
                                                                   : live * kCompactionRatio;
  if (heap_.size() <= std::max(kMinCompactionThreshold, doubled)) return;
  std::vector<Entry> entries;
  entries.reserve(live);
  for (const auto& [key, r] : registrations_) entries.push_back({r.deadline, key, r.shard});
  heap_ = std::priority_queue<Entry, std::vector<Entry>, Later>(Later{}, std::move(entries));
}

}  // namespace pinsim::embedded
