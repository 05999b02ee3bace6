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

bool has_evictable_memory(const Object& obj) {
  return std::any_of(obj.replicas.begin(), obj.replicas.end(), [](const Replica& r) {
    return r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete;
  });
}

int64_t ceil_pct(uint64_t base, uint32_t pct) { return static_cast<int64_t>((base * pct + 99) / 100); }

}  // namespace

// DiscardExpiredProcessingReplicas: a write older than the release timeout
// loses its PROCESSING replicas; Pending goes when no viable one remains.
void Model::discard_expired_processing(Time now) {
  auto expiry_of = [&](const Object& obj) {
    return saturating_deadline(obj.put_start_time, config_.put_start_release_timeout_ms);
  };
  std::vector<ObjectId> due;  // in key order: the discarded list keeps that order
  for (const auto& [id, obj] : objects_.unordered())
    if (obj.processing && expiry_of(obj) < now) due.push_back(id);
  std::sort(due.begin(), due.end());
  for (ObjectId id : due) {
    auto* it = find_object(id);
    Object& obj = it->second;
    const Time expiry = expiry_of(obj);
    auto first = std::stable_partition(obj.replicas.begin(), obj.replicas.end(), [](const Replica& r) {
      return r.status == ReplicaStatus::Complete;
    });
    discard_replicas(id, obj, first, expiry);
    if (obj.pending) {
      hits_.hit(Rule::PendingCleared);
      obj.pending.reset();  // no PROCESSING replica is left, so none is viable
    }
    obj.processing = false;
    settle_charge(obj);
    if (obj.replicas.empty()) erase_object(it);
  }
}

// Pops an object's evictable memory replicas; erases it when none remain.
// Returns the bytes freed (size x replicas taken).
uint64_t Model::evict_memory(ObjectTable::Entry* it) {
  Object& obj = it->second;
  auto first = std::stable_partition(obj.replicas.begin(), obj.replicas.end(), [](const Replica& r) {
    return !(r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete);
  });
  const uint64_t freed = obj.size * static_cast<uint64_t>(obj.replicas.end() - first);
  free_replicas(it->first, obj, first);
  if (obj.replicas.empty()) erase_object(it);
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
  if (op.evict_target_pct > 100 || op.evict_lowerbound_pct > 100)
    return Outcome::of(ErrorCode::INVALID_PARAMS);
  const uint32_t target = op.evict_target_pct;
  const uint32_t lowerbound = std::min(op.evict_lowerbound_pct, target);
  const std::vector<ObjectId> scan_first = std::move(scan_first_);
  scan_first_.clear();
  discard_expired_processing(now);
  const EvictionCensus census = evict_census(now);
  if (census.base == 0) return Outcome{};
  std::vector<Time> leftover;
  const int64_t evicted = evict_first_pass(census, target, now, &leftover);
  const int64_t released = static_cast<int64_t>(release_discarded(now));

  // Pass 2: up to the lower bound. 2A: unpinned objects with lease <= the
  // n-th leftover lease. 2B: every unpinned object and pinned ones with lease
  // <= the m-th pinned lease (ranked by lease, as Mooncake's BatchEvict does).
  int64_t n = ceil_pct(census.base, lowerbound) - evicted - released;
  n = std::min<int64_t>(n, static_cast<int64_t>(leftover.size() + census.soft.size()));
  if (n <= 0) return Outcome{};
  std::sort(leftover.begin(), leftover.end());
  const bool pass_2a = n <= static_cast<int64_t>(leftover.size());
  const Time cutoff = pass_2a ? leftover[n - 1] : census.soft[n - leftover.size() - 1];
  evict_second_pass(n, pass_2a, cutoff, scan_first, now);
  return Outcome{};
}

// Census: base counts every object with an evictable memory replica; the
// candidates also have an expired lease, split by pin state (sorted).
Model::EvictionCensus Model::evict_census(Time now) {
  EvictionCensus c;
  for (auto& [id, obj] : objects_.unordered()) {  // no order: the candidates are sorted below
    if (obj.hard_pinned) {
      hits_.hit(Rule::HardPinNeverEvicted);
      continue;
    }
    if (!has_evictable_memory(obj)) continue;
    ++c.base;
    if (now < obj.lease) continue;
    if (!normalise_if_expired(id, obj, now)) c.no_pin.push_back({obj.lease, id});
    else if (config_.allow_evict_soft_pinned_objects) c.soft.push_back(obj.lease);
  }
  std::sort(c.no_pin.begin(), c.no_pin.end());
  std::sort(c.soft.begin(), c.soft.end());
  return c;
}

// Pass 1: the k oldest leases among unpinned candidates, ties at the cutoff
// included; a candidate that fails revalidation is left over for pass 2.
// Returns the objects evicted.
int64_t Model::evict_first_pass(const EvictionCensus& census, uint32_t target, Time now,
                                std::vector<Time>* leftover) {
  const auto& no_pin = census.no_pin;
  const int64_t k = std::min<int64_t>(ceil_pct(census.base, target), static_cast<int64_t>(no_pin.size()));
  if (k <= 0) return 0;
  // Mooncake main's pass 1 with a target below 10/44 collects its frontier by
  // re-scanning every object whose lease expired, evictable or not, through
  // IsSoftPinActive: stale pins found there are normalised (gauge -1) too
  // (found by the Mooncake lane; docs/interpretations.md).
  if (target * 44 < 1000) {
    for (auto& [id, obj] : objects_.unordered())
      if (!obj.hard_pinned && now >= obj.lease) normalise_if_expired(id, obj, now);
  }
  auto eligible = [&](const ObjectTable::Entry* it) {
    return it && now >= it->second.lease && has_evictable_memory(it->second);
  };
  const Time cutoff = no_pin[k - 1].lease;
  int64_t evicted = 0;
  for (const EvictionCensus::Candidate& c : no_pin) {
    if (evicted >= k && c.lease > cutoff) { leftover->push_back(c.lease); continue; }
    auto it = find_object(c.id);
    if (!it) continue;  // evicted with its group
    if (!eligible(it) || normalise_if_expired(c.id, it->second, now)) {
      leftover->push_back(c.lease);
      continue;
    }
    evicted += static_cast<int64_t>(try_evict(c.id, false, now).objects);
  }
  return evicted;
}

// BatchEvict's second pass scan: up to `n` objects, in key order after any
// objects a runner asked for first (scan_first_in_next_eviction; Mooncake
// starts at a random shard).
void Model::evict_second_pass(int64_t n, bool pass_2a, Time cutoff, const std::vector<ObjectId>& scan_first,
                              Time now) {
  std::vector<ObjectId> scan = scan_first;
  for (const auto& [id, obj] : objects_)
    if (std::find(scan_first.begin(), scan_first.end(), id) == scan_first.end()) scan.push_back(id);
  for (ObjectId id : scan) {
    if (n <= 0) break;
    auto it = find_object(id);
    if (!it || it->second.hard_pinned || now < it->second.lease) continue;
    if (pass_2a) {
      // Mooncake's BatchEvict pass 2A: its scan tests hard pin, lease expired,
      // lease <= cutoff, !IsSoftPinActive, and only then an evictable replica,
      // so an expired-lease object inside the cutoff is lazily normalised
      // even when it has nothing to evict (RFC 3028 "Read and eviction paths").
      if (it->second.lease > cutoff) continue;
      if (normalise_if_expired(id, it->second, now) || !has_evictable_memory(it->second)) continue;
      n -= static_cast<int64_t>(try_evict(id, false, now).objects);
    } else {
      if (!has_evictable_memory(it->second)) continue;
      if (normalise_if_expired(id, it->second, now) && it->second.lease > cutoff) continue;
      n -= static_cast<int64_t>(try_evict(id, true, now).objects);
    }
  }
}

}  // namespace pinsim
