// BatchEvict as the steps Mooncake takes, one shard lock at a time, so that
// a history in which an eviction overlaps other calls can be explained with
// those calls between its steps (sim/sched). Each step applies the rule
// eviction.cpp applies to that object in Model::evict, which is the same
// steps run back to back.
#include <algorithm>

#include "model.h"

namespace pinsim {

Outcome Model::evict_begin(const Op& op, EvictionRun* run) const {
  if (op.evict_target_pct > 100 || op.evict_lowerbound_pct > 100) return Outcome::of(ErrorCode::INVALID_PARAMS);
  *run = EvictionRun{};
  run->target = op.evict_target_pct;
  run->lowerbound = std::min(op.evict_lowerbound_pct, op.evict_target_pct);
  return Outcome{};
}

// The census of one object's shard: its expired PROCESSING replicas are
// discarded first, as BatchEvict's census does for each shard.
void Model::evict_census_step(EvictionRun& run, ObjectId id, Time now) {
  if (run.closed) return;
  discard_expired_processing_of(id, now);
  if (auto* it = find_object(id)) census_visit(run, id, it->second, now);
}

// The collect of one object's shard (below 10/44 only; close_census).
void Model::evict_collect_step(EvictionRun& run, ObjectId id, Time now) {
  close_census(run, now);
  if (!run.frontier || run.collect_closed) return;
  if (auto lease = frontier_candidate(id, now); lease && *lease <= run.reserve_cutoff)
    run.collected.push_back({*lease, id});
}

void Model::evict_pass1_step(EvictionRun& run, ObjectId id, Time now) {
  close_census(run, now);
  close_collect(run, now);
  if (run.base == 0 || run.released) return;
  for (const EvictionRun::Candidate& c : run.no_pin)
    if (c.id == id) pass1_visit(run, c, now);
}

// The refill of one object's shard: a candidate now with a lease past the
// reserve cutoff is visited as pass 1 visits its own.
void Model::evict_refill_step(EvictionRun& run, ObjectId id, Time now) {
  close_census(run, now);
  close_collect(run, now);
  if (run.base == 0 || run.released || !refills(run)) return;
  const std::optional<Time> lease = frontier_candidate(id, now);
  if (lease && *lease > run.reserve_cutoff) pass1_visit(run, {*lease, id}, now);
}

void Model::evict_pass2_step(EvictionRun& run, ObjectId id, Time now) {
  evict_release_step(run, now);
  pass2_visit(run, id, now);
}

void EvictionRun::encode(std::string* out) const {
  auto put = [out](int64_t v) { out->append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(target), put(lowerbound), put(static_cast<int64_t>(base));
  put(static_cast<int64_t>(no_pin.size()));
  for (const Candidate& c : no_pin) put(c.lease), put(c.id.tenant), put(c.id.key);
  put(static_cast<int64_t>(soft.size()));
  for (Time t : soft) put(t);
  put(closed), put(k), put(cutoff), put(evicted);
  put(static_cast<int64_t>(leftover.size()));
  for (Time t : leftover) put(t);
  put(released), put(n), put(pass_2a), put(cutoff2);
  put(frontier), put(collect_closed), put(compact), put(refill), put(ideal), put(reserve_cutoff);
  put(static_cast<int64_t>(collected.size()));
  for (const Candidate& c : collected) put(c.lease), put(c.id.tenant), put(c.id.key);
}

}  // namespace pinsim
