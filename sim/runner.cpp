// Lockstep execution and comparison; see runner.h.
#include "runner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <memory>
#include <tuple>
#include <utility>
#include <variant>

#include "exception_type.h"
#include "json_codec.h"

namespace pinsim {

namespace {

Model build_model(const Config& config) {
  auto created = Model::create(config);
  if (auto* reason = std::get_if<std::string>(&created)) throw std::invalid_argument(*reason);
  return std::get<Model>(std::move(created));
}

std::string opt(const std::optional<Time>& t) { return t ? std::to_string(*t) : "none"; }

// "t0 128, t1 64" (or "none"): a View's tenant charges, for a report.
std::string usage_text(const std::vector<UsageView>& usage) {
  std::string out;
  for (const UsageView& u : usage)
    out += (out.empty() ? "t" : ", t") + std::to_string(u.tenant) + " " + std::to_string(u.bytes);
  return out.empty() ? "none" : out;
}

}  // namespace

Lockstep::Lockstep(const Config& config, Target& target, Checks checks)
    : model_(build_model(config)), target_(&target), config_(config), checks_(std::move(checks)),
      model_views_{model_.view(0), View{}}, target_views_{target_->view(0), View{}},
      views_equal_(model_views_[0] == target_views_[0]) {}

Lockstep::Lockstep(const Lockstep& other, Target& target) : Lockstep(other) { target_ = &target; }

// A property whose needs `decided` covers is counted and not evaluated: the
// caller has evaluated it already on equal inputs (step(): the model's side
// when its outcome and Views equal the target's field for field; a check is a
// pure function of its StepContext).
std::optional<Failure> Lockstep::check_properties(const Op& op, const Outcome& outcome, const View& before,
                                                  const View& after, Capabilities caps, const char* side,
                                                  Capabilities decided) {
  const StepContext ctx{config_, op, now_, outcome, before, after};
  for (const StepCheck* p : checks_.properties) {
    const Capabilities needs = p->needs();
    if ((needs & caps) != needs) continue;
    ++comparisons_;
    if ((needs & decided) == needs) continue;
    if (auto why = p->check(ctx))
      return Failure{index_ - 1, "property", std::string(p->id()) + " (" + std::string(p->rule()) + ") on the " + side + ": " + *why,
                     "", encode_view(after).dump(), std::string(p->id()), false, {}, "",
                     side == std::string_view("target") ? std::string(target_->name()) : "model"};
  }
  return std::nullopt;
}

View masked(View v, Capabilities caps) {
  if (!(caps & kCapObjects)) v.objects.clear(), v.retiring.clear();
  for (ObjectView& o : v.retiring)
    if (!(caps & kCapDeadline)) o.deadline.reset();
  for (ObjectView& o : v.objects) {
    if (!(caps & kCapDeadline)) o.deadline.reset();
    if (!(caps & kCapPending)) o.pending.reset();
    if (!(caps & kCapLease)) o.lease = 0;
  }
  if (!(caps & kCapObjects)) v.shared_disk_files = 0, v.dfs_slots_used = 0;
  if (!(caps & kCapGauge)) v.gauge = 0;
  if (!(caps & kCapRetention)) {
    v.retention.clear();
    v.retained_group_count = 0;
    v.retention_entries = 0;
  }
  if (!(caps & kCapUsage)) {
    v.usage.clear();
    v.quotas.clear();
  }
  if (!(caps & kCapSegments)) {
    v.memory_used.clear(), v.mounted.clear(), v.allocated = 0, v.capacity = 0;
    v.segment_allocated.clear(), v.segment_capacity.clear();
  }
  if (!(caps & kCapCached)) v.cached = 0;
  if (!(caps & kCapHits))
    v.memory_hit_bytes = 0, v.disk_hit_bytes = 0, v.memory_hits = 0, v.disk_hits = 0, v.reads_served = 0;
  if (!(caps & kCapRefusals)) v.quota_rejections = 0, v.placement_failures = 0, v.partial_placements = 0;
  return v;
}

bool same_masked(const View& a, const View& b, Capabilities caps) {
  if ((caps & kCapAll) == kCapAll) return a == b;  // masked() keeps everything
  return masked(a, caps) == masked(b, caps);
}

namespace {
// "a, b, c": a difference's counters, in the order its text names them.
std::string counters(std::initializer_list<uint64_t> values) {
  std::string out;
  for (uint64_t v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}
}  // namespace

// "t0/k1 (2 memory, pinned)" for each retiring object of `v`, or "none".
static std::string retiring_text(const View& v) {
  std::string out;
  for (const ObjectView& o : v.retiring)
    out += (out.empty() ? "" : ", ") + std::string("t") + std::to_string(o.id.tenant) + "/k" + std::to_string(o.id.key) +
           " (" + std::to_string(o.complete_memory) + " memory" + (o.deadline ? ", pinned)" : ")");
  return out.empty() ? "none" : out;
}

// The first object that differs (missing, unexpected, or one of its fields); empty when none does.
// An object the target has and the expected View has not is `objects_extra`
// (a finding that brings objects back must not name a loss); one it lacks is `objects`.
static Difference object_difference(const View& e, const View& a) {
  const size_t n = std::max(e.objects.size(), a.objects.size());
  for (size_t i = 0; i < n; ++i) {
    const bool extra = i >= e.objects.size() || (i < a.objects.size() && a.objects[i].id < e.objects[i].id);
    if (extra) {
      const ObjectId id = a.objects[i].id;
      return {"objects_extra", "unexpected object t" + std::to_string(id.tenant) + "/k" + std::to_string(id.key)};
    }
    if (i >= a.objects.size() || a.objects[i].id != e.objects[i].id)
      return {"objects", "missing object t" + std::to_string(e.objects[i].id.tenant) + "/k" + std::to_string(e.objects[i].id.key)};
    const ObjectView& x = e.objects[i];
    const ObjectView& y = a.objects[i];
    const std::string who = "object t" + std::to_string(x.id.tenant) + "/k" + std::to_string(x.id.key) + ": ";
    if (x.deadline != y.deadline) return {"deadline", who + "deadline expected " + opt(x.deadline) + ", got " + opt(y.deadline)};
    if (x.pending != y.pending) return {"pending", who + "pending differs"};
    if (x.lease != y.lease) return {"lease", who + "lease expected " + std::to_string(x.lease) + ", got " + std::to_string(y.lease)};
    if (x.hard_pinned != y.hard_pinned)
      return {"hard_pinned", who + "hard pin expected " + (x.hard_pinned ? "set" : "unset") + ", got " +
                                 (y.hard_pinned ? "set" : "unset")};
    if (x.copying != y.copying)
      return {"copying", who + "copy expected " + (x.copying ? "under way" : "absent") + ", got " +
                             (y.copying ? "under way" : "absent")};
    const auto complete = [](const ObjectView& o) {
      return std::tie(o.complete_memory, o.complete_nof, o.complete_disk, o.complete_dfs, o.complete_local);
    };
    const auto text = [](const ObjectView& o) {
      return std::to_string(o.complete_memory) + "/" + std::to_string(o.complete_nof) + "/" +
             std::to_string(o.complete_disk) + "/" + std::to_string(o.complete_dfs) + "/" +
             std::to_string(o.complete_local);
    };
    if (complete(x) != complete(y))
      return {"complete", who + "COMPLETE replicas (memory/nof/disk/dfs/local disk) expected " + text(x) + ", got " +
                              text(y)};
    if (x.offloading != y.offloading || x.promoting != y.promoting)
      return {"local_disk", who + "offload/promotion expected " + std::to_string(x.offloading) + "/" +
                                std::to_string(x.promoting) + ", got " + std::to_string(y.offloading) + "/" +
                                std::to_string(y.promoting)};
    if (x.processing != y.processing)
      return {"processing", who + "PROCESSING replicas expected " + std::to_string(x.processing) + ", got " +
                                std::to_string(y.processing)};
    if (x != y) return {"replicas", who + "size or group differ"};
  }
  return {};
}

Difference describe_difference(const View& e, const View& a) {
  if (e.gauge != a.gauge) return {"gauge", "gauge: expected " + std::to_string(e.gauge) + ", got " + std::to_string(a.gauge)};
  if (e.retained_group_count != a.retained_group_count)
    return {"retained_group_count", "retained_group_count: expected " + std::to_string(e.retained_group_count) +
                                        ", got " + std::to_string(a.retained_group_count)};
  if (e.retention != a.retention) return {"retention", "retention table differs"};
  if (e.retention_entries != a.retention_entries) return {"retention_entries", "retention_entries differs"};
  if (Difference d = object_difference(e, a); !d.field.empty()) return d;
  if (e.retiring != a.retiring)
    return {"retiring", "objects a logged removal took, not yet finalised (retiring): " + retiring_text(e) +
                            " expected, got " + retiring_text(a)};
  if (e.shared_disk_files != a.shared_disk_files)
    return {"disk_files", "disk replicas naming a file another object's also names: expected " +
                              std::to_string(e.shared_disk_files) + ", got " + std::to_string(a.shared_disk_files)};
  if (e.dfs_slots_used != a.dfs_slots_used)
    return {"dfs_slots", "DFS slots held (the DFS allocator's records) expected " + std::to_string(e.dfs_slots_used) +
                             ", got " + std::to_string(a.dfs_slots_used)};
  // Charges and allocations last: a missing or extra object is the cause, not its bytes.
  if (e.usage != a.usage)
    return {"usage", "tenant usage differs: " + usage_text(e.usage) + " expected, got " + usage_text(a.usage)};
  if (e.quotas != a.quotas)
    return {"quotas", "effective quotas differ: " + usage_text(e.quotas) + " expected, got " + usage_text(a.quotas)};
  static constexpr const char* kStates[] = {"unmounted", "mounted", "leaving"};
  auto state = [](uint8_t m) { return std::string(m <= kLeaving ? kStates[m] : "?"); };
  for (size_t s = 0; s < std::min(e.mounted.size(), a.mounted.size()); ++s)
    if (e.mounted[s] != a.mounted[s])
      return {"mounted", "memory segment " + std::to_string(s) + ": expected " + state(e.mounted[s]) + ", got " +
                             state(a.mounted[s])};
  for (size_t s = 0; s < std::min(e.memory_used.size(), a.memory_used.size()); ++s)
    if (e.memory_used[s] != a.memory_used[s])
      return {"segments", "memory segment " + std::to_string(s) + ": expected " + std::to_string(e.memory_used[s]) +
                              " bytes allocated, got " + std::to_string(a.memory_used[s])};
  if (e.allocated != a.allocated)
    return {"allocated", "allocated-memory metric: expected " + std::to_string(e.allocated) + " bytes, got " +
                            std::to_string(a.allocated)};
  if (e.capacity != a.capacity)
    return {"capacity", "memory-capacity metric: expected " + std::to_string(e.capacity) +
                            " bytes of mounted memory segments, got " + std::to_string(a.capacity)};
  for (size_t s = 0; s < std::min(e.segment_allocated.size(), a.segment_allocated.size()); ++s)
    if (e.segment_allocated[s] != a.segment_allocated[s])
      return {"segment_metrics", "memory segment " + std::to_string(s) + ": allocated-memory metric expected " +
                                     std::to_string(e.segment_allocated[s]) + " bytes, got " +
                                     std::to_string(a.segment_allocated[s])};
  for (size_t s = 0; s < std::min(e.segment_capacity.size(), a.segment_capacity.size()); ++s)
    if (e.segment_capacity[s] != a.segment_capacity[s])
      return {"segment_metrics", "memory segment " + std::to_string(s) + ": memory-capacity metric expected " +
                                     std::to_string(e.segment_capacity[s]) + " bytes, got " +
                                     std::to_string(a.segment_capacity[s])};
  if (e.cached != a.cached)
    return {"cached",
            "cached-objects gauge: expected " + std::to_string(static_cast<int64_t>(e.cached)) + ", got " +
                std::to_string(static_cast<int64_t>(a.cached))};
  if (e.memory_hit_bytes != a.memory_hit_bytes || e.disk_hit_bytes != a.disk_hit_bytes)
    return {"hits", "read-hit bytes (memory, disk): expected " + counters({e.memory_hit_bytes, e.disk_hit_bytes}) +
                        ", got " + counters({a.memory_hit_bytes, a.disk_hit_bytes})};
  if (e.memory_hits != a.memory_hits || e.disk_hits != a.disk_hits)
    return {"hits", "read hits (memory, disk): expected " + counters({e.memory_hits, e.disk_hits}) + ", got " +
                        counters({a.memory_hits, a.disk_hits})};
  if (e.reads_served != a.reads_served)
    return {"reads", "reads served: expected " + std::to_string(e.reads_served) + ", got " +
                         std::to_string(a.reads_served)};
  if (e.quota_rejections != a.quota_rejections || e.placement_failures != a.placement_failures ||
      e.partial_placements != a.partial_placements)
    return {"refusals", "quota rejections, placement failures, partial placements: expected " +
                            counters({e.quota_rejections, e.placement_failures, e.partial_placements}) + ", got " +
                            counters({a.quota_rejections, a.placement_failures, a.partial_placements})};
  return {};
}

namespace {

// Calls f(model value, target value, its offset) for each value a row
// covers: a gauge's one, or each segment's of its two metrics (the offsets
// sized to the segments both Views have; a new one is 0).
template <typename F>
void for_each_offset(const OffsetField& row, const View& vm, View* vt, std::vector<int64_t> (&offsets)[2], F f) {
  if (row.gauge) {
    offsets[0].resize(1);
    auto target = static_cast<int64_t>((*vt).*row.gauge);
    f(static_cast<int64_t>(vm.*row.gauge), target, offsets[0][0]);
    (*vt).*row.gauge = static_cast<uint64_t>(target);
    return;
  }
  for (size_t m = 0; m < 2; ++m) {
    const std::vector<int64_t>& model = vm.*row.metrics[m];
    std::vector<int64_t>& target = (*vt).*row.metrics[m];
    offsets[m].resize(std::min(model.size(), target.size()));
    for (size_t s = 0; s < offsets[m].size(); ++s) f(model[s], target[s], offsets[m][s]);
  }
}

// Takes the standing offsets off the target's metrics in `vt`. A value
// equal to the model's has its offset cleared (a restore that resets the
// labels ends the offset there), and a row that heals takes a smaller offset
// of the same sign as its new one. Whether any stand still.
bool take_off_offsets(const View& vm, View* vt, Offsets* offsets) {
  bool standing = false;
  for (size_t r = 0; r < std::size(kOffsetFields); ++r) {
    const bool heals = kOffsetFields[r].heals;
    for_each_offset(kOffsetFields[r], vm, vt, offsets->values[r], [&](int64_t model, int64_t& target, int64_t& offset) {
      const int64_t now = target - model;
      const bool shrunk = heals && (offset < 0 ? now <= 0 && now >= offset : now >= 0 && now <= offset);
      if (now == 0 || shrunk) offset = now, target = model;
      else target -= offset;
      standing |= offset != 0;
    });
  }
  return standing;
}

// The two Views as a comparison sees them: masked by `caps`, the standing
// offsets taken off the target's (updating `offsets`). Whether any stand still.
bool comparable(const View& vm, const View& vt, Capabilities caps, Offsets* offsets, View* mm, View* mt) {
  *mm = masked(vm, caps);
  *mt = masked(vt, caps);
  return take_off_offsets(*mm, mt, offsets);
}

}  // namespace

// The target evicted other objects than the model's key-order scan (in an
// evict, or in a write's quota eviction): replay the op on the model with the
// objects the target took scanned first, in each order of them (up to 5: an
// eviction that stops once it has freed enough keeps a later object only in
// some orders).
// If one gives the target's outcome and View, the target's choice was
// admissible and the model adopts it; otherwise the comparisons below report
// the difference. The outcome too: which objects a write's quota eviction
// takes decides whether its retry finds room.
void Lockstep::follow_eviction_choice(const Op& op, const Model& before, Outcome* om, View* vm, const Outcome& ot,
                                      const View& vt) {
  const Capabilities caps = target_->capabilities();
  // Equal as compare_views will find them: the standing offsets taken off a
  // copy (the step's comparison takes them off for good).
  auto agrees = [&](const View& model_view) {
    if (!offsets_standing_) return same_masked(model_view, vt, caps);
    View mm, mt;
    Offsets scratch = offsets_;
    comparable(model_view, vt, caps, &scratch, &mm, &mt);
    return mm == mt;
  };
  if (*om == ot && agrees(*vm)) return;
  std::vector<ObjectId> taken;  // objects that lost memory replicas on the target
  for (const ObjectView& o : model_views_[after_].objects) {
    const ObjectView* t = find_object(vt, o.id);
    if (t == nullptr || t->complete_memory < o.complete_memory) taken.push_back(o.id);
  }
  std::sort(taken.begin(), taken.end());
  do {
    Model alt_model = before;
    alt_model.scan_first_in_next_eviction(taken);
    const Outcome alt = alt_model.apply(op, now_);
    View alt_view = alt_model.view(now_);
    if (alt != ot || !agrees(alt_view)) continue;
    model_ = std::move(alt_model);
    *om = alt;
    *vm = std::move(alt_view);
    return;
  } while (taken.size() <= 5 && std::next_permutation(taken.begin(), taken.end()));
}

std::optional<Failure> Lockstep::check_outcome_expectation(const Outcome& expect, const Outcome& got,
                                                           std::string_view side) {
  ++comparisons_;
  if (expect == got) return std::nullopt;
  return Failure{index_ - 1, "expect", "the " + std::string(side) + "'s outcome differs from the trace's expectation",
                 encode_outcome(expect).dump(), encode_outcome(got).dump(), std::string(to_string(got.code)),
                 side == "model", diff_outcomes(expect, got), "trace", std::string(side)};
}

std::optional<Failure> Lockstep::check_state_expectation(const StateExpectation& e, const View& view,
                                                         Capabilities caps, std::string_view side) {
  ++comparisons_;
  auto m = mismatch(e, view, caps, &unchecked_);
  if (!m) return std::nullopt;
  return Failure{index_ - 1, "expect", "the " + std::string(side) + "'s state differs from the trace's expectation: " + m->detail,
                 encode_state_expectation(e).dump(), encode_view(view).dump(), "state." + m->field, side == "model",
                 {{m->object, m->field, m->expected, m->actual}}, "trace", std::string(side)};
}

// A target's op that throws: MasterService's calls answer with an error
// code, so an exception out of one is a failure of its own, named by the
// exception's type (a mutant of its quota check made set_quota throw
// std::invalid_argument). The run ends there; the target is not looked at.
Failure Lockstep::thrown(size_t index, const Outcome& om, const std::exception& e) const {
  const std::string type = exception_type(e);
  return Failure{index, "exception", std::string(target_->name()) + " threw " + type + " out of the op: " + e.what(),
                 encode_outcome(om).dump(), nlohmann::json(std::string(e.what())).dump(), type, false, {}, "model",
                 std::string(target_->name())};
}

const OffsetField* offset_field(std::string_view field) {
  for (const OffsetField& row : kOffsetFields)
    if (row.field == field) return &row;
  return nullptr;
}

// The Views differ, or offsets stand: a failure unless the offsets account
// for the difference, or it is a known offset finding the run goes on past
// (the offsets of its field then grow by what differs, and the rest must agree).
std::optional<Failure> Lockstep::compare_views(size_t index, const View& vm, const View& vt, Trace* record) {
  const Capabilities caps = target_->capabilities();
  View mm, mt;
  offsets_standing_ = comparable(vm, vt, caps, &offsets_, &mm, &mt);
  if (mm == mt) return std::nullopt;
  const auto failure = [&] {
    const Difference d = describe_difference(mm, mt);
    const std::string after = went_on_.empty() ? "" : " (the run went on past " + went_on_.back().finding +
                                                          " at step " + std::to_string(went_on_.back().step) + ")";
    return Failure{index, "view", d.detail + after, encode_view(mm).dump(), encode_view(mt).dump(), d.field, false,
                   diff_views(mm, mt), "model", std::string(target_->name())};
  };
  const Failure f = failure();
  const OffsetField* row = offset_field(f.field);
  if (!checks_.goes_on || !record || !row) return f;
  std::optional<WentOnPast> known = checks_.goes_on(f, *record, target_->variant());
  if (!known) return f;
  known->step = index;
  went_on_.push_back(std::move(*known));
  auto grow = [](int64_t model, int64_t& target, int64_t& offset) {
    offset += target - model;
    target = model;
  };
  for_each_offset(*row, mm, &mt, offsets_.values[row - kOffsetFields], grow);
  offsets_standing_ = true;
  if (mm == mt) return std::nullopt;
  return failure();  // another field differs as well
}

std::optional<Failure> Lockstep::step(const Op& op, const std::optional<Outcome>& expect, Trace* record,
                                      const StateExpectation* expect_state) {
  const size_t index = index_++;
  now_ = time_after(now_, op);
  // An eviction whose scan order the target leaves open: keep the model as
  // it was, so that it can follow the target's choice below.
  // On the heap: an empty std::optional<Model> would zero its storage every step.
  std::unique_ptr<Model> before_evict;
  if (model_.may_evict(op) && target_->eviction_order_unspecified() && checks_.compare_with_model)
    before_evict = std::make_unique<Model>(model_);
  Outcome om = model_.apply(op, now_);
  Outcome ot;
  try {
    ot = target_->apply(op, now_);
  } catch (const std::exception& e) {
    if (record) record->steps.push_back({now_, op, om});
    return thrown(index, om, e);
  }
  const uint8_t next = after_ ^ 1;
  model_.view(now_, &model_views_[next]);
  View& vm = model_views_[next];
  target_->view_into(now_, &target_views_[next]);
  View& vt = target_views_[next];
  if (before_evict) follow_eviction_choice(op, *before_evict, &om, &vm, ot, vt);
  if (record) record->steps.push_back({now_, op, om});
  ++comparisons_;
  if (expect) {
    if (auto f = check_outcome_expectation(*expect, om, "model")) return f;
    if (auto f = check_outcome_expectation(*expect, ot, target_->name())) return f;
  }
  if (checks_.compare_with_model && om != ot)
    return Failure{index, "outcome", std::string(target_->name()) + " returned a different outcome",
                   encode_outcome(om).dump(), encode_outcome(ot).dump(), std::string(to_string(ot.code)), false,
                   diff_outcomes(om, ot), "model", std::string(target_->name())};
  if (expect_state) {
    if (auto f = check_state_expectation(*expect_state, vm, kCapAll, "model")) return f;
    if (auto f = check_state_expectation(*expect_state, vt, target_->capabilities(), target_->name())) return f;
  }
  const Capabilities caps = target_->capabilities();
  const bool views_equal = vm == vt;
  if (!checks_.properties.empty()) {
    auto failure = check_properties(op, ot, target_views_[after_], vt, caps, "target");
    // The model's side of a property the target's side ran is decided when both sides saw the same step.
    const bool same_step = views_equal_ && views_equal && om == ot;
    if (!failure) failure = check_properties(op, om, model_views_[after_], vm, kCapAll, "model", same_step ? caps : 0);
    if (failure) return failure;
  }
  if (checks_.compare_with_model) {
    ++comparisons_;
    // While offsets stand, every step: they are taken off, or cleared where the two agree again.
    if (offsets_standing_ || (!views_equal && !same_masked(vm, vt, caps)))
      if (auto f = compare_views(index, vm, vt, record)) return f;
  }
  views_equal_ = views_equal;
  after_ = next;  // the Views before this step lend their buffers to the next one's
  return std::nullopt;
}

}  // namespace pinsim
