// The workload: actors and tenants issuing ops over a small universe of keys,
// sizes, replica kinds and groups, with configurable op weights. Every
// decision goes through Choices, so the same generator serves random
// campaigns and (later) the exhaustive explorer. Swarm mode draws the op mix
// and the master configuration per seed, as TigerBeetle's VOPR does.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "choices.h"
#include "config.h"
#include "model.h"
#include "op.h"

namespace pinsim {

// Weights from a list of op kinds separated by commas (`pinsim explore
// --ops`, the explorer's ladder): 1 for each kind named, 0 for the rest;
// nullopt, with the first name that is no op kind in `*unknown`, otherwise.
std::optional<std::array<uint32_t, kOpKindCount>> op_weights(std::string_view list, std::string* unknown);

constexpr std::array<uint32_t, kOpKindCount> default_weights() {
  std::array<uint32_t, kOpKindCount> w{};
  for (const OpInfo& op : kOpTable) w[static_cast<size_t>(op.kind)] = op.weight;
  return w;
}

struct WorkloadConfig {
  uint32_t actors = 3;
  uint32_t tenants = 2;
  uint32_t keys = 6;
  uint32_t groups = 3;
  std::array<uint32_t, kOpKindCount> weights = default_weights();  // the op table's
  std::vector<uint64_t> sizes{32, 64};
  std::vector<uint64_t> soft_pin_ttls{0, 500, 5'000, 60'000};
  std::vector<uint64_t> retention_ttls{500, 5'000, 60'000};
  uint32_t invalid_request_pct = 4;  // requests that break a request rule
  // Parameter domains. The defaults are the campaigns'; the explorer narrows
  // them (flags of `pinsim explore`) to keep its fan-out small.
  uint32_t max_memory_replicas = 2;  // *_start asks for 0..max memory replicas
  uint32_t max_nof_replicas = 1;     // and 0..max NoF replicas (at least one in all)
  uint32_t regroup_pct = 5;          // a write naming another group than its key's
  uint32_t max_retain_groups = 3;    // RetainGroups names 0..max groups
  uint32_t invalid_retain_pct = 5;   // group 0 or a TTL out of range in RetainGroups
  uint32_t aim_pct = 40;             // advances aimed at an upcoming deadline or lease end
  uint32_t hard_pin_pct = 8;         // writes asking for a hard pin
  uint32_t checksums = 3;            // an End declares one of 1..checksums as its checksum, or none
  uint32_t group_shape_pct = 6;      // writes sending group_ids in another shape (explicit, empty, two ids)
  std::vector<uint64_t> advance_steps{1, 10, 250, 1'000, 5'000, 30'000, 600'001};
  std::vector<uint32_t> evict_target_pcts{5, 25, 50, 100};
};

// `w` with every op of the table drawable: those off by default (weight 0)
// at weight 1. The explorer's universe holds every op.
inline WorkloadConfig with_every_op(WorkloadConfig w) {
  for (uint32_t& weight : w.weights) weight = std::max<uint32_t>(weight, 1);
  return w;
}

// Draws a swarm configuration: op mix, universe size and master config.
void draw_swarm(Choices& choices, WorkloadConfig* workload, Config* config);
// A swarm's segment churn (unmount, mount): a segment leaving takes every
// replica on it, so it is drawn rarely: half the seeds never unmount, the
// others at weight 1, with mounts at 1-3 times that. `side` is a stream of
// the seed's own apart from the one its ops are drawn from (draw_seed), so
// the seeds without churn draw what they drew before unmount existed (the
// fixed seeds of tests and of the concurrency lane's hunts among them).
void draw_segment_churn(Choices& side, WorkloadConfig* workload);
// A swarm's copies (copy_start, copy_end, copy_revoke; rules copy.*): on in
// half the seeds, drawn from the same side stream after the churn and disk
// mode, so those draws and the seeds without copies are as they were.
void draw_copies(Choices& side, WorkloadConfig* workload);
// A swarm's dynamic replication (rules dynrep.*): one seed in five of those
// with two memory segments (where the rules fix a lease's target), with
// proposals; drawn last from the side stream, so other seeds are as before.
void draw_dynamic_replication(Choices& side, WorkloadConfig* workload, Config* config);
// The local-disk tier: drawn last, and only where it is not combined with
// another mechanism yet; set_local_disk switches it on at a weight per op.
void draw_local_disk(Choices& side, WorkloadConfig* workload, Config* config);
void set_local_disk(WorkloadConfig* workload, Config* config, uint32_t weight);
inline constexpr OpKind kLocalDiskOps[] = {OpKind::OffloadTake, OpKind::OffloadEnd, OpKind::PromotionStart,
                                           OpKind::PromotionEnd};
// Multi-tenant mode with a quota policy for most of `tenants` tenants.
void draw_tenants(Choices& choices, uint32_t tenants, Config* config);

class Workload {
 public:
  Workload(WorkloadConfig config, const Config& master) : w_(std::move(config)), master_(master) {}
  // The next op. `model` is read (never changed) to aim End/Revoke at the
  // writer of a key and advances at upcoming deadlines.
  Op next(Choices& choices, const Model& model, Time now) const;
  // Everything next() reads from the model, as words: the marks advances aim
  // at, relative to now and in the order advance() draws them, then each
  // key's writer (0: no object) and, when Ends declare checksums, each key's
  // first replica and the time (end_or_revoke), and when copies are drawn each key's copy
  // owner and source segments (copy_input), and when unmounts are drawn the segments
  // copies under way read or write or pending leases name (copy_segments), each segment's
  // owner and the targets of pending leases an actor mounted (segment_op), and
  // under dynamic replication with copies drawn the live leases whose target is
  // leaving (copy_token). States with
  // equal inputs generate the same ops, so the explorer lists them once per input
  // (sim/op_universe.h).
  // A change to what next() reads must change this too.
  void generator_input(const Model& model, Time now, std::vector<uint64_t>* out) const;

 private:
  Op start(Choices& c, OpKind kind) const;
  bool no_replica_request(const Op& op) const;
  bool dfs_without_dfs(const Op& op) const;
  Op advance(Choices& c, const Model& model, Time now) const;
  std::vector<KeyId> batch_keys(Choices& c) const;
  uint32_t proposal_id(Choices& c, const Op& op) const;
  void copy_token(Choices& c, const Model& model, Time now, Op* op) const;
  Op segment_op(Choices& c, const Model& model, OpKind kind) const;
  static std::vector<uint32_t> copy_segments(const Model& model);
  static std::vector<uint32_t> actor_lease_targets(const Model& model);
  bool draws_unmounts() const {
    const auto weight = [&](OpKind k) { return w_.weights[static_cast<size_t>(k)]; };
    return weight(OpKind::Unmount) + weight(OpKind::GracefulUnmount) > 0;
  }
  void copy_op(Choices& c, const Model& model, Op* op) const;
  const Object* retarget(Choices& c, const Model& model, Op* op, bool (*wanted)(const Object&)) const;
  static void copy_input(const Object* obj, std::vector<uint64_t>* out);
  static std::vector<uint32_t> copy_sources(const Object* obj);
  bool draws_copies() const { return w_.weights[static_cast<size_t>(OpKind::CopyStart)] > 0; }
  void end_or_revoke(Choices& c, const Model& model, Time now, Op* op) const;
  ReplicaSelector selector(Choices& c) const;
  // The upcoming deadlines, lease ends and release timeouts (of writes in
  // flight and tasks) advances aim at.
  static std::vector<Time> aim_marks(const Model& model, Time now);
  WorkloadConfig w_;
  Config master_;
};

}  // namespace pinsim
