// The executable reference model of the object lifecycle: RFC 3028 soft pin
// (as PR 2909 implements it) and PR 2835 group retention. Pure code: no
// threads, no clock reads, no I/O, no global state. One entry point,
// apply(op, now), and a View of the state. Each rule lives in the file named
// after its concept (write_path, read_path, eviction, expiry, snapshot,
// retention) and marks itself in RuleHits when applied.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "config.h"
#include "object.h"
#include "object_table.h"
#include "op.h"
#include "outcome.h"
#include "rules.h"
#include "placement.h"
#include "view.h"

namespace pinsim {

// The placement preference of a batch start, fixed when the batch begins:
// a score per segment, higher first, ordering by free space then by index.
inline std::vector<uint64_t> preference_order(const std::vector<SegmentConfig>& segments,
                                              const std::vector<uint64_t>& used) {
  std::vector<size_t> order(segments.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return segments[a].capacity - used[a] > segments[b].capacity - used[b];
  });
  std::vector<uint64_t> score(segments.size());
  for (size_t rank = 0; rank < order.size(); ++rank) score[order[rank]] = order.size() - rank;
  return score;
}

// One BatchEvict in progress, between the steps Mooncake takes under one
// shard lock each: the census, pass 1 per candidate, the release of
// discarded replicas, pass 2 per object (Model::evict_begin and the step
// functions). Model::evict runs the steps back to back.
// Whether BatchEvict at `target_pct` of its base works from a second scan
// after its census (Mooncake main's compact frontier: below 10/44).
inline bool collects_frontier(uint32_t target_pct) { return target_pct * 44 < 1000; }

struct EvictionRun {
  struct Candidate {
    Time lease;
    ObjectId id;
    bool operator<(const Candidate& o) const { return std::tie(lease, id) < std::tie(o.lease, o.id); }
  };
  uint32_t target = 0, lowerbound = 0;  // percent
  // Census: objects with an evictable memory replica; the candidates also
  // have an expired lease, split by pin state.
  uint64_t base = 0;
  std::vector<Candidate> no_pin;  // no active pin; by lease then id once closed
  std::vector<Time> soft;         // active pin (when those may go); by lease once closed
  // Objects with a stale pin, an expired lease and nothing to evict, noted
  // by a census taken in one scan (Model::census); the steps leave it empty.
  std::optional<std::vector<ObjectId>> stale;
  // Pass 1, fixed when the census closes: the first k candidates, ties at the cutoff lease included.
  bool closed = false;
  int64_t k = 0;
  Time cutoff = 0;
  int64_t evicted = 0;
  std::vector<Time> leftover;  // candidates pass 1 did not take
  // Pass 2, fixed at the release: up to n objects; 2A unpinned ones with
  // lease <= cutoff2, 2B any unpinned one and pinned ones with lease <= cutoff2.
  bool released = false;
  int64_t n = 0;
  bool pass_2a = false;
  Time cutoff2 = 0;
  // Below 10/44 (Mooncake's compact frontier), when the census found
  // candidates: pass 1 works from a second scan, the collect, of the objects
  // that are candidates then with a lease no later than reserve_cutoff (the
  // census's last no-pin lease, at this table size), and from every candidate
  // then when those are fewer than the census's k. A pass 1 that took fewer
  // than its k from a compact collect refills: candidates with a later lease.
  bool frontier = false;
  bool collect_closed = false;
  bool compact = false;
  int8_t refill = -1;  // -1 not decided yet, 0 no, 1 yes
  int64_t ideal = 0;
  Time reserve_cutoff = 0;
  std::vector<Candidate> collected;
  void encode(std::string* out) const;  // appends a canonical encoding
};

// One single Put/UpsertStart as Mooncake takes it in multi-tenant mode,
// between its critical sections: an attempt, and after an attempt refused for
// quota an eviction of the tenant's own objects for the deficit, three
// attempts in all (Model::start_attempt, Model::start_quota_evict). The
// placement preference is the request's, fixed by the first attempt.
struct StartRun {
  std::vector<uint64_t> preference;
  int attempts = 0;
  uint64_t deficit = 0;  // of the last attempt, refused for quota
  bool ended = false;    // an attempt gave the call's outcome; the steps left change nothing
  void encode(std::string* out) const;  // appends a canonical encoding
};

// A segment as the master knows it (segments.cpp): mounted or not; leaving
// while a graceful unmount is under way (mounted, readable, takes no new
// replica); and the client that mounted it, the only one that may start its
// graceful unmount (kSetupClient: the setup's client, which mounts the
// config's segments and is never an actor; actor 0 is an actor like any other).
struct MountState {
  bool mounted = true;
  bool leaving = false;
  ClientId owner = kSetupClient;
  bool operator==(const MountState&) const = default;
};

class Model {
 public:
  // RFC 3028 C1: a config with default TTL > max TTL is refused, as Mooncake's
  // constructor throws std::invalid_argument. Returns the model or the reason.
  static std::variant<Model, std::string> create(const Config& config);

  // Applies one op at virtual time `now`. Never throws for bad input: an
  // unknown op, a bad field or time going backwards is an error Outcome with
  // nothing changed.
  Outcome apply(const Op& op, Time now);

  // Mooncake's second eviction pass (and its quota eviction) scans shards from
  // a random start, so which of several admissible objects it takes is not specified; the
  // model scans in key order. A runner following a target whose order is
  // unspecified (Target::eviction_order_unspecified) asks the model to scan
  // `first` before the others on the next evict: the result is still one
  // the rules allow, and the model then agrees with the target's choice.
  void scan_first_in_next_eviction(std::vector<ObjectId> first) { scan_first_ = std::move(first); }
  // A request's placement preference is fixed when it begins (a client's
  // ReplicateConfig), so under concurrency a start may carry an older picture
  // of free space than the state it is linearized at. A runner explaining
  // concurrent calls gives the next single start the preference it may have
  // had (a score per segment, higher first, as preference_order makes).
  void prefer_in_next_start(std::vector<uint64_t> score) { next_preference_ = std::move(score); }
  // Whether `op` may evict: an evict, or in multi-tenant mode a write whose
  // quota refusal evicts the tenant's own objects before it retries.
  bool may_evict(const Op& op) const {
    return op.kind == OpKind::Evict || (config_.multi_tenant && is_start(op.kind));
  }

  // An evict op as Mooncake's BatchEvict takes it, one shard lock at a time,
  // for explaining a history in which an eviction overlaps other calls
  // (sim/sched): begin (the op's outcome), a census step per object, pass 1
  // per object, the release, pass 2 per object. A step for an absent object,
  // or one the pass does not take, changes nothing.
  Outcome evict_begin(const Op& op, EvictionRun* run) const;
  void evict_census_step(EvictionRun& run, ObjectId id, Time now);
  void evict_collect_step(EvictionRun& run, ObjectId id, Time now);
  void evict_pass1_step(EvictionRun& run, ObjectId id, Time now);
  void evict_refill_step(EvictionRun& run, ObjectId id, Time now);
  void evict_release_step(EvictionRun& run, Time now);
  void evict_pass2_step(EvictionRun& run, ObjectId id, Time now);

  // RemoveAll and RemoveByRegex as Mooncake takes them, one shard lock at a
  // time, for explaining a history in which one overlaps other calls
  // (sim/sched): a step per object removes it when remove_all would at that
  // moment (whether it did); the call answers the count of those removed.
  bool remove_all_step(const Op& op, ObjectId id, Time now);

  // UnmountSegment as Mooncake takes it, for explaining a history in which
  // one overlaps other calls (sim/sched): the segment is prepared (it takes
  // no more replicas, as a leaving one), then the unmount op itself runs.
  void unmount_prepare_step(const Op& op);

  // A single start in multi-tenant mode as Mooncake's Put/UpsertStart takes
  // it, for explaining a history in which its quota evictions land between
  // other calls (sim/sched): an attempt (nothing changes when it is refused),
  // then, refused for quota, the eviction of its deficit, and so on; the
  // attempt that ends the run gives the call's outcome. A step of an ended
  // run changes nothing. with_quota_retries runs the steps back to back.
  // A `preference` given replaces the run's from this attempt on (an
  // explanation's choice, sim/sched); a refusal for quota does not depend on
  // it, since the quota is checked before placement.
  Outcome start_attempt(const Op& op, StartRun& run, Time now, const std::vector<uint64_t>& preference = {});
  void start_quota_evict(const Op& op, StartRun& run, Time now);
  // The objects of `tenant` a quota eviction at `now` may take, in key order
  // (active soft pins included: its second pass may take them), and how many
  // objects quota evictions have taken so far. A runner explaining concurrent
  // calls follows Mooncake's open scan order with them (sim/sched).
  std::vector<ObjectId> quota_eviction_candidates(TenantId tenant, Time now) const;
  uint64_t quota_evicted() const { return quota_evicted_; }

  View view(Time now) const;
  void view(Time now, View* out) const;  // reuses out's buffers (the explorer's per-transition View)
  // The segment of every replica, discarded ones included (placement.cpp).
  Placement placement() const;
  // One object's view (nullopt when absent); cheap, for incremental checks.
  std::optional<ObjectView> object_view(ObjectId id) const;

  // A canonical encoding of the whole state, times relative to `now`, for
  // the bounded explorer's visited set (canonical.cpp).
  std::string canonical_state(Time now) const;
  // How replica ids are written: ranked among every live id (the explorer's
  // visited set, with whose figures it was measured), or among the object's
  // own. Ids are only ever compared within one object (its Pending eligible
  // set), so states that differ in the order objects were written in behave
  // alike; the concurrent lane, whose orders of one round create replicas in
  // many orders, dedupes by the latter.
  enum class IdRanks { Global, PerObject };
  // How the writers' client ids are written: renamed in order of first
  // appearance (the explorer, whose workload treats actors alike), or kept
  // (the linearizability search, where each call left belongs to one client:
  // two states that differ in which client owns a write do not behave alike).
  enum class Actors { Renamed, Kept };
  // The read-hit counters (rule read.hit): left out (the explorer: they only
  // accumulate and no rule reads them, so states that differ in them alone
  // behave alike) or written (the linearizability search, whose final View
  // compares them: two orders with other counts are two states).
  enum class Counters { Left, Kept };
  void canonical_state(Time now, std::string* out, IdRanks ranks = IdRanks::Global, Actors actors = Actors::Renamed,
                       Counters counters = Counters::Left) const;  // reuses out's buffer

  const Config& config() const { return config_; }
  int64_t gauge() const { return gauge_; }
  const RuleHits& hits() const { return hits_; }
  // The objects whose write a discard of the reaper, or which a removal,
  // took while the log lags, awaiting its catch-up (rule log.window).
  std::vector<ObjectId> write_discards_awaiting_log() const;
  std::vector<ObjectId> copy_discards_awaiting_log() const;
  std::vector<ObjectId> removals_awaiting_log() const;
  bool mounted(uint32_t segment) const { return segment < segments_.size() && segments_[segment].mounted; }
  // The client that mounted `segment` (kSetupClient for the config's mounts, or out of range).
  ClientId segment_owner(uint32_t segment) const {
    return segment < segments_.size() ? segments_[segment].owner : kSetupClient;
  }
  const ObjectTable& objects() const { return objects_; }
  // Bytes allocated in `segment` (in range), replicas held after a discard included.
  uint64_t segment_used(uint32_t segment) const { return segment_used_[segment]; }
  // The source and target segments of each key's pending dynamic-replication
  // lease (granted, its copy not started yet), in key order.
  std::vector<uint32_t> pending_lease_segments() const;
  // The pending leases live at `now` whose target segment is leaving (a
  // graceful unmount under way), as (key, proposal id of the client's token
  // for it), in key order: a copy with that token meets its target leaving.
  std::vector<std::pair<ObjectId, uint32_t>> leases_to_leaving_targets(Time now) const;

 private:
  void put_counters(std::string& out) const;  // canonical_state's counters
  explicit Model(const Config& config);
  using GroupKey = std::pair<TenantId, GroupId>;

  struct Resolved {  // ResolveSoftPinRequest's result
    SoftPinAction action;
    uint64_t ttl_ms;
  };
  struct Discarded {
    Time release_at;
    Replicas replicas;
    uint64_t size;
  };
  // The log's window (log_window.cpp): what a logged removal took while the
  // log lags, held until it catches up. A whole object carries its soft pin
  // (still counted by the gauge) and whether the cached gauge counted it; a
  // part (an eviction's or a revoke's replicas) the charge it carried; the
  // reaper's logged discards, what joins the discard list at the catch-up.
  struct Retiring {
    ObjectId id;
    uint64_t size = 0;
    Replicas replicas;  // their memory stays allocated
    uint64_t charge = 0;
    std::optional<Time> deadline;
    bool cached = false;  // the cached-objects gauge still counts the object for these replicas
    bool closed = false;  // its key was written again: a later removal of the key retires another object
    std::vector<Discarded> discarding;  // the reaper's logged discards, one per durable callback
    bool removal = true;         // a removal took it (not only the reaper's discards)
    bool write_discard = false;  // a write's discard is among `discarding`
    bool copy_discard = false;   // a copy's discard (its targets) is among `discarding`
  };
  struct SnapshotImage {
    std::map<ObjectId, Object> objects;
    ReplicaId next_replica_id;
    std::vector<Discarded> discarded;  // serialised with the metadata, as Mooncake does
    std::vector<MountState> segments;  // the segments mounted then, leaving or not (SegmentSerializer)
  };

  Outcome dispatch(const Op& op, Time now);
  void init_quotas();
  void recompute_quotas();
  // write_path.cpp
  Outcome put_start(const Op& op, Time now) { return with_quota_retries(op, now); }
  Outcome upsert_start(const Op& op, Time now) { return with_quota_retries(op, now); }
  Outcome put_start_once(const Op& op, Time now);
  Outcome upsert_start_once(const Op& op, Time now);
  Outcome end(const Op& op, Time now);
  Outcome revoke(const Op& op, Time now);
  std::optional<ErrorCode> validate_start(const Op& op, Resolved* out);
  // Admission of a new object: quota, then placement, judged before the
  // request changes anything (failure atomicity). `released` is the charge
  // the replaced object gives back when the write goes ahead.
  std::optional<ErrorCode> admit(const Op& op, uint64_t released, Replicas* placed,
                                 uint32_t dfs_released = 0);
  std::optional<ErrorCode> validate_dfs(const Op& op);
  bool same_dfs_topology(const Op& op, const Object& obj);
  // DFS slots held: the DFS replicas of live objects (rule dfs.slot; a
  // discarded one freed its slot as it went).
  uint64_t dfs_slots_used() const;
  void count_partial(const Op& op, const Replicas& placed);
  void create_object(const Op& op, GroupId group, const Resolved& req, Replicas placed,
                     std::optional<Time> carried, Time now, bool hard_pinned);
  std::optional<ErrorCode> admit_replacement(const Op& op, const Object& obj, bool keeps_charge,
                                             Replicas* placed);
  void preempt(ObjectId id, Object& obj, Time now);
  void upsert_in_place(const Op& op, Object& obj, const Resolved& req, Time now);
  void commit_pending(ObjectId id, Object& obj, Time now);
  // read_path.cpp
  Outcome get(const Op& op, Time now);
  Outcome exist(const Op& op, Time now);
  Outcome remove(const Op& op, Time now);
  Outcome remove_all(const Op& op, Time now);
  bool remove_all_takes(const Op& op, ObjectId id, const Object& obj, Time now) const;
  void remove_one_of_all(const Op& op, ObjectTable::Entry* it);
  Outcome batch(const Op& op, Time now);  // model.cpp
  void grant_read_lease(ObjectId id, Object& obj, Time now);
  void count_hit(const Object& obj);
  // tenant_quota.cpp: multi-tenant mode (rules tenant.*)
  Outcome with_quota_retries(const Op& op, Time now);
  std::optional<ErrorCode> check_registered(TenantId tenant);
  std::optional<ErrorCode> charge_admits(TenantId tenant, uint64_t need, uint64_t released);
  uint64_t tenant_charge(TenantId tenant) const;
  std::vector<UsageView> tenant_usage() const;
  void settle_charge(Object& obj);
  uint64_t evict_for_quota(TenantId tenant, uint64_t target, bool allow_soft, Time now);
  Outcome set_quota(const Op& op);
  Outcome delete_quota(const Op& op);
  // eviction.cpp
  Outcome evict(const Op& op, Time now);
  void census_visit(EvictionRun& run, ObjectId id, Object& obj, Time now);
  void close_census(EvictionRun& run, Time now);
  void pass1_visit(EvictionRun& run, const EvictionRun::Candidate& c, Time now);
  std::optional<Time> frontier_candidate(ObjectId id, Time now);
  void close_collect(EvictionRun& run, Time now);
  bool refills(EvictionRun& run);
  void pass2_visit(EvictionRun& run, ObjectId id, Time now);
  bool normalise_if_expired(ObjectId id, Object& obj, Time now);
  bool processing_expired(const Object& obj, Time now) const;  // past put_start_release_timeout_ms
  bool processing_due(const Object& obj, Time now) const;
  void census(EvictionRun& run, Time now);
  void discard_expired_processing_of(ObjectId id, Time now);  // its write, then its copy
  void discard_expired_write_of(ObjectId id, Time now);
  bool copy_expired(const Object& obj, Time now) const;  // past put_start_release_timeout_ms (rule copy.expiry)
  uint64_t evict_memory(ObjectTable::Entry* it);
  struct Evicted {
    uint64_t objects = 0;
    uint64_t bytes = 0;  // size x memory replicas taken
  };
  Evicted try_evict(ObjectId id, bool allow_soft, Time now);
  bool evictable_candidate(ObjectId id, Object& obj, bool allow_soft, Time now);
  // expiry.cpp
  Outcome cleanup(Time now);
  // snapshot.cpp
  Outcome snapshot();
  Outcome restore(const Op& op, Time now);
  void restore_discarded(const SnapshotImage& image);
  void restore_segments(const std::vector<MountState>& segments);
  void restore_leaving();
  void reset_for_restore();
  // failover.cpp (rules failover.*)
  Outcome failover(Time now);
  void reinstate_committed(ObjectId id, const Object& saved, Time now);
  // segments.cpp
  Outcome unmount(const Op& op);
  Outcome mount(const Op& op);
  Outcome graceful_unmount(const Op& op);
  void unmount_segment(uint32_t segment);
  bool takes_replicas(uint32_t segment) const { return segments_[segment].mounted && !segments_[segment].leaving; }
  void drop_from_segment(ObjectTable::Entry* it, uint32_t segment);
  // replication.cpp (rules copy.*)
  Outcome copy_start(const Op& op, Time now);
  Outcome copy_end(const Op& op);
  Outcome copy_revoke(const Op& op);
  struct CopyRequest {  // what a copy op sends (replication.cpp, copy_request)
    ClientId client = 0;
    uint32_t source = 0;
    std::vector<uint32_t> targets;
    uint64_t grant = 0;  // its token's grant: 0 none (a plain copy), kNoGrant one no grant made
    Time epoch = 0;
    bool dynamic = false;
  };
  static constexpr uint64_t kNoGrant = UINT64_MAX;
  CopyRequest copy_request(const Op& op) const;
  const Replica* copy_source(const Object& obj, uint32_t segment) const;
  std::optional<ErrorCode> copy_refused(const CopyRequest& req, const Object& obj, const std::vector<uint32_t>& fresh,
                                        TenantId tenant);
  std::optional<ErrorCode> copy_targets_refused(const std::vector<uint32_t>& targets) const;
  std::variant<ObjectTable::Entry*, ErrorCode> copy_owned(const Op& op);
  void end_copy(ObjectTable::Entry* it, bool keep);
  void discard_expired_copy_of(ObjectId id, Time now);
  // dynamic_replication.cpp (rules dynrep.*)
  void observe_heat(ObjectId id, const Object& obj, Time now);
  bool hot(ObjectId id, Time now) const;
  Outcome propose(const Op& op, Time now);
  std::optional<ErrorCode> proposal_refused(ObjectId id, const Object& obj, Time now);
  std::optional<std::pair<uint32_t, uint32_t>> dynamic_plan(const Object& obj) const;
  std::optional<ErrorCode> dynamic_start_refused(const Op& op, const CopyRequest& req, const Object& obj, Time now);
  bool pending_live(ObjectId id, Time now) const;
  void clear_dynamic_state(ObjectId id);
  void note_replicas_gone(Object& obj, Replicas::const_iterator from);
  void canonical_dynamic(Time now, std::string& out) const;
  void canonical_hand(std::string& out) const;
  void canonical_retiring(Time now, std::string& out) const;
  void canonical_groups(Time now, std::string& out) const;
  // local_disk.cpp (rules local.*)
  void queue_offload(const Op& op, Object& obj, Time now);
  Outcome offload_take();
  Outcome offload_end(const Op& op);
  std::optional<ErrorCode> local_disk_refuses(const Object& obj);
  bool memory_at_watermark() const;
  void queue_promotion(Object& obj, Time now);
  Outcome promotion_start(const Op& op, Time now);
  Outcome promotion_end(const Op& op);
  void end_promotion(Object& obj);
  void discard_expired_local(Object& obj, Time now);
  bool offload_expired(const Object& obj, Time now) const;    // past the release timeout (rule local.expiry)
  bool promotion_expired(const Object& obj, Time now) const;
  // retention.cpp (PR 2835)
  Outcome retain_groups(const Op& op, Time now);
  void inherit_retention(ObjectId id, Object& obj, Time now);
  void prune_expired_retention(Time now);

  // Shared state changes: every deadline and object erase goes through these
  // so the gauge follows the transitions of RFC 3028 "Metrics" exactly.
  void set_deadline(ObjectId id, Object& obj, std::optional<Time> d);
  void erase_object(ObjectTable::Entry* it);
  std::optional<Replicas> plan_placement(const Op& op) const;
  void release_replica(const Replica& r, uint64_t size);
  void hold_replica(const Replica& r, uint64_t size);  // a disk replica holds no segment memory
  // Frees replicas [from, end) of `obj` at once (revoke, eviction).
  void free_replicas(ObjectId id, Object& obj, Replicas::iterator from);
  // Moves replicas [from, end) of `obj` out of the object into the discarded
  // list: their memory stays allocated until `release_at` and the next
  // eviction pass (Mooncake's discarded_replicas_).
  void discard_replicas(ObjectId id, Object& obj, Replicas::iterator from, Time release_at);
  // log_window.cpp: a logged removal of an object, or of replicas [from,
  // end) of one; retiring while the log lags (rule log.window).
  void remove_logged(ObjectTable::Entry* it);
  void remove_logged(ObjectId id, Object& obj, Replicas::iterator from, bool memory_gone = false);
  void retire(Retiring&& r);
  bool discard_logged(ObjectId id, Object& obj, Replicas::iterator from, Time release_at, bool write);
  void close_retiring(ObjectId id);
  void release_retiring_on(uint32_t segment);
  void hold_charge(ObjectId id, uint64_t size, uint64_t bytes, bool removal = true);
  void catch_up_log();  // rule log.catch-up
  void expire_retiring_pins(Time now);
  uint64_t retiring_charge(TenantId tenant) const;
  void retiring_view(View* v) const;
  uint64_t cached_with_retiring(const View& v) const;
  // ReleaseExpiredDiscardedReplicas: frees due entries; returns how many
  // held memory (eviction counts them against its second-pass quota).
  uint64_t release_discarded(Time now);

  // nullptr when absent; the pointer does not survive an insert or another erase.
  ObjectTable::Entry* find_object(ObjectId id) { return objects_.find(id); }
  const ObjectTable::Entry* find_object(ObjectId id) const { return objects_.find(id); }
  Object& insert_object(ObjectId id, Object&& obj) { return objects_.insert(id, std::move(obj)); }

  Config config_;
  ObjectTable objects_;
  std::vector<uint64_t> segment_used_;
  std::vector<MountState> segments_;  // per segment: mounted, leaving, owner (segments.cpp)
  std::vector<uint64_t> batch_preference_;  // during a batch start: a score per segment (higher first); else empty
  // Multi-tenant mode: the requested quota per tenant with a policy (the
  // config's, changed by set_quota and delete_quota; kept outside snapshots,
  // as Mooncake's policy store is), and the effective quotas derived from them.
  std::map<TenantId, uint64_t> requested_quota_;
  std::map<TenantId, uint64_t> effective_quota_;
  uint64_t quota_deficit_ = 0;                    // of the last refused charge
  int64_t gauge_ = 0;
  uint64_t memory_hit_bytes_ = 0, disk_hit_bytes_ = 0;  // rule read.hit; a restore keeps them
  uint64_t memory_hits_ = 0, disk_hits_ = 0;            // the same reads counted
  uint64_t reads_served_ = 0;  // successful reads (rule read.hit); a restore keeps it
  // Refusals (rules tenant.quota, alloc.no-handle, alloc.partial); a restore keeps them.
  uint64_t quota_rejections_ = 0, placement_failures_ = 0, partial_placements_ = 0;
  uint64_t quota_evicted_ = 0;  // objects quota evictions took (no part of the state: quota_evicted)
  // Stored deadlines in time order: lets cleanup visit only due objects
  // (derived from objects_, kept in step by set_deadline alone).
  std::set<std::pair<Time, ObjectId>> deadlines_;
  ReplicaId next_replica_id_ = 1;
  std::map<GroupKey, std::set<KeyId>> group_members_;
  std::set<GroupKey> groups_needing_refresh_;
  std::map<GroupKey, Time> retention_;  // PR 2835 retention deadlines
  uint64_t retained_group_count_ = 0;   // PR 2835 admission counter
  std::vector<Discarded> discarded_;
  std::vector<Retiring> retiring_;
  // Dynamic replication (dynamic_replication.cpp). A lease as granted: the
  // client keeps every one (its token), the master its live ones by tenant
  // and proposal id, and a key's pending one until its copy starts.
  struct Heat {
    Time start = 0;
    uint32_t hits = 0;
  };
  struct Lease {
    ObjectId object{};
    uint64_t grant = 0;  // the token's id, unique per grant
    uint32_t source = 0, target = 0;
    Time epoch = 0;   // the object version it names (its write's start)
    Time expire = 0;  // live while now <= expire
  };
  using ProposalKey = std::pair<TenantId, uint32_t>;
  std::map<ObjectId, Heat> heat_;            // by key name; survives the object
  std::map<ProposalKey, Lease> leases_;      // the master's
  std::map<ProposalKey, Lease> granted_;     // the client's memory of its tokens
  std::map<ObjectId, Lease> dyn_pending_;    // until the copy starts
  std::map<ObjectId, Time> dyn_cooldown_;    // no proposal before this
  uint64_t next_grant_ = 1;
  std::set<ObjectId> batch_seen_;            // keys a batch_get has counted already
  // The local-disk tier's holder: the offloads it took and has not reported,
  // by key (an offload's id), and the next offload's id (rules local.*).
  std::map<ObjectId, uint64_t> hand_;
  uint64_t next_offload_ = 1;
  // Images never change once taken, so copies of the model share them.
  std::vector<std::shared_ptr<const SnapshotImage>> snapshots_;
  std::vector<ObjectId> scan_first_;  // the next eviction's second pass visits these first
  std::vector<uint64_t> next_preference_;  // the next single start's placement preference, when a runner sets one
  Time last_now_ = 0;
  RuleHits hits_;
};

}  // namespace pinsim
