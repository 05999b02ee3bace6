// The expiry cycle exactly as RFC 3028 "Expiration cleanup" lists it (steps
// 1-6 of its cleanup cycle): pop the due entries under the index mutex (stale
// ones dropped), release it, group them by shard, take each shard's read lock
// once, clear a pin only if its stored deadline still equals the popped one,
// then one aggregate gauge decrement. The full-scan cycle beside it exists
// only for the benchmark's comparison.
#include <algorithm>
#include <shared_mutex>

#include "embedded_master.h"

namespace pinsim::embedded {

int64_t EmbeddedMaster::run_expiry_cycle(Time now) {
  // F20: the gauge is read before the cycle takes any lock and written back
  // minus the cleared count at its end: a pin committed or dropped by a
  // client in between is lost from the gauge. No sequential run can tell.
  const int64_t gauge_read = gauge_.value();
  // F13: entries due exactly now are left for a later cycle (< instead of <=).
  // F2: the pop trusts the heap and returns superseded entries too.
  std::vector<DeadlineIndex::Entry> due =
      index_.pop_expired(now, !faults_.f13_expiry_off_by_one, !faults_.f2_cleanup_skips_deadline_check);
  std::sort(due.begin(), due.end(),
            [](const DeadlineIndex::Entry& a, const DeadlineIndex::Entry& b) { return a.shard < b.shard; });
  int64_t cleared = 0;
  // F19: the index's mutex stays held while the shard locks are taken, the
  // reverse of the writers' order (shard lock, then index): a lock-order cycle.
  std::unique_lock<std::mutex> index_held;
  if (faults_.f19_index_held_over_shard_locks) index_held = index_.hold_for_fault();
  for (size_t i = 0; i < due.size();) {
    const size_t shard = due[i].shard;
    // F18: the equality check runs before the shard lock is taken (a racy
    // read), and under the lock the pin is cleared unchecked: an End that
    // commits a new pin in between loses it. No sequential run can tell.
    std::vector<bool> matched;
    for (size_t j = i; faults_.f18_cleanup_checks_outside_lock && j < due.size() && due[j].shard == shard; ++j) {
      auto it = shards_[shard].objects.find(due[j].key);
      matched.push_back(it != shards_[shard].objects.end() && it->second->committed_deadline() == due[j].deadline);
    }
    std::shared_lock lock(shards_[shard].mutex);
    for (size_t k = 0; i < due.size() && due[i].shard == shard; ++i, ++k) {
      auto it = shards_[shard].objects.find(due[i].key);
      if (it == shards_[shard].objects.end() || (!matched.empty() && !matched[k])) continue;
      // F2: the pin is cleared without checking that it still equals the
      // popped deadline, so a stale entry clears a re-enabled pin.
      const bool check = !faults_.f2_cleanup_skips_deadline_check && matched.empty();
      if (it->second->expire_if_matches(due[i].deadline, now, check)) ++cleared;
    }
  }
  if (faults_.f20_gauge_updated_outside_lock) gauge_.store_from(gauge_read, -cleared);
  else gauge_.add(-cleared);
  return cleared;
}

int64_t EmbeddedMaster::run_scan_cycle(Time now) {
  int64_t cleared = 0;
  for (size_t shard = 0; shard < kShardCount; ++shard) {
    std::shared_lock lock(shards_[shard].mutex);
    for (const auto& [id, md] : shards_[shard].objects) {
      const std::optional<Time> d = md->committed_deadline();
      if (!d || *d > now || !md->expire_if_matches(*d, now, true)) continue;
      index_.remove_if_matches(id, shard, *d);
      ++cleared;
    }
  }
  gauge_.add(-cleared);
  return cleared;
}

// One task-cleanup cycle: the soft-pin expiry, then the retention prune.
Outcome EmbeddedMaster::cleanup(Time now) {
  run_expiry_cycle(now);
  prune_expired_retention(now);
  return Outcome{};
}

}  // namespace pinsim::embedded
