// Memory eviction: one pass of Mooncake main's BatchEvict (unchanged path;
// docs/interpretations.md). Soft pin is a priority, not a guarantee (RFC 3028
// rule 9): pass 1 and 2A take only objects without an active pin; pass 2B may
// take pinned ones when allow_evict_soft_pinned_objects is set. The census
// lazily normalises expired pins (RFC 3028 "Read and eviction paths"). A
// grouped candidate expands to its group, which is skipped while any member
// holds a read lease (this is how PR 2835 retention protects). Where
// Mooncake's order is unspecified (nth_element ties, shard scan from a random
// start) the model scans in key order, unless a runner asked it to follow a
// target's choice (Model::scan_first_in_next_eviction). A hard-pinned object
// is never taken, and every scan tests the hard pin first, so its stale soft
// pin is not normalised here (Mooncake's BatchEvict order).
#include "model.h"

namespace pinsim {

// IsSoftPinActive's lazy normalisation: a stored deadline with now >= D is
// reset (gauge -1). Returns whether the pin is active.
bool Model::normalise_if_expired(ObjectId id, Object& obj, Time now) {
  if (obj.deadline && now >= *obj.deadline) {
    hits_.hit(Rule::LazyExpiry);
    hits_.hit(Rule::Rfc4);
    set_deadline(id, obj, std::nullopt);
  }
  return obj.soft_pin_active(now);
}

namespace {

// A COMPLETE memory replica no copy (rule copy.blocks) nor offload (rule local.offload) is reading.
bool evictable_replica(const Object& obj, const Replica& r) {
  const bool source = (obj.task && obj.task->source == r.id) || (obj.offload && obj.offload->source == r.id);
  return r.complete_memory() && !source;
}

// The census asks this of every object: the sources are looked up only for
// an object with a complete memory replica.
bool has_evictable_memory(const Object& obj) {
  for (const Replica& r : obj.replicas)
    if (r.complete_memory() && evictable_replica(obj, r)) return true;
  return false;
}

int64_t ceil_pct(uint64_t base, uint32_t pct) { return static_cast<int64_t>((base * pct + 99) / 100); }

}  // namespace

// Whether a write began longer ago than the release timeout.
bool Model::processing_expired(const Object& obj, Time now) const {
  return saturating_deadline(obj.put_start_time, config_.put_start_release_timeout_ms) < now;
}

// Whether a copy began longer ago than the release timeout (rule copy.expiry: a write's boundary).
bool Model::copy_expired(const Object& obj, Time now) const {
  return obj.task && saturating_deadline(obj.task->start, config_.put_start_release_timeout_ms) < now;
}

// DiscardExpiredProcessingReplicas: a write older than the release timeout
// loses its PROCESSING replicas; Pending goes when no viable one remains. A
// copy older than it loses its targets (rule copy.expiry).
// Each test is made only of an object that has the task, so the census's
// common object (no write, copy, offload or promotion under way) costs four
// flag reads (the census is flattened: no call either).
bool Model::processing_due(const Object& obj, Time now) const {
  return (obj.processing && processing_expired(obj, now)) || (obj.task && copy_expired(obj, now)) ||
         (obj.offload && offload_expired(obj, now)) || (obj.promotion && promotion_expired(obj, now));
}

// BatchEvict's census in one scan of the table. Each object's expired
// processing is discarded before it is counted, as evict_census_step does
// shard by shard; discarding one object changes no other's census, so the
// due ones (most PROCESSING writes are not due) are discarded after the scan
// in key order (the discarded list keeps that order) and counted then. It
// also notes the stale pins close_census would otherwise rescan the table for.
// Flattened: every call inside is inlined, so the visit of an object (most
// have nothing to evict) costs no call (bench_model: 12% fewer instructions).
[[gnu::flatten]] void Model::census(EvictionRun& run, Time now) {
  std::vector<ObjectId> due;
  run.stale.emplace();
  for (auto& [id, obj] : objects_.unordered()) {  // no order: close_census sorts
    if (processing_due(obj, now)) due.push_back(id);
    else census_visit(run, id, obj, now);
  }
  std::sort(due.begin(), due.end());
  for (ObjectId id : due) discard_expired_processing_of(id, now);
  for (ObjectId id : due)
    if (auto* it = find_object(id)) census_visit(run, id, it->second, now);
}

// One object, as BatchEvict's census meets it: its expired write, then its
// expired copy (Mooncake's cleanup visits a shard's writes, then its tasks).
void Model::discard_expired_processing_of(ObjectId id, Time now) {
  discard_expired_write_of(id, now);
  discard_expired_copy_of(id, now);
  if (auto* it = find_object(id)) discard_expired_local(it->second, now);  // rule local.expiry
}

void Model::discard_expired_write_of(ObjectId id, Time now) {
  auto* it = find_object(id);
  if (!it || !it->second.processing) return;
  Object& obj = it->second;
  if (!processing_expired(obj, now)) return;
  const Time expiry = saturating_deadline(obj.put_start_time, config_.put_start_release_timeout_ms);
  auto first = obj.replicas.stable_partition([&](const Replica& r) {
    if (r.copy && r.status == ReplicaStatus::Processing) hits_.hit(Rule::CopyTargets);
    return r.copy || r.status == ReplicaStatus::Complete;  // a copy's targets stay (rule copy.targets)
  });
  const bool logged = discard_logged(id, obj, first, expiry, true);  // when the log knows the object (rule log.window)
  if (obj.pending) {
    hits_.hit(Rule::PendingCleared);
    obj.pending.reset();  // no PROCESSING replica is left, so none is viable
  }
  obj.processing = false;
  const uint64_t charged = obj.charged_bytes();
  settle_charge(obj);  // in the durable callback when logged: held till then
  if (logged) hold_charge(id, obj.size, charged - std::min(charged, obj.charged_bytes()), false);
  if (obj.replicas.empty()) erase_object(it);
}

// Pops an object's evictable memory replicas; erases it when none remain.
// Returns the bytes freed (size x replicas taken).
uint64_t Model::evict_memory(ObjectTable::Entry* it) {
  Object& obj = it->second;
  if (obj.task) hits_.hit(Rule::CopyBlocks);
  auto first = obj.replicas.stable_partition([&](const Replica& r) { return !evictable_replica(obj, r); });
  const uint64_t freed = obj.size * static_cast<uint64_t>(obj.replicas.end() - first);
  remove_logged(it->first, obj, first);  // BatchEvict logs what it takes (rule log.window)
  if (obj.replicas.empty()) {
    remove_logged(it);
    return freed;
  }
  if (obj.has_disk()) hits_.hit(Rule::DiskSurvives);               // the object stays on its disk replica
  if (obj.count(ReplicaKind::Dfs)) hits_.hit(Rule::DfsSurvives);  // or on its DFS one
  if (obj.has_local_disk()) hits_.hit(Rule::LocalSurvives);        // or on the holder's disk
  return freed;
}

// The test every eviction scan makes of a candidate, in Mooncake's order:
// hard pin, lease, (pass without pins: IsSoftPinActive, which lazily
// normalises a stale pin), an evictable replica.
bool Model::evictable_candidate(ObjectId id, Object& obj, bool allow_soft, Time now) {
  if (obj.hard_pinned) {
    hits_.hit(Rule::HardPinNeverEvicted);
    return false;
  }
  if (now < obj.lease) return false;
  if (!allow_soft && normalise_if_expired(id, obj, now)) return false;
  return has_evictable_memory(obj);
}

std::vector<ObjectId> Model::quota_eviction_candidates(TenantId tenant, Time now) const {
  std::vector<ObjectId> out;
  for (const auto& [id, obj] : objects_)
    if (id.tenant == tenant && !obj.hard_pinned && now >= obj.lease && has_evictable_memory(obj)) out.push_back(id);
  return out;
}

// try_evict_group_or_object: how many objects lost their memory, and the
// bytes taken.
Model::Evicted Model::try_evict(ObjectId id, bool allow_soft, Time now) {
  auto it = find_object(id);
  const GroupId group = it->second.group;
  auto members = group == 0 ? group_members_.end() : group_members_.find({id.tenant, group});
  if (members == group_members_.end()) {
    hits_.hit(it->second.soft_pin_active(now) ? Rule::Rfc9 : Rule::EvictPass1);
    return {1, evict_memory(it)};
  }
  const std::vector<KeyId> keys(members->second.begin(), members->second.end());
  for (KeyId k : keys) {
    if (now < find_object({id.tenant, k})->second.lease) {
      hits_.hit(Rule::EvictGroupSkip);
      return {};  // any member with a live lease protects the whole group
    }
  }
  Evicted out;
  for (KeyId k : keys) {
    auto m = find_object({id.tenant, k});
    // Mooncake's BatchEvict group expansion / RFC 3028 "Read and eviction
    // paths": each member is tested as any candidate is (evictable_candidate).
    // A member with no evictable replica is still evaluated, so its stale
    // pin is normalised (gauge -1).
    if (!evictable_candidate(m->first, m->second, allow_soft, now)) continue;
    hits_.hit(m->second.soft_pin_active(now) ? Rule::Rfc9 : Rule::EvictPass1);
    out.bytes += evict_memory(m);
    ++out.objects;
  }
  return out;
}

Outcome Model::evict(const Op& op, Time now) {
  EvictionRun run;
  if (Outcome refused = evict_begin(op, &run); refused.code != ErrorCode::OK) return refused;
  const std::vector<ObjectId> scan_first = std::move(scan_first_);
  scan_first_.clear();
  census(run, now);
  close_census(run, now);
  if (run.base == 0) return Outcome{};
  for (const EvictionRun::Candidate& c : run.no_pin) pass1_visit(run, c, now);  // pass1_visit leaves no_pin as it is
  if (refills(run)) {  // rare: a grouped candidate skipped (evict.group-lease)
    std::vector<ObjectId> ids;
    for (const auto& [id, obj] : objects_) ids.push_back(id);
    for (ObjectId id : ids) evict_refill_step(run, id, now);
  }
  evict_release_step(run, now);
  // Most passes end here: key order costs a sort of the whole table after any
  // change, so it is built only when pass 2 has objects to take.
  if (run.n <= 0) return Outcome{};
  // Pass 2 scans in key order after any objects a runner asked for first
  // (scan_first_in_next_eviction; Mooncake starts at a random shard).
  std::vector<ObjectId> scan = scan_first;
  for (const auto& [id, obj] : objects_)
    if (std::find(scan_first.begin(), scan_first.end(), id) == scan_first.end()) scan.push_back(id);
  for (ObjectId id : scan) {
    if (run.n <= 0) break;
    pass2_visit(run, id, now);
  }
  return Outcome{};
}

// The census of one object: base counts it when it has an evictable memory
// replica; it is a candidate when its lease also expired, by pin state.
void Model::census_visit(EvictionRun& run, ObjectId id, Object& obj, Time now) {
  if (obj.hard_pinned) {
    hits_.hit(Rule::HardPinNeverEvicted);
    return;
  }
  if (!has_evictable_memory(obj)) {
    // close_census's rescan would normalise this one's stale pin (gauge -1)
    if (run.stale && now >= obj.lease && obj.deadline && now >= *obj.deadline) run.stale->push_back(id);
    return;
  }
  ++run.base;
  if (now < obj.lease) return;
  if (!normalise_if_expired(id, obj, now)) run.no_pin.push_back({obj.lease, id});
  else if (config_.allow_evict_soft_pinned_objects) run.soft.push_back(obj.lease);
}

// Closes the census: pass 1 takes the k oldest leases among unpinned
// candidates, ties at the cutoff included.
void Model::close_census(EvictionRun& run, Time now) {
  if (run.closed) return;
  run.closed = true;
  std::sort(run.no_pin.begin(), run.no_pin.end());
  std::sort(run.soft.begin(), run.soft.end());
  run.k = std::min<int64_t>(ceil_pct(run.base, run.target), static_cast<int64_t>(run.no_pin.size()));
  if (run.k <= 0) return;
  run.cutoff = run.no_pin[run.k - 1].lease;
  if (!collects_frontier(run.target)) return;
  // Mooncake main's pass 1 with a target below 10/44 collects its frontier by
  // re-scanning every object whose lease expired, evictable or not, through
  // IsSoftPinActive: stale pins found there are normalised (gauge -1) too
  // (found by the Mooncake lane; docs/interpretations.md). It keeps those no
  // later than the reserve cutoff: the k-th no-pin lease plus a slack of at
  // least 1,024 (every census candidate, at the sizes pinsim runs).
  run.frontier = true;
  run.ideal = ceil_pct(run.base, run.target);
  const int64_t slack = std::max<int64_t>(1024, (run.k + 9) / 10);
  const int64_t reserve = std::min<int64_t>(static_cast<int64_t>(run.no_pin.size()), run.k + slack);
  run.reserve_cutoff = run.no_pin[reserve - 1].lease;
  if (!run.stale) return;  // the steps collect object by object (evict_collect_step)
  // A census in one scan (Model::census) noted the stale pins, and the
  // collect meets the state the census met: its candidates, to the cutoff.
  for (ObjectId id : *run.stale) normalise_if_expired(id, find_object(id)->second, now);
  run.collected.assign(run.no_pin.begin(), run.no_pin.begin() + reserve);
  close_collect(run, now);
}

// The collect's test of one object (collect_candidates): a candidate now,
// with its lease; the stale pin of an object whose lease expired is
// normalised on the way, evictable or not.
std::optional<Time> Model::frontier_candidate(ObjectId id, Time now) {
  auto* it = find_object(id);
  if (!it || !evictable_candidate(id, it->second, false, now)) return std::nullopt;
  return it->second.lease;
}

// The collect closes: pass 1 takes its k from the collected candidates, or,
// when those are fewer than the census's k, from every candidate now (the
// shortfall guard's full collect, taken at one instant here).
void Model::close_collect(EvictionRun& run, Time now) {
  if (!run.frontier || run.collect_closed) return;
  run.collect_closed = true;
  run.compact = static_cast<int64_t>(run.collected.size()) >= run.k;
  run.no_pin = std::move(run.collected);
  run.collected.clear();
  if (!run.compact) {
    run.no_pin.clear();
    for (const auto& [id, obj] : objects_)
      if (auto lease = frontier_candidate(id, now)) run.no_pin.push_back({*lease, id});
  }
  std::sort(run.no_pin.begin(), run.no_pin.end());
  run.k = std::min<int64_t>(run.ideal, static_cast<int64_t>(run.no_pin.size()));
  if (run.k > 0) run.cutoff = run.no_pin[run.k - 1].lease;
}

// Whether pass 1 refills, decided once its candidates are visited: from a
// compact collect, short of its k.
bool Model::refills(EvictionRun& run) {
  if (run.refill < 0) run.refill = run.frontier && run.compact && run.evicted < run.k;
  return run.refill == 1;
}

// Pass 1 for one candidate: it is revalidated (a candidate that lost its
// evictable replica, got a lease or a pin meanwhile is left over for pass 2);
// a hard pin is never taken (rule hardpin.never-evicted), even one a write
// set after the census.
void Model::pass1_visit(EvictionRun& run, const EvictionRun::Candidate& c, Time now) {
  if (run.k <= 0) return;
  if (run.evicted >= run.k && c.lease > run.cutoff) {
    run.leftover.push_back(c.lease);
    return;
  }
  auto it = find_object(c.id);
  if (!it) return;  // gone (evicted with its group, or removed)
  if (it->second.hard_pinned) {
    hits_.hit(Rule::HardPinNeverEvicted);
    return;
  }
  if (now < it->second.lease || !has_evictable_memory(it->second) || normalise_if_expired(c.id, it->second, now)) {
    run.leftover.push_back(c.lease);
    return;
  }
  run.evicted += static_cast<int64_t>(try_evict(c.id, false, now).objects);
}

// The release of due discarded replicas, then pass 2's size: up to the lower
// bound. 2A: unpinned objects with lease <= the n-th leftover lease. 2B:
// every unpinned object and pinned ones with lease <= the m-th pinned lease
// (ranked by lease, as Mooncake's BatchEvict does).
void Model::evict_release_step(EvictionRun& run, Time now) {
  close_census(run, now);
  close_collect(run, now);
  refills(run);
  if (run.released) return;
  run.released = true;
  if (run.base == 0) return;  // BatchEvict returns before releasing anything
  const int64_t released = static_cast<int64_t>(release_discarded(now));
  int64_t n = ceil_pct(run.base, run.lowerbound) - run.evicted - released;
  n = std::min<int64_t>(n, static_cast<int64_t>(run.leftover.size() + run.soft.size()));
  if (n <= 0) return;
  std::sort(run.leftover.begin(), run.leftover.end());
  run.n = n;
  run.pass_2a = n <= static_cast<int64_t>(run.leftover.size());
  run.cutoff2 = run.pass_2a ? run.leftover[n - 1] : run.soft[n - run.leftover.size() - 1];
}

// Pass 2 for one object, while the pass has objects left to take.
void Model::pass2_visit(EvictionRun& run, ObjectId id, Time now) {
  if (run.n <= 0) return;
  auto it = find_object(id);
  if (!it || it->second.hard_pinned || now < it->second.lease) return;
  if (run.pass_2a) {
    // Mooncake's BatchEvict pass 2A: its scan tests hard pin, lease expired,
    // lease <= cutoff, !IsSoftPinActive, and only then an evictable replica,
    // so an expired-lease object inside the cutoff is lazily normalised
    // even when it has nothing to evict (RFC 3028 "Read and eviction paths").
    if (it->second.lease > run.cutoff2) return;
    if (normalise_if_expired(id, it->second, now) || !has_evictable_memory(it->second)) return;
    run.n -= static_cast<int64_t>(try_evict(id, false, now).objects);
  } else {
    if (!has_evictable_memory(it->second)) return;
    if (normalise_if_expired(id, it->second, now) && it->second.lease > run.cutoff2) return;
    run.n -= static_cast<int64_t>(try_evict(id, true, now).objects);
  }
}

}  // namespace pinsim
