// A canonical encoding of the whole model state for the bounded explorer's
// visited set: two states with the same encoding behave the same from here
// on. Times are written relative to `now` (the rules only compare times with
// each other and with now, and add TTLs to now); replica ids are written as
// their rank (among all, or among the object's own: model.h), since only
// their identity matters. Actors are renamed in order
// of first appearance (symmetry reduction) unless the caller keeps them: the
// rules and the explorer's workload only compare client ids for equality, so
// states that differ by a permutation of actors behave alike there (not in a
// linearizability search, whose remaining calls each belong to one client).
// Keys and tenants are not renamed: a key's group follows from its id,
// eviction scans keys in order, and tenants differ by their quota policies.
#include <algorithm>

#include "model.h"

namespace pinsim {

namespace {

void put(std::string& out, int64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

// Replica ids as their rank among every id added (Global) or among the
// replicas of the object entered last (PerObject).
class IdRanker {
 public:
  explicit IdRanker(Model::IdRanks ranks) : global_(ranks == Model::IdRanks::Global) {}
  template <typename Objects>
  void add(const Objects& objs) {
    for (const auto& [id, o] : objs)
      for (const Replica& r : o.replicas) ids_.push_back(r.id);
    std::sort(ids_.begin(), ids_.end());
  }
  void enter(const Object& o) {
    if (global_) return;
    ids_.clear();
    for (const Replica& r : o.replicas) ids_.push_back(r.id);
    std::sort(ids_.begin(), ids_.end());
  }
  int64_t operator()(ReplicaId id) const {
    return static_cast<int64_t>(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin());
  }

 private:
  bool global_;
  std::vector<ReplicaId> ids_;
};

// An object's offload and promotion (rules local.*), replica ids ranked.
template <typename Rank, typename Rel>
void put_local_tasks(std::string& out, const Object& o, Rank& rank, const Rel& rel) {
  if (o.offload) put(out, rank(o.offload->source)), rel(o.offload->start), put(out, o.offload->taken);
  else put(out, -1);
  if (!o.promotion) return put(out, -1);
  put(out, rank(o.promotion->source)), put(out, o.promotion->staged ? rank(o.promotion->staged) : -1);
  rel(o.promotion->start);
}

}  // namespace

std::string Model::canonical_state(Time now) const {
  std::string out;
  canonical_state(now, &out);
  return out;
}

// The metrics that count requests (reads, refusals): a restore keeps them.
void Model::put_counters(std::string& out) const {
  for (uint64_t b : {memory_hit_bytes_, disk_hit_bytes_, memory_hits_, disk_hits_, reads_served_, quota_rejections_,
                     placement_failures_, partial_placements_})
    put(out, static_cast<int64_t>(b));
}

void Model::canonical_state(Time now, std::string* buffer, IdRanks ranks, Actors actors, Counters counters) const {
  std::string& out = *buffer;
  out.clear();
  if (counters == Counters::Kept) put_counters(out);
  auto rel = [&](Time t) { put(out, t == kTimeMax ? INT64_MIN : t - now); };
  IdRanker rank(ranks);
  if (ranks == IdRanks::Global) {
    rank.add(objects_);
    for (const auto& s : snapshots_) rank.add(s->objects);
  }
  std::vector<ClientId> clients;  // actors in order of first appearance
  auto client_rank = [&](ClientId c) {
    if (actors == Actors::Kept) return static_cast<int64_t>(c);
    auto it = std::find(clients.begin(), clients.end(), c);
    if (it == clients.end()) it = clients.insert(it, c);
    return static_cast<int64_t>(it - clients.begin());
  };
  auto objects = [&](const auto& objs) {
    put(out, static_cast<int64_t>(objs.size()));
    for (const auto& [id, o] : objs) {
      rank.enter(o);
      put(out, id.tenant);
      put(out, id.key);
      put(out, client_rank(o.client));
      put(out, static_cast<int64_t>(o.size));
      put(out, static_cast<int64_t>(o.replicas.size()));
      for (const Replica& r : o.replicas) {
        put(out, rank(r.id));
        put(out, ((static_cast<int64_t>(r.kind) * 4 + static_cast<int64_t>(r.status)) * 2 + r.copy) * 2 + r.dynamic);
        put(out, r.segment);
      }
      o.deadline ? rel(*o.deadline) : put(out, INT64_MAX);
      put(out, o.pending ? static_cast<int64_t>(o.pending->action) : -1);
      if (o.pending) {
        put(out, static_cast<int64_t>(o.pending->ttl_ms));
        put(out, static_cast<int64_t>(o.pending->eligible.size()));
        for (ReplicaId e : o.pending->eligible) put(out, rank(e));
      }
      rel(o.lease), rel(o.put_start_time), put(out, o.group), put(out, o.hard_pinned);
      put(out, static_cast<int64_t>(o.replaced_charge)), put(out, o.reserved ? static_cast<int64_t>(*o.reserved) : -1);
      put(out, o.processing), put(out, o.checksum ? static_cast<int64_t>(*o.checksum) : -1);
      put(out, o.task ? client_rank(o.task->owner) : -1);  // a copy under way (rules copy.*)
      if (o.task) {
        put(out, rank(o.task->source)), rel(o.task->start), put(out, static_cast<int64_t>(o.task->targets));
        put(out, static_cast<int64_t>(o.task->grant)), rel(o.task->epoch);
      }
      rel(std::max(o.recreate_after, now));  // dynrep.cooldown: only whether and how long it still blocks
      if (config_.local_disk) put_local_tasks(out, o, rank, rel);  // nothing to encode without the tier
    }
  };
  objects(objects_);
  put(out, gauge_);
  for (uint64_t u : segment_used_) put(out, static_cast<int64_t>(u));
  auto segments = [&](const std::vector<MountState>& all) {  // the setup's client apart from actors
    for (const MountState& m : all)
      put(out, m.mounted * 2 + m.leaving), put(out, m.owner != kSetupClient ? client_rank(m.owner) : -1);
  };
  segments(segments_);
  canonical_groups(now, out);
  put(out, -6);
  for (const Discarded& d : discarded_) {
    rel(d.release_at), put(out, static_cast<int64_t>(d.size));
    for (const Replica& r : d.replicas) {  // as Placement shows them: the lane compares it at a round's end
      put(out, static_cast<int64_t>(r.kind) * 4 + static_cast<int64_t>(r.status));
      put(out, r.segment);
    }
  }
  put(out, -4);
  for (const auto& s : snapshots_) {
    objects(s->objects);
    for (const Discarded& d : s->discarded)
      rel(d.release_at), put(out, static_cast<int64_t>(d.size * 1000 + d.replicas.size()));
    segments(s->segments);
    put(out, -5);
  }
  if (config_.dynamic_replication) canonical_dynamic(now, out);
  if (config_.local_disk) canonical_hand(out);
  canonical_retiring(now, out);
}

// Groups needing a refresh, retention, the admission counter and the quota policies.
void Model::canonical_groups(Time now, std::string& out) const {
  put(out, -2);
  for (const auto& g : groups_needing_refresh_) put(out, g.first), put(out, g.second);
  put(out, -3);
  for (const auto& [g, d] : retention_)
    put(out, g.first), put(out, g.second), put(out, d == kTimeMax ? INT64_MIN : d - now);
  put(out, static_cast<int64_t>(retained_group_count_));
  put(out, -5);  // quota policies change at run time (set_quota, delete_quota)
  for (const auto& [t, q] : requested_quota_) put(out, t), put(out, static_cast<int64_t>(q));
}

// The log's window (log_window.cpp): nothing is written without the lag.
void Model::canonical_retiring(Time now, std::string& out) const {
  if (retiring_.empty()) return;
  put(out, -7);
  for (const Retiring& r : retiring_) {
    put(out, static_cast<int64_t>(r.id.tenant)), put(out, static_cast<int64_t>(r.id.key));
    put(out, static_cast<int64_t>(r.size)), put(out, static_cast<int64_t>(r.charge));
    put(out, r.cached * 2 + r.closed);
    put(out, !r.deadline ? INT64_MAX : *r.deadline == kTimeMax ? INT64_MIN : *r.deadline - now);
    put(out, static_cast<int64_t>(r.replicas.size()));
    for (const Replica& x : r.replicas) put(out, static_cast<int64_t>(x.kind) * 4), put(out, x.segment);
    put(out, static_cast<int64_t>(r.discarding.size())), put(out, r.removal * 4 + r.write_discard * 2 + r.copy_discard);
    for (const Discarded& d : r.discarding) {
      put(out, d.release_at - now), put(out, static_cast<int64_t>(d.replicas.size()));
      for (const Replica& x : d.replicas) put(out, static_cast<int64_t>(x.kind) * 4), put(out, x.segment);
    }
  }
}

// The local-disk holder's hand (rules local.*): which keys, and whether each
// is still its object's offload (offload ids only compare for equality).
void Model::canonical_hand(std::string& out) const {
  put(out, -10);
  for (const auto& [id, offload] : hand_) {
    const auto* it = objects_.find(id);
    put(out, id.tenant), put(out, id.key), put(out, it && it->second.offload && it->second.offload->id == offload);
  }
}

// Dynamic replication's state (rules dynrep.*): heat, leases, pending leases,
// cooldowns; grant ids as they are (they only compare for equality).
void Model::canonical_dynamic(Time now, std::string& out) const {
  auto p = [&](int64_t v) { put(out, v); };
  auto lease = [&](const Lease& l) {
    p(l.object.tenant), p(l.object.key), p(static_cast<int64_t>(l.grant));
    p(l.source), p(l.target), p(l.epoch - now), p(l.expire - now);
  };
  p(-7);
  for (const auto& [id, h] : heat_) p(id.tenant), p(id.key), p(h.start - now), p(h.hits);
  for (const auto* table : {&leases_, &granted_}) {
    p(-8);
    for (const auto& [pk, l] : *table) p(pk.first), p(pk.second), lease(l);
  }
  p(-9);
  for (const auto& [id, l] : dyn_pending_) lease(l);
  for (const auto& [id, t] : dyn_cooldown_) p(id.tenant), p(id.key), p(std::max(t, now) - now);
  p(static_cast<int64_t>(next_grant_));
}

}  // namespace pinsim
