// The conditions a lane history met, which a known finding may name in
// `when` (known_findings.h): read off the history and the model, never off
// the target's insides, so that two defects with one signature are told
// apart by what a run shows. See lane_conditions in concurrency_lane.h.
#include <algorithm>
#include <functional>

#include "concurrency_lane.h"
#include "model.h"

namespace pinsim::mooncake_lane {

namespace {

// The three states a call may have begun from: after the calls that
// returned before it began (0), that began before it began (1), or that
// returned before it returned (2), applied in the order they began. `skip`
// is left out too (a start read at the prefixes of a call it overlaps).
constexpr int kPrefixes = 3;
Model model_before(const Model& start, const sched::History& history, const sched::Call& call, int prefix, Time now,
                   const sched::Call* skip = nullptr) {
  Model m = start;
  for (const sched::Call& before : history.calls) {
    const uint64_t at = prefix == 1 ? before.invoked : before.returned;
    if (&before != &call && &before != skip && at < (prefix == 2 ? call.returned : call.invoked))
      m.apply(before.op, now);
  }
  return m;
}

// The state after the calls that returned before `call` returned, applied
// in the order they returned: the last state the call may have seen, when
// a call it overlaps changed what an earlier one found (an ExistKey's lease
// taken before an eviction that began first: lane seed 667).
Model model_before_return(const Model& start, const sched::History& history, const sched::Call& call, Time now) {
  std::vector<const sched::Call*> done;
  for (const sched::Call& before : history.calls)
    if (&before != &call && before.returned < call.returned) done.push_back(&before);
  std::stable_sort(done.begin(), done.end(), [](const sched::Call* a, const sched::Call* b) {
    return a->returned < b->returned;
  });
  Model m = start;
  for (const sched::Call* before : done) m.apply(before->op, now);
  return m;
}

// Whether `by` refused for quota what `other` did not: the call, or one of a
// batch's elements (the model's outcome against the target's, or back).
bool refused_for_quota_only_by(const Outcome& by, const Outcome& other) {
  constexpr ErrorCode kQuota = ErrorCode::TENANT_QUOTA_EXCEEDED;
  if (by.code == kQuota && other.code != kQuota) return true;
  for (size_t e = 0; e < by.results.size(); ++e)
    if (by.results[e].code == kQuota && (e >= other.results.size() || other.results[e].code != kQuota)) return true;
  return false;
}

// The objects of `call` the target answered `code` for: the call's, or a
// batch's elements answered so.
std::vector<ObjectId> answered(const sched::Call& call, ErrorCode code) {
  const std::vector<ObjectId> ids = named_objects(call.op);
  if (call.outcome.results.empty()) return call.outcome.code == code ? ids : std::vector<ObjectId>{};
  std::vector<ObjectId> out;
  for (size_t e = 0; e < call.outcome.results.size() && e < ids.size(); ++e)
    if (call.outcome.results[e].code == code) out.push_back(ids[e]);
  return out;
}

std::vector<ObjectId> refused_for_quota(const sched::Call& call) {
  return answered(call, ErrorCode::TENANT_QUOTA_EXCEEDED);
}

// A start the target refused for quota named an object that existed, with a
// completed replica, when the round began and is missing from the final
// View: what a refused attempt that has already erased the object it
// replaces leaves (main-failed-upsert-drops-pinned-object). An object that
// was only a write in flight is the preemption's erase instead
// (main-failed-upsert-preempts-write-in-flight), which this leaves out.
bool quota_refused_erased(const Model& start, const sched::History& history) {
  const auto in_view = [&](ObjectId id) {
    return std::any_of(history.final_view.objects.begin(), history.final_view.objects.end(),
                       [&](const ObjectView& o) { return o.id == id; });
  };
  for (const sched::Call& call : history.calls) {
    if (!is_start(call.op.kind)) continue;
    for (ObjectId id : refused_for_quota(call)) {
      const ObjectTable::Entry* held = start.objects().find(id);
      if (held && held->second.any_complete() && !in_view(id)) return true;
    }
  }
  return false;
}

// The single-key starts of `call` the target admitted: the call itself, or
// a batch's elements answered OK.
std::vector<Op> admitted_starts(const sched::Call& call) {
  if (!is_start(call.op.kind)) return {};
  if (call.op.keys.empty()) return call.outcome.code == ErrorCode::OK ? std::vector<Op>{call.op} : std::vector<Op>{};
  std::vector<Op> out;
  for (size_t e = 0; e < call.op.keys.size() && e < call.outcome.results.size(); ++e)
    if (call.outcome.results[e].code == ErrorCode::OK) out.push_back(batch_element(call.op, e));
  return out;
}

// The admitted starts with the preserve action that named an object that
// held an unexpired committed pin when the round began, and whose object
// the final View shows with none: what a quota retry leaves that runs as a
// new write after its first attempt erased the object it replaces
// (main-quota-retry-drops-preserved-soft-pin). A round's own calls that drop
// the pin (a remove, eviction, a disable) end in some order the model takes,
// and then nothing is named.
std::vector<Op> preserved_pins_dropped(const Model& start, const sched::History& history, Time now) {
  const auto unpinned_in_view = [&](ObjectId id) {
    return std::any_of(history.final_view.objects.begin(), history.final_view.objects.end(),
                       [&](const ObjectView& o) { return o.id == id && !o.deadline; });
  };
  std::vector<Op> out;
  for (const sched::Call& call : history.calls)
    for (const Op& op : admitted_starts(call)) {
      if (op.soft_pin.action != static_cast<uint8_t>(SoftPinAction::Preserve)) continue;
      const ObjectTable::Entry* held = start.objects().find(op.object);
      if (held && held->second.deadline && *held->second.deadline > now && unpinned_in_view(op.object))
        out.push_back(op);
    }
  return out;
}

// Of those, one that writes another size than the object had when the round
// began: UpsertStart's Case C, which erases the object it resizes
// (main-quota-retry-drops-preserved-soft-pin). Without it the object was
// erased by a preemption that left no completed replica
// (main-quota-retry-after-preemption-drops-preserved-soft-pin).
bool preserve_resizes(const Model& start, const std::vector<Op>& dropped) {
  return std::any_of(dropped.begin(), dropped.end(), [&](const Op& op) {
    const ObjectTable::Entry* held = start.objects().find(op.object);
    return held && held->second.size != op.size;
  });
}

// An admitted start named an object that lived in a group other than the
// start's (or none) when the round began, or at one of the start's prefixes
// (a write begun in the round: lane seed 4779): an UpsertStart that preempts
// its write in flight erases it in the group's shard and, in a second locked
// section, writes it anew in the shard of its new group or key (Case A's
// retry shard), so between the two the object is nowhere.
bool start_changes_group(const Model& start, const sched::History& history, Time now) {
  const auto moves = [](const Model& m, const Op& op) {
    const ObjectTable::Entry* held = m.objects().find(op.object);
    return held && held->second.group != op.group;
  };
  for (const sched::Call& call : history.calls)
    for (const Op& op : admitted_starts(call)) {
      if (moves(start, op)) return true;
      for (int prefix = 0; prefix < kPrefixes; ++prefix)
        if (moves(model_before(start, history, call, prefix, now), op)) return true;
    }
  return false;
}

// "expected_quota_exceeded", with "quota_refused_replacement" when the start
// replaces an object (lane_conditions): the model refuses for quota, from one
// of the states the start may have begun from or the last it may have seen,
// a start the target admitted.
std::vector<std::string> model_quota_conditions(const Model& start, const sched::History& history, Time now) {
  std::vector<std::string> met;
  for (const sched::Call& call : history.calls) {
    if (!is_start(call.op.kind)) continue;
    for (int prefix = 0; prefix <= kPrefixes; ++prefix) {  // and the state by return order
      Model m = prefix < kPrefixes ? model_before(start, history, call, prefix, now)
                                   : model_before_return(start, history, call, now);
      const std::vector<ObjectId> ids = named_objects(call.op);
      const bool replaces = std::any_of(ids.begin(), ids.end(), [&](ObjectId id) { return m.objects().contains(id); });
      if (!refused_for_quota_only_by(m.apply(call.op, now), call.outcome)) continue;
      met = {"expected_quota_exceeded"};
      if (replaces) return {"expected_quota_exceeded", "quota_refused_replacement"};
    }
  }
  return met;
}

// Whether two calls ran at once at some instant (their intervals overlap).
bool overlap(const sched::Call& a, const sched::Call& b) { return a.invoked <= b.returned && b.invoked <= a.returned; }

// The calls other than `call` that answered OBJECT_NOT_FOUND for `id` while
// `call` ran (their intervals overlap).
std::vector<const sched::Call*> not_found_during(const sched::History& history, const sched::Call& call, ObjectId id) {
  std::vector<const sched::Call*> out;
  for (const sched::Call& other : history.calls) {
    if (&other == &call || !overlap(other, call)) continue;
    const std::vector<ObjectId> ids = answered(other, ErrorCode::OBJECT_NOT_FOUND);
    if (std::count(ids.begin(), ids.end(), id) > 0) out.push_back(&other);
  }
  return out;
}

// The gaps an admitted start left for a call that found no object of it while
// the start ran (not_found_during), read off the model at each of the start's
// prefixes and at each of that call's, without the start (the state the gap
// opened from; lane seeds 5684 and 6045, where the start began before the
// write it replaces). "replacement_meets_quota": the model refuses the start
// for quota or runs a quota eviction for it, where Mooncake's first attempt
// meets the quota too and gives up with the object it replaces already erased
// (Case C, or a preemption), to evict outside the shard lock and write the key
// anew in its retry (main-quota-retry-erases-object-between-attempts). The
// object need not exist at that prefix: the write it replaced may be one the
// model refused for the same quota, which Mooncake admitted on a retry after
// another write freed room (lane seed 2919). "start_keeps_group": otherwise,
// the start names a grouped object in the group it lived in at a prefix where
// it exists; the replacement erases the object's group route and registers it
// again under the group shard's lock, and a call that looks the route up
// without that lock in between misses the object
// (main-group-route-gap-during-replacement).
void gap_conditions(const Model& start, const sched::History& history, Time now, std::vector<std::string>* met) {
  const auto evictions = [](const Model& m) { return m.hits().count[static_cast<int>(Rule::QuotaEviction)]; };
  bool quota = false, group = false;
  for (const sched::Call& call : history.calls)
    for (const Op& op : admitted_starts(call)) {
      const std::vector<const sched::Call*> finders = not_found_during(history, call, op.object);
      if (finders.empty()) continue;
      std::vector<Model> states;
      for (int prefix = 0; prefix < kPrefixes; ++prefix) {
        states.push_back(model_before(start, history, call, prefix, now));
        for (const sched::Call* finder : finders)
          states.push_back(model_before(start, history, *finder, prefix, now, &call));
      }
      bool meets = false, kept = false;
      for (Model& m : states) {
        const ObjectTable::Entry* held = m.objects().find(op.object);
        kept = kept || (held && op.group != 0 && held->second.group == op.group);
        const auto before = evictions(m);
        const Outcome outcome = m.apply(call.op, now);
        meets = meets || evictions(m) != before || refused_for_quota_only_by(outcome, call.outcome);
      }
      quota = quota || meets;
      group = group || (kept && !meets);
    }
  if (group) met->push_back("start_keeps_group");
  if (quota) met->push_back("replacement_meets_quota");
}

// A start the target refused, for quota or for want of a buffer, named an
// object whose write was in flight (a memory replica in PROCESSING) at one
// of the start's prefixes: an UpsertStart preempts that write, and erases it
// with its charge, before it is refused
// (main-failed-upsert-preempts-write-in-flight).
bool refused_start_preempts_write(const Model& start, const sched::History& history, Time now) {
  for (const sched::Call& call : history.calls) {
    if (!is_start(call.op.kind)) continue;
    std::vector<ObjectId> refused = refused_for_quota(call);
    for (ObjectId id : answered(call, ErrorCode::NO_AVAILABLE_HANDLE)) refused.push_back(id);
    for (int prefix = 0; prefix < kPrefixes && !refused.empty(); ++prefix) {
      const Model m = model_before(start, history, call, prefix, now);
      for (ObjectId id : refused) {
        const ObjectTable::Entry* held = m.objects().find(id);
        if (held && held->second.memory_processing()) return true;
      }
    }
  }
  return false;
}

// The attempts of `op` the model refuses for quota when applied to `m`:
// those a quota eviction follows, and a last one refused for good.
uint64_t quota_refusals(Model& m, const Op& op, Time now) {
  const auto refusals = [&] {
    const auto& count = m.hits().count;
    return count[static_cast<int>(Rule::QuotaEviction)] + count[static_cast<int>(Rule::Quota)];
  };
  const uint64_t before = refusals();
  m.apply(op, now);
  return refusals() - before;
}

// Whether, for some unmount answered OK in `call`'s window, `differs` holds
// at one of the call's prefixes between the model without that unmount
// (`kept`) and the same with it applied first (`unmounted`). The window is
// the unmount's call, or, with the sweep after the round, everything from
// the unmount's invocation to the round's end.
bool unmount_differs(const Model& start, const sched::History& history, const sched::Call& call, Time now,
                     bool sweep_after_round, const std::function<bool(Model& kept, Model& unmounted)>& differs) {
  for (const sched::Call& unmount : history.calls) {
    if (unmount.op.kind != OpKind::Unmount || unmount.outcome.code != ErrorCode::OK) continue;
    if (!(sweep_after_round ? unmount.invoked <= call.returned : overlap(unmount, call))) continue;
    for (int prefix = 0; prefix < kPrefixes; ++prefix) {
      Model kept = model_before(start, history, call, prefix, now, &unmount);
      Model unmounted = kept;
      unmounted.apply(unmount.op, now);
      if (differs(kept, unmounted)) return true;
    }
  }
  return false;
}

// A start in an OK unmount's window that the unmount, applied first at one of
// the start's prefixes, spares some refusals for quota in the model (lane
// seed 5226): the unmount erases objects of the start's tenant and frees
// their charge. UnmountSegment makes the segment's replicas unreadable at
// once but sweeps their objects later, so in between an object whose only
// replicas were there still holds its charge, which no quota eviction can
// free (it takes only readable replicas), while a writer of the object finds
// it gone (main-unmount-sweep-keeps-charge-of-lost-object). With the sweep
// after the round, the window reaches past the unmount's return to the
// round's end.
bool unmount_frees_quota_for_start(const Model& start, const sched::History& history, Time now,
                                   bool sweep_after_round) {
  return std::any_of(history.calls.begin(), history.calls.end(), [&](const sched::Call& call) {
    return is_start(call.op.kind) &&
           unmount_differs(start, history, call, now, sweep_after_round, [&](Model& kept, Model& unmounted) {
             return quota_refusals(kept, call.op, now) > quota_refusals(unmounted, call.op, now);
           });
  });
}

// With the unmount's sweep after the round, a RemoveAll in an OK unmount's
// window counted an object the model says the unmount took: at one of its
// prefixes the unmount, applied first, lowers the model's count, and the
// target counted more than the model then does (other calls of the round may
// move both counts; lane seed 1414 overlaps an eviction and an End). The
// sweep erases an object left without a replica only later, so RemoveAll
// still finds it, with its replica COMPLETE though it cannot be read, and
// counts it (main-unmount-sweep-lets-remove-all-count-lost-object).
bool remove_all_counts_unmounted(const Model& start, const sched::History& history, Time now) {
  return std::any_of(history.calls.begin(), history.calls.end(), [&](const sched::Call& call) {
    if (call.op.kind != OpKind::RemoveAll || call.outcome.code != ErrorCode::OK || !call.outcome.removed) return false;
    return unmount_differs(start, history, call, now, true, [&](Model& kept, Model& unmounted) {
      const uint64_t after_unmount = unmounted.apply(call.op, now).removed.value_or(0);
      return after_unmount < kept.apply(call.op, now).removed.value_or(0) && after_unmount < *call.outcome.removed;
    });
  });
}

// With the unmount's sweep after the round, a Put start refused
// OBJECT_ALREADY_EXISTS in an OK unmount's window that the unmount, applied
// first at one of its prefixes, turns into an admission in the model: the
// write in progress of its key had its only replica on the unmounted segment.
// PutStart's stale-handle cleanup counts only COMPLETE replicas as stale, so
// until the sweep the lost PROCESSING replica still looks like a write in
// progress (main-unmount-sweep-lets-lost-write-block-put). Only a write in
// progress: a completed object that lost its replicas is stale to that
// cleanup, and a Put of its key refused is no part of this finding.
bool lost_write_blocks_start(const Model& start, const sched::History& history, Time now) {
  return std::any_of(history.calls.begin(), history.calls.end(), [&](const sched::Call& call) {
    if (call.op.kind != OpKind::PutStart || call.outcome.code != ErrorCode::OBJECT_ALREADY_EXISTS) return false;
    return unmount_differs(start, history, call, now, true, [&](Model& kept, Model& unmounted) {
      const std::optional<ObjectView> object = kept.object_view(call.op.object);
      return object && object->processing > 0 && kept.apply(call.op, now).code == ErrorCode::OBJECT_ALREADY_EXISTS &&
             unmounted.apply(call.op, now).code == ErrorCode::OK;
    });
  });
}

}  // namespace

std::vector<std::string> lane_conditions(const Model& start, const sched::History& history, Time now,
                                         bool sweep_after_round) {
  std::vector<std::string> met = model_quota_conditions(start, history, now);
  if (quota_refused_erased(start, history)) met.push_back("quota_refused_erased");
  if (const std::vector<Op> dropped = preserved_pins_dropped(start, history, now); !dropped.empty()) {
    met.push_back("preserved_pin_dropped");
    if (preserve_resizes(start, dropped)) met.push_back("preserve_resizes");
  }
  if (start_changes_group(start, history, now)) met.push_back("start_changes_group");
  gap_conditions(start, history, now, &met);
  if (unmount_frees_quota_for_start(start, history, now, sweep_after_round))
    met.push_back("unmount_frees_quota_for_start");
  if (refused_start_preempts_write(start, history, now)) met.push_back("refused_start_preempts_write");
  if (sweep_after_round && remove_all_counts_unmounted(start, history, now))
    met.push_back("remove_all_counts_unmounted");
  if (sweep_after_round && lost_write_blocks_start(start, history, now)) met.push_back("lost_write_blocks_start");
  return met;
}

}  // namespace pinsim::mooncake_lane
