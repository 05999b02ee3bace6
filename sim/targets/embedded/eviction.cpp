// The embedded master's memory eviction, built as Mooncake main's BatchEvict
// is: a census shard by shard (each shard first discards its expired
// PROCESSING replicas, then counts the eviction base and collects the lease
// timeouts of unpinned and, when allowed, pinned candidates); for a
// selective target a frontier of full candidates collected again by a second
// scan; pass 1 over the candidates up to the cutoff lease; the discarded
// replicas released; pass 2 scanning the shards from a start shard, 2A for
// unpinned objects up to the n-th leftover lease, 2B for pinned ones too up
// to the m-th pinned lease. Soft pins are evaluated (IsSoftPinActive, which
// normalises an expired one) exactly where BatchEvict evaluates them, and
// every scan tests the hard pin first. Every shard stays write-locked for the
// whole pass (Mooncake locks one shard at a time; nothing else runs here).
#include <algorithm>
#include <tuple>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

// std::ceil(eviction_base * ratio), the ratio given in percent.
int64_t objects_for_ratio(uint64_t base, uint32_t pct) { return static_cast<int64_t>((base * pct + 99) / 100); }

// Above this target (in percent, 10/44 as Mooncake's ratio) the census keeps
// full candidates at once; below it, only lease timeouts, and the frontier
// is collected by a second scan (kCompactPrebypassTargetRatio).
bool compact_frontier_prebypass(uint32_t target_pct) { return target_pct * 44 >= 1000; }

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

// DiscardExpiredProcessingReplicas for one shard: a write older than the
// release timeout loses its PROCESSING replicas and its Pending (a copy's
// targets are not the write's: they stay); then the copies past the same
// timeout are discarded (replication.cpp).
void EmbeddedMaster::discard_expired_processing(size_t shard, Time now) {
  for (ObjectId id : ids_in(shard)) {
    ObjectMetadata* md = find_in(shard, id);
    const Time expiry = saturating_deadline(md->put_start_time, config_.put_start_release_timeout_ms);
    if (!md->processing || expiry >= now) continue;
    auto first = std::stable_partition(md->replicas.begin(), md->replicas.end(), [](const Replica& r) {
      return r.copy || r.status == ReplicaStatus::Complete;
    });
    discard_replicas(*md, first, expiry);
    md->pending.reset();
    md->processing = false;
    settle_primary_write(id, *md);
    if (md->replicas.empty()) erase_object(shard, id);
  }
  discard_expired_copies(shard, now);
  discard_expired_local(shard, now);  // local_disk.cpp (rule local.expiry)
}

// evict_replicas: pops the evictable memory replicas (their charge goes
// back, ReleaseCommitted), erases an empty object; returns the bytes taken.
uint64_t EmbeddedMaster::evict_memory(ObjectId id) {
  size_t shard = 0;
  ObjectMetadata* md = find_locked(id, &shard);
  auto first = std::stable_partition(md->replicas.begin(), md->replicas.end(),
                                     [md](const Replica& r) { return !md->evictable(r); });  // not a copy's source
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

// Phase 1, the census: every shard discards its expired writes and counts;
// with a compact target the unpinned candidates are kept whole at once.
EmbeddedMaster::Census EmbeddedMaster::evict_census(bool keep_candidates, Time now) {
  Census c;
  for (size_t shard = 0; shard < kShardCount; ++shard) {
    discard_expired_processing(shard, now);
    for (const auto& [id, md] : shards_[shard].objects) {
      if (md->hard_pinned) continue;
      const bool has_evictable = md->has_evictable_memory();
      c.eviction_base += has_evictable;
      if (now < md->lease || !has_evictable) continue;
      if (!normalise_if_expired(id, now)) {
        if (keep_candidates) c.candidates.push_back({shard, id, md->lease});
        else c.no_pin_timeouts.push_back(md->lease);
      } else if (config_.allow_evict_soft_pinned_objects) {
        c.soft_pin_timeouts.push_back(md->lease);
      }
    }
  }
  return c;
}

// collect_candidates: the unpinned candidates again, scanning every shard;
// with `cutoff`, only those with lease <= it (`older_or_equal`) or > it. Its
// test evaluates the soft pin of every lease-expired object, evictable or not.
std::vector<EmbeddedMaster::EvictCandidate> EmbeddedMaster::collect_candidates(std::optional<Time> cutoff,
                                                                              bool older_or_equal, Time now) {
  std::vector<EvictCandidate> out;
  for (size_t shard = 0; shard < kShardCount; ++shard) {
    for (const auto& [id, md] : shards_[shard].objects) {
      if (md->hard_pinned || now < md->lease || normalise_if_expired(id, now) || !md->has_evictable_memory())
        continue;
      if (cutoff && (older_or_equal ? md->lease > *cutoff : md->lease <= *cutoff)) continue;
      out.push_back({shard, id, md->lease});
    }
  }
  return out;
}

// Pass 1 over `batch`: every candidate up to the cutoff lease, and past it
// while fewer than `evict_num` objects went; the others (and any that
// failed re-validation) are left over for pass 2.
void EmbeddedMaster::evict_candidate_batch(const std::vector<EvictCandidate>& batch, FirstPass* pass, Time now) {
  for (const EvictCandidate& c : batch) {
    if (pass->evicted >= pass->evict_num && c.lease > pass->cutoff) {
      pass->leftover.push_back(c.lease);
      continue;
    }
    ObjectMetadata* md = find_in(c.shard, c.id);
    if (!md) continue;  // evicted with its group
    if (now < md->lease || normalise_if_expired(c.id, now) || !md->has_evictable_memory()) {
      pass->leftover.push_back(c.lease);
      continue;
    }
    pass->evicted += static_cast<int64_t>(try_evict(c.id, false, now).objects);
  }
}

// Pass 1: the frontier of unpinned candidates (kept by the census, or
// collected around a reserve cutoff), then each of them in lease order: the
// `evict_num`-th lease is the cutoff (std::nth_element; here the full sort,
// one of the arrangements it may leave). A frontier that ran short is refilled
// from the objects past the reserve cutoff.
EmbeddedMaster::FirstPass EmbeddedMaster::evict_first_pass(Census& census, int64_t ideal, bool prebypass, Time now) {
  std::vector<EvictCandidate> candidates = std::move(census.candidates);
  std::vector<Time>& timeouts = census.no_pin_timeouts;
  const size_t no_pin_count = prebypass ? candidates.size() : timeouts.size();
  const size_t primary = static_cast<size_t>(std::min<int64_t>(ideal, static_cast<int64_t>(no_pin_count)));
  bool compact_used = false;
  Time reserve_cutoff = 0;
  if (primary > 0 && !prebypass) {  // kMinReserveSlack, kReserveSlackDivisor, kMinFrontierLimit, kFrontierDivisor
    const size_t reserve = std::min(no_pin_count, primary + std::max<size_t>(1024, (primary + 9) / 10));
    if (reserve <= std::max<size_t>(64 * 1024, (no_pin_count + 3) / 4)) {
      std::nth_element(timeouts.begin(), timeouts.begin() + static_cast<ptrdiff_t>(reserve - 1), timeouts.end());
      reserve_cutoff = timeouts[reserve - 1];
      candidates = collect_candidates(reserve_cutoff, true, now);
      compact_used = candidates.size() >= primary;
    }
    if (!compact_used) candidates = collect_candidates(std::nullopt, true, now);
  }
  FirstPass pass;
  if (candidates.empty()) return pass;
  pass.evict_num = std::min<int64_t>(ideal, static_cast<int64_t>(candidates.size()));
  std::sort(candidates.begin(), candidates.end(), [](const EvictCandidate& a, const EvictCandidate& b) {
    return std::tie(a.lease, a.id) < std::tie(b.lease, b.id);
  });
  pass.cutoff = candidates[static_cast<size_t>(pass.evict_num - 1)].lease;
  evict_candidate_batch(candidates, &pass, now);
  if (compact_used && pass.evicted < pass.evict_num)
    evict_candidate_batch(collect_candidates(reserve_cutoff, false, now), &pass, now);
  return pass;
}

Outcome EmbeddedMaster::evict(const Op& op, Time now) {
  if (op.evict_target_pct > 100 || op.evict_lowerbound_pct > 100) return Outcome::of(ErrorCode::INVALID_PARAMS);
  const uint32_t target = op.evict_target_pct;
  const uint32_t lowerbound = std::min(op.evict_lowerbound_pct, target);
  AllShards all = lock_all_shards();
  const bool prebypass = compact_frontier_prebypass(target);
  Census census = evict_census(prebypass, now);
  if (census.eviction_base == 0) return Outcome{};
  FirstPass pass = evict_first_pass(census, objects_for_ratio(census.eviction_base, target), prebypass, now);
  const int64_t released = static_cast<int64_t>(release_discarded(now));

  // Pass 2, up to the lower bound, only when pass 1 and the released
  // discards fell short and something is left to take.
  std::vector<Time>& no_pin = pass.leftover;
  std::vector<Time>& soft = census.soft_pin_timeouts;
  int64_t n = objects_for_ratio(census.eviction_base, lowerbound) - pass.evicted - released;
  n = std::min<int64_t>(n, static_cast<int64_t>(no_pin.size() + soft.size()));
  if (n <= 0) return Outcome{};
  if (n <= static_cast<int64_t>(no_pin.size())) {  // 2A: objects without a soft pin only
    std::nth_element(no_pin.begin(), no_pin.begin() + (n - 1), no_pin.end());
    evict_second_pass(n, true, no_pin[static_cast<size_t>(n - 1)], now);
  } else {  // 2B: pinned objects too, up to the m-th pinned lease
    const int64_t m = n - static_cast<int64_t>(no_pin.size());
    std::nth_element(soft.begin(), soft.begin() + (m - 1), soft.end());
    evict_second_pass(n, false, soft[static_cast<size_t>(m - 1)], now);
  }
  return Outcome{};
}

// BatchEvict's second pass: every shard from a start shard (Mooncake draws
// it at random; here it follows the clock, so which admissible objects go is
// the target's choice, Target::eviction_order_unspecified), until `n`
// objects lost their memory. 2A takes unpinned objects with lease <=
// cutoff; 2B any unpinned one and pinned ones with lease <= cutoff.
void EmbeddedMaster::evict_second_pass(int64_t n, bool pass_2a, Time cutoff, Time now) {
  const size_t start = static_cast<size_t>(now) % kShardCount;
  for (size_t i = 0; i < kShardCount && n > 0; ++i) {
    const size_t shard = (start + i) % kShardCount;
    for (ObjectId id : ids_in(shard)) {
      if (n <= 0) break;
      ObjectMetadata* md = find_in(shard, id);
      if (!md || md->hard_pinned || now < md->lease) continue;
      const bool take = pass_2a ? md->lease <= cutoff && !normalise_if_expired(id, now) && md->has_evictable_memory()
                                : md->has_evictable_memory() && (!normalise_if_expired(id, now) || md->lease <= cutoff);
      if (take) n -= static_cast<int64_t>(try_evict(id, !pass_2a, now).objects);
    }
  }
}

}  // namespace pinsim::embedded
