// The embedded master's memory eviction: one BatchEvict pass with every shard
// write-locked in index order (Mooncake main BatchEvict). It has the model's
// observable results: candidates in key order, sorted by (lease, key), the
// same pass 1 / 2A / 2B cutoffs, the group rule and lazy normalisation of
// expired pins (IsSoftPinActive) wherever Mooncake evaluates one. Every scan
// tests the hard pin first: a hard-pinned object is never taken, never
// counted in the base, and its stale pin is not normalised here.
#include <algorithm>
#include <tuple>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {
int64_t ceil_pct(uint64_t base, uint32_t pct) { return static_cast<int64_t>((base * pct + 99) / 100); }
}  // namespace

// IsSoftPinActive: EvaluateSoftPin, then ApplySoftPinEvaluation.
bool EmbeddedMaster::normalise_if_expired(ObjectId id, Time now) {
  size_t shard = 0;
  ObjectMetadata* md = find_locked(id, &shard);
  // F14: a stored deadline protects whatever now is: the expired pin is
  // neither treated as ordinary cache nor normalised (P5 catches it).
  if (faults_.f14_expired_pin_protects && md->committed_deadline()) return true;
  const SoftPinEvaluation eval = md->evaluate(now);
  apply_evaluation(id, shard, eval);
  return eval.active;
}

// DiscardExpiredProcessingReplicas.
void EmbeddedMaster::discard_expired_processing(Time now) {
  for (ObjectId id : all_ids_locked()) {
    size_t shard = 0;
    ObjectMetadata* md = find_locked(id, &shard);
    const Time expiry = saturating_deadline(md->put_start_time, config_.put_start_release_timeout_ms);
    if (!md->processing || expiry >= now) continue;
    auto first = std::stable_partition(md->replicas.begin(), md->replicas.end(),
                                       [](const Replica& r) { return r.status == ReplicaStatus::Complete; });
    discard_replicas(*md, first, expiry);
    md->pending.reset();
    md->processing = false;
    settle_primary_write(id, *md);
    if (md->replicas.empty()) erase_object(shard, id);
  }
}

// evict_replicas: pops the evictable memory replicas (their charge goes
// back, ReleaseCommitted), erases an empty object; returns the bytes taken.
uint64_t EmbeddedMaster::evict_memory(ObjectId id) {
  size_t shard = 0;
  ObjectMetadata* md = find_locked(id, &shard);
  auto first = std::stable_partition(md->replicas.begin(), md->replicas.end(), [](const Replica& r) {
    return !(r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete);
  });
  const uint64_t bytes = md->size * static_cast<uint64_t>(md->replicas.end() - first);
  if (TenantQuotaAccount* account = quotas_.FindAny(id.tenant)) md->quota.ReleaseCommitted(*account, bytes);
  free_replicas(*md, first);
  if (md->replicas.empty()) erase_object(shard, id);
  return bytes;
}

// A candidate as every eviction scan tests one, in Mooncake's order: hard
// pin, lease, (without soft pins: IsSoftPinActive, normalising a stale pin),
// an evictable memory replica.
bool EmbeddedMaster::evictable_candidate(ObjectId id, ObjectMetadata& md, bool allow_soft, Time now) {
  if ((md.hard_pinned && !faults_.f17_eviction_takes_hard_pinned) || now < md.lease) return false;  // F17
  if (!allow_soft && normalise_if_expired(id, now)) return false;
  return md.has_evictable_memory();
}

// try_evict_group_or_object: how many objects lost their memory, and the
// bytes taken.
EmbeddedMaster::Evicted EmbeddedMaster::try_evict(ObjectId id, bool allow_soft, Time now) {
  size_t shard = 0;
  const GroupId group = find_locked(id, &shard)->group;
  Shard& s = shards_[shard];
  auto members = group == 0 ? s.group_members.end() : s.group_members.find({id.tenant, group});
  if (members == s.group_members.end()) return {1, evict_memory(id)};
  const std::vector<KeyId> keys(members->second.begin(), members->second.end());
  for (KeyId k : keys)  // a live lease protects the group, a hard-pinned member's too
    if (now < find_in(shard, {id.tenant, k})->lease) return {};
  Evicted out;
  for (KeyId k : keys) {
    const ObjectId member{id.tenant, k};
    if (!evictable_candidate(member, *find_in(shard, member), allow_soft, now)) continue;
    out.bytes += evict_memory(member);
    ++out.objects;
  }
  return out;
}

Outcome EmbeddedMaster::evict(const Op& op, Time now) {
  if (op.evict_target_pct > 100 || op.evict_lowerbound_pct > 100) return Outcome::of(ErrorCode::INVALID_PARAMS);
  const uint32_t target = op.evict_target_pct;
  const uint32_t lowerbound = std::min(op.evict_lowerbound_pct, target);
  AllShards all = lock_all_shards();
  discard_expired_processing(now);

  struct Candidate {
    Time lease;
    ObjectId id;
    bool operator<(const Candidate& o) const { return std::tie(lease, id) < std::tie(o.lease, o.id); }
  };
  std::vector<Candidate> no_pin;
  std::vector<Time> soft;
  uint64_t base = 0;
  for (ObjectId id : all_ids_locked()) {  // census
    ObjectMetadata* md = find_locked(id);
    if (md->hard_pinned || !md->has_evictable_memory()) continue;
    ++base;
    if (now < md->lease) continue;
    if (!normalise_if_expired(id, now)) no_pin.push_back({md->lease, id});
    else if (config_.allow_evict_soft_pinned_objects) soft.push_back(md->lease);
  }
  if (base == 0) return Outcome{};
  std::sort(no_pin.begin(), no_pin.end());
  std::sort(soft.begin(), soft.end());

  auto eligible = [&](const ObjectMetadata* md) { return now >= md->lease && md->has_evictable_memory(); };
  // Pass 1: the k oldest unpinned leases, ties at the cutoff included.
  int64_t evicted = 0;
  std::vector<Time> leftover;
  const int64_t k = std::min<int64_t>(ceil_pct(base, target), static_cast<int64_t>(no_pin.size()));
  // collect_candidates' frontier re-scan (target < 10/44): every lease-expired
  // object goes through IsSoftPinActive, evictable or not.
  if (k > 0 && target * 44 < 1000) {
    for (ObjectId id : all_ids_locked())
      if (const ObjectMetadata* md = find_locked(id); !md->hard_pinned && now >= md->lease)
        normalise_if_expired(id, now);
  }
  if (k > 0) {
    const Time cutoff = no_pin[k - 1].lease;
    int64_t done = 0;
    for (const Candidate& c : no_pin) {
      if (done >= k && c.lease > cutoff) {
        leftover.push_back(c.lease);
        continue;
      }
      ObjectMetadata* md = find_locked(c.id);
      if (!md) continue;  // evicted with its group
      if (!eligible(md) || normalise_if_expired(c.id, now)) {
        leftover.push_back(c.lease);
        continue;
      }
      const int64_t n = static_cast<int64_t>(try_evict(c.id, false, now).objects);
      evicted += n;
      done += n;
    }
  }
  const int64_t released = static_cast<int64_t>(release_discarded(now));

  // Pass 2 up to the lower bound: 2A unpinned only, 2B pinned ones too.
  int64_t n = ceil_pct(base, lowerbound) - evicted - released;
  n = std::min<int64_t>(n, static_cast<int64_t>(leftover.size() + soft.size()));
  if (n <= 0) return Outcome{};
  std::sort(leftover.begin(), leftover.end());
  const bool pass_2a = n <= static_cast<int64_t>(leftover.size());
  evict_second_pass(n, pass_2a, pass_2a ? leftover[n - 1] : soft[n - leftover.size() - 1], now);
  return Outcome{};
}

// BatchEvict's second pass, in key order, until `n` objects lost their
// memory: 2A takes unpinned objects with lease <= cutoff, 2B any unpinned
// one and pinned ones with lease <= cutoff. Hard-pinned objects are skipped
// before anything is evaluated.
void EmbeddedMaster::evict_second_pass(int64_t n, bool pass_2a, Time cutoff, Time now) {
  for (ObjectId id : all_ids_locked()) {
    if (n <= 0) break;
    ObjectMetadata* md = find_locked(id);
    if (!md || md->hard_pinned || now < md->lease) continue;
    if (pass_2a) {
      if (md->lease > cutoff || normalise_if_expired(id, now) || !md->has_evictable_memory()) continue;
      n -= static_cast<int64_t>(try_evict(id, false, now).objects);
    } else {
      if (!md->has_evictable_memory() || (normalise_if_expired(id, now) && md->lease > cutoff)) continue;
      n -= static_cast<int64_t>(try_evict(id, true, now).objects);
    }
  }
}

}  // namespace pinsim::embedded
