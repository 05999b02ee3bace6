// Loading and matching known findings; see known_findings.h.
#include "known_findings.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <variant>

#include "json_codec.h"
#include "model.h"
#include "placement.h"

namespace pinsim {

std::string failure_signature(const Failure& failure, const Trace& trace) {
  const std::string op = failure.step < trace.steps.size() ? std::string(to_string(trace.steps[failure.step].op.kind)) : "?";
  return failure.what + "/" + op + "/" + failure.field;
}

std::vector<KnownFinding> load_known_findings(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DecodeError(dir + ": not a directory of findings");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  if (ec) throw DecodeError(dir + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<KnownFinding> known;
  for (const std::string& file : files) {
    const Trace t = load_trace(file);
    if (!t.finding) throw DecodeError(file + ": $.finding: missing (a finding names its tree and signatures)");
    known.push_back({file, t.finding->tree, t.finding->signatures, t.finding->needs, t.finding->also_on,
                     t.finding->when, t.finding->goes_on});
  }
  if (known.empty()) throw DecodeError(dir + ": no finding traces (*.json)");
  return known;
}

namespace {

std::vector<std::string> parts(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == '/') out.emplace_back();
    else out.back().push_back(c);
  }
  return out;
}

// "what/op/field" against a pattern where a part may be "*".
bool matches(const std::string& pattern, const std::string& signature) {
  const auto p = parts(pattern), s = parts(signature);
  if (p.size() != s.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != "*" && p[i] != s[i]) return false;
  return true;
}

}  // namespace

bool applies_to(const KnownFinding& k, const std::string& variant) {
  return k.tree == variant || std::find(k.also_on.begin(), k.also_on.end(), variant) != k.also_on.end();
}

std::vector<OpKind> ops_used(const Trace& trace, size_t step) {
  std::vector<OpKind> used;
  auto use = [&](OpKind k) {
    if (std::find(used.begin(), used.end(), k) == used.end()) used.push_back(k);
  };
  for (size_t i = 0; i < trace.steps.size() && i <= step; ++i) {
    use(trace.steps[i].op.kind);
    use(element_kind(trace.steps[i].op.kind));
  }
  return used;
}

namespace {

// Whether an op may start a task that the release timeout cancels: an End
// queues an offload (the local-disk tier), a read a promotion, which the
// holder's start restarts; a copy's start its copy.
bool may_start_task(OpKind kind) {
  switch (kind) {
    case OpKind::PutEnd: case OpKind::UpsertEnd: case OpKind::BatchPutEnd: case OpKind::BatchUpsertEnd:
    case OpKind::Get: case OpKind::BatchGet: case OpKind::PromotionStart: case OpKind::CopyStart:
      return true;
    default:
      return false;
  }
}

bool may_evict_for_quota(OpKind kind) {
  return kind == OpKind::PutStart || kind == OpKind::UpsertStart || kind == OpKind::BatchUpsertStart;
}

// "at_task_timeout": step `step` runs exactly at the release timeout of a
// task an earlier step may have started.
bool at_task_timeout(const Trace& trace, size_t step) {
  std::vector<Time> starts;
  Time now = 0;
  for (size_t i = 0; i < trace.steps.size() && i <= step; ++i) {
    const Op& op = trace.steps[i].op;
    now = time_after(now, op);
    if (i < step && may_start_task(op.kind)) starts.push_back(now);
  }
  const uint64_t timeout = trace.config.put_start_release_timeout_ms;
  return now != kTimeMax &&
         std::any_of(starts.begin(), starts.end(), [&](Time t) { return saturating_deadline(t, timeout) == now; });
}

// "end_after_copy_end": at or before step `step`, a write's End names a key
// after a copy of that key ended.
bool end_after_copy_end(const Trace& trace, size_t step) {
  std::vector<ObjectId> copied;
  for (size_t i = 0; i < trace.steps.size() && i <= step; ++i) {
    const Op& op = trace.steps[i].op;
    if (op.kind == OpKind::CopyEnd) copied.push_back(op.object);
    if (is_end(op.kind) && std::any_of(copied.begin(), copied.end(), [&](ObjectId id) { return touches(op, id); }))
      return true;
  }
  return false;
}

// "expected_quota_exceeded": the failing step's expected outcome (in a
// campaign, the model's, which the runner records) refuses it, or one of its
// keys, for the tenant's quota.
bool expected_quota_exceeded(const Trace& trace, size_t step) {
  if (step >= trace.steps.size() || !trace.steps[step].expect) return false;
  const Outcome& o = *trace.steps[step].expect;
  return o.code == ErrorCode::TENANT_QUOTA_EXCEEDED ||
         std::any_of(o.results.begin(), o.results.end(),
                     [](const KeyResult& r) { return r.code == ErrorCode::TENANT_QUOTA_EXCEEDED; });
}

// Whether an answer admits its Start past the tenant's quota: not
// TENANT_QUOTA_EXCEEDED, or for a batch, not for one of its keys at least.
bool admits_past_quota(const Outcome& o) {
  if (o.results.empty()) return o.code != ErrorCode::TENANT_QUOTA_EXCEEDED;
  return std::any_of(o.results.begin(), o.results.end(),
                     [](const KeyResult& r) { return r.code != ErrorCode::TENANT_QUOTA_EXCEEDED; });
}

// Whether `op` is a Start naming an object with a PROCESSING replica in `m`.
bool preempts_write(const Model& m, const Op& op) {
  if (!is_start(op.kind)) return false;
  for (const ObjectPlacement& o : m.placement().objects)
    if (touches(op, o.id) && std::any_of(o.replicas.begin(), o.replicas.end(), [](const ReplicaPlacement& r) {
          return r.status == ReplicaStatus::Processing;
        }))
      return true;
  return false;
}

// The objects with a PROCESSING memory replica on the segment `unmount` takes, in `m`.
std::vector<ObjectId> processing_on(const Model& m, const Op& unmount) {
  std::vector<ObjectId> out;
  for (const ObjectPlacement& o : m.placement().objects)
    if (std::any_of(o.replicas.begin(), o.replicas.end(), [&](const ReplicaPlacement& r) {
          return r.status == ReplicaStatus::Processing && r.kind == ReplicaKind::Memory && r.segment == unmount.segment;
        }))
      out.push_back(o.id);
  return out;
}

// Whether the restore `failing`, applied to `m`, leaves a memory segment
// unmounted that was mounted or leaving before it.
bool restore_unmounts_segment(Model& m, const TraceStep& failing) {
  const std::vector<uint8_t> before = m.view(failing.t).mounted;
  m.apply(failing.op, failing.t);
  const std::vector<uint8_t> after = m.view(failing.t).mounted;
  for (size_t s = 0; s < before.size() && s < after.size(); ++s)
    if (before[s] != kUnmounted && after[s] == kUnmounted) return true;
  return false;
}

// Whether the model holds an object none of whose replicas is COMPLETE.
bool uncommitted(const ObjectView& o) {
  return o.complete_memory + o.complete_nof + o.complete_disk + o.complete_dfs + o.complete_local == 0;
}
bool holds_uncommitted(const View& v) { return std::any_of(v.objects.begin(), v.objects.end(), uncommitted); }

bool removes_many(const Op& op) { return op.kind == OpKind::RemoveAll || op.kind == OpKind::RemoveByRegex; }

// Whether `op` names object `id`: its key (a batch's keys), or, a removal by
// pattern, every key of its tenant.
bool names_key(const Op& op, ObjectId id) {
  return touches(op, id) || (removes_many(op) && op.object.tenant == id.tenant);
}

// Whether the model answered `op` OK for object `id` (a batch: its element's answer).
bool answered_ok(const Op& op, const Outcome& out, ObjectId id) {
  if (!is_batch(op.kind) || op.object.tenant != id.tenant) return out.code == ErrorCode::OK;
  for (size_t k = 0; k < op.keys.size() && k < out.results.size(); ++k)
    if (op.keys[k] == id.key && out.results[k].code == ErrorCode::OK) return true;
  return false;
}

// The objects an End `op` the model just answered OK left with no COMPLETE
// replica in `v`, its View after (it completed nothing: its selector named none).
void ends_completing_nothing(const View& v, const Op& op, const Outcome& out, std::vector<ObjectId>* ids) {
  if (!is_end(element_kind(op.kind)) || out.code != ErrorCode::OK) return;
  const std::vector<ObjectId> named = named_objects(op);
  for (const ObjectView& o : v.objects)
    if (std::find(named.begin(), named.end(), o.id) != named.end() && uncommitted(o)) ids->push_back(o.id);
}

// The objects with a write in flight (a PROCESSING replica) before a step
// that does not name them and gone after it, of keys an End answered OK
// before (`ended`: the log holds a value for them): the reaper discarded them
// whole past the release timeout. A failover, a restore or an unmount drops
// objects of its own, and a removal by pattern names every key it takes.
void reaped_by(const Op& op, const View& before, const View& after, const std::vector<ObjectId>& ended,
               std::vector<ObjectId>* ids) {
  if (op.kind == OpKind::Failover || op.kind == OpKind::Restore || op.kind == OpKind::Unmount || removes_many(op))
    return;
  for (const ObjectView& o : before.objects)
    if (o.processing > 0 && !touches(op, o.id) && !find_object(after, o.id) &&
        std::find(ended.begin(), ended.end(), o.id) != ended.end())
      ids->push_back(o.id);
}

// The objects `after` a failover holds a PROCESSING replica of (the ones
// their write left, which the model keeps: rule failover.standby).
void kept_processing(const View& after, std::vector<ObjectId>* ids) {
  for (const ObjectView& o : after.objects)
    if (o.processing > 0 && std::find(ids->begin(), ids->end(), o.id) == ids->end()) ids->push_back(o.id);
}

// Whether step `step` names one of `ids`' keys.
bool names_any(const Trace& trace, size_t step, const std::vector<ObjectId>& ids) {
  return step < trace.steps.size() &&
         std::any_of(ids.begin(), ids.end(), [&](ObjectId id) { return names_key(trace.steps[step].op, id); });
}

// Whether the failing step makes a write discard of the reaper that awaits
// the lagging log, or names the key of one that awaits it (applied to a copy:
// the caller's questions ask before the step).
bool discard_awaits_log(const Model& model, const TraceStep& failing) {
  const std::vector<ObjectId> before = model.write_discards_awaiting_log();
  Model probe = model;
  probe.apply(failing.op, failing.t);
  const std::vector<ObjectId> after = probe.write_discards_awaiting_log();
  return std::any_of(after.begin(), after.end(), [&](ObjectId id) {
    return names_key(failing.op, id) || std::find(before.begin(), before.end(), id) == before.end();
  });
}

// The conditions read off the model, replayed once through the trace up to
// the failing step `step`, in this order:
// "model_quota_evicted": the model ran a quota eviction at `step` (a Start,
// or a batch's, refused for the tenant's quota in an attempt and retried
// after evicting the tenant's memory), with "quota_retry_admitted" when its
// answer then admits the Start past the quota (not TENANT_QUOTA_EXCEEDED;
// for a batch, for one of its keys at least);
// "start_preempts_write": `step` is a Start naming an object whose write is
// in flight (a PROCESSING replica) in the model before it;
// "unmount_takes_processing": an unmount before `step` takes a segment
// holding a PROCESSING replica of an object that no later step names up to
// `step`: in Mooncake that replica stays in the object's metadata until a
// call on the key (or a RemoveAll) drops it;
// "restore_unmounts_segment": `step` is a restore after which a memory
// segment mounted (or leaving) before it is unmounted in the model (the
// snapshot it applies had the segment unmounted);
// "failover_drops_uncommitted": `step` is a failover, and the model holds an
// object with no COMPLETE replica before it (a write in flight, or a value
// an upsert is rewriting), which the failover drops (rule failover.standby);
// "end_completed_nothing": an End before `step` answered OK and left an
// object it names with no COMPLETE replica (its selector named none), and no
// step since has written its key again (a call naming it answered OK, a read
// excepted, which writes nothing to the log; a removal by pattern that took it);
// "quota_evicted_before": a quota eviction ran before `step`;
// "reaper_discarded_write": the reaper discarded an object whole with its
// write in flight before `step`, of a key an End had answered OK before
// (reaped_by), and no step since has written its key again (as for
// "end_completed_nothing");
// "failover_kept_processing": a failover at or before `step` kept an
// object's PROCESSING replica (kept_processing), the object is still there,
// and no restore has come between (a later End the model completes does not
// end it: Mooncake's may answer OK and complete nothing);
// "names_retiring_key": `step` names a key that is retiring in the model
// before it (a logged removal took it, or some of its replicas, and the
// lagging log has not caught up since; rule log.window; a discard of the
// reaper alone is not a removal); a removal by pattern names every key of
// its tenant; "reaper_discard_unlogged" (discard_awaits_log);
// "restore_in_window": a restore before `step` met a removal awaiting the
// lagging log, and no advance or failover caught the log up since;
// "names_expired_copy": `step` names a key whose copy the reaper expired
// with the expiry awaiting the lagging log.
void model_conditions(const Trace& trace, size_t step, std::vector<std::string>* met) {
  auto created = Model::create(trace.config);
  Model* model = std::get_if<Model>(&created);
  if (!model) return;
  std::vector<ObjectId> held;  // objects with such a replica, not named since
  std::vector<ObjectId> ended_nothing;  // objects an End completed nothing of, not written since
  std::vector<ObjectId> reaped;         // objects the reaper discarded whole, not written since
  std::vector<ObjectId> ended;          // objects an End answered OK for
  std::vector<ObjectId> kept;           // objects a failover kept a PROCESSING replica of, still there
  bool restored_in_window = false;      // a restore met a removal awaiting the log, not caught up since
  // The model's View before each step: the one after the step before (what
  // is read of it, its objects, does not depend on the time it is read at).
  View before = model->view(0);
  for (size_t i = 0; i < step && i < trace.steps.size(); ++i) {
    const Op& op = trace.steps[i].op;
    auto named_since = [&](ObjectId id) { return names_key(op, id); };
    std::erase_if(held, named_since);
    if (op.kind == OpKind::Unmount)
      for (ObjectId id : processing_on(*model, op)) held.push_back(id);
    if (op.kind == OpKind::Advance || op.kind == OpKind::Failover) restored_in_window = false;
    if (op.kind == OpKind::Restore && !before.retiring.empty()) restored_in_window = true;
    const Outcome out = model->apply(op, trace.steps[i].t);
    View after = model->view(trace.steps[i].t);
    // A step that writes the object's key again: a call naming it answered OK
    // (not a read: it writes nothing to the log), or a removal by pattern that
    // took it (one that finds nothing writes nothing).
    const bool read = op_info(element_kind(op.kind)).cls == OpClass::Read;
    auto writes_again = [&](ObjectId id) {
      if (removes_many(op)) return named_since(id) && find_object(before, id) && !find_object(after, id);
      return !read && touches(op, id) && answered_ok(op, out, id);
    };
    std::erase_if(ended_nothing, writes_again);
    std::erase_if(reaped, writes_again);
    std::erase_if(kept, [&](ObjectId id) { return !find_object(after, id); });
    if (op.kind == OpKind::Restore) kept.clear();
    if (op.kind == OpKind::Failover) kept_processing(after, &kept);
    ends_completing_nothing(after, op, out, &ended_nothing);
    reaped_by(op, before, after, ended, &reaped);
    if (is_end(element_kind(op.kind)))
      for (ObjectId id : named_objects(op))
        if (answered_ok(op, out, id) && std::find(ended.begin(), ended.end(), id) == ended.end()) ended.push_back(id);
    before = std::move(after);
  }
  const bool quota_evicted_before = model->hits().count[static_cast<int>(Rule::QuotaEviction)] != 0;
  const bool names_retiring = names_any(trace, step, model->removals_awaiting_log());
  const bool names_expired_copy = names_any(trace, step, model->copy_discards_awaiting_log());
  bool preempts = false, quota_evicted = false, admitted = false, unmounts = false, drops_uncommitted = false;
  bool discard_unlogged = false;
  if (step < trace.steps.size()) {
    const TraceStep& failing = trace.steps[step];
    discard_unlogged = discard_awaits_log(*model, failing);
    if (failing.op.kind == OpKind::Failover) {
      drops_uncommitted = holds_uncommitted(before);
      model->apply(failing.op, failing.t);  // no later question here reads a failover's model
      kept_processing(model->view(failing.t), &kept);
    }
    preempts = preempts_write(*model, failing.op);
    const auto before = model->hits().count[static_cast<int>(Rule::QuotaEviction)];
    if (may_evict_for_quota(failing.op.kind)) admitted = admits_past_quota(model->apply(failing.op, failing.t));
    quota_evicted = model->hits().count[static_cast<int>(Rule::QuotaEviction)] != before;
    if (failing.op.kind == OpKind::Restore) unmounts = restore_unmounts_segment(*model, failing);
  }
  if (quota_evicted) met->push_back("model_quota_evicted");
  if (quota_evicted && admitted) met->push_back("quota_retry_admitted");
  if (preempts) met->push_back("start_preempts_write");
  if (!held.empty()) met->push_back("unmount_takes_processing");
  if (unmounts) met->push_back("restore_unmounts_segment");
  if (drops_uncommitted) met->push_back("failover_drops_uncommitted");
  if (!ended_nothing.empty()) met->push_back("end_completed_nothing");
  if (quota_evicted_before) met->push_back("quota_evicted_before");
  if (!reaped.empty()) met->push_back("reaper_discarded_write");
  if (!kept.empty()) met->push_back("failover_kept_processing");
  if (names_retiring) met->push_back("names_retiring_key");
  if (discard_unlogged) met->push_back("reaper_discard_unlogged");
  if (restored_in_window) met->push_back("restore_in_window");
  if (names_expired_copy) met->push_back("names_expired_copy");
}

}  // namespace

std::vector<std::string> conditions_met(const Trace& trace, size_t step) {
  std::map<std::pair<TenantId, uint32_t>, KeyId> first_key;  // each proposal id's first key
  bool reused = false, dfs = false;
  size_t snapshots = 0;  // the candidates a restore may apply (a run stops at its first failure)
  for (size_t i = 0; i < trace.steps.size() && i <= step; ++i) {
    const Op& op = trace.steps[i].op;
    snapshots += op.kind == OpKind::Snapshot;
    dfs = dfs || op.dfs_replicas > 0;
    if (op.kind != OpKind::Propose || !op.proposal) continue;
    auto [it, fresh] = first_key.try_emplace({op.object.tenant, *op.proposal}, op.object.key);
    reused = reused || (!fresh && it->second != op.object.key);
  }
  std::vector<std::string> met;
  if (reused) met.push_back("proposal_id_reused");
  if (dfs) met.push_back("dfs_asked");
  if (trace.config.ha_oplog) met.push_back("ha_oplog");
  if (trace.config.oplog_lag) met.push_back("oplog_lag");
  if (step < trace.steps.size()) {
    const Op& failing = trace.steps[step].op;
    if (failing.kind == OpKind::Restore)
      met.push_back(snapshots > (failing.fail_first_candidate ? 1u : 0u) ? "restore_applied" : "restore_started_empty");
    if (is_batch(failing.kind)) {
      std::vector<KeyId> keys = failing.keys;
      std::sort(keys.begin(), keys.end());
      if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) met.push_back("batch_repeats_key");
    }
  }
  if (step < trace.steps.size() && at_task_timeout(trace, step)) met.push_back("at_task_timeout");
  if (end_after_copy_end(trace, step)) met.push_back("end_after_copy_end");
  if (expected_quota_exceeded(trace, step)) met.push_back("expected_quota_exceeded");
  model_conditions(trace, step, &met);
  return met;
}

const KnownFinding* match_known(const std::vector<KnownFinding>& known, const std::string& signature,
                                const std::string& variant, const std::vector<OpKind>& used,
                                const std::vector<std::string>& conditions) {
  auto needs_met = [&](const KnownFinding& k) {
    return std::all_of(k.needs.begin(), k.needs.end(),
                       [&](OpKind n) { return std::find(used.begin(), used.end(), n) != used.end(); }) &&
           std::all_of(k.when.begin(), k.when.end(), [&](const std::string& c) {
             return std::find(conditions.begin(), conditions.end(), c) != conditions.end();
           });
  };
  auto named = [&](const KnownFinding& k) {
    return std::any_of(k.signatures.begin(), k.signatures.end(),
                       [&](const std::string& pattern) { return matches(pattern, signature); });
  };
  const KnownFinding* best = nullptr;  // the most conditions, then the first
  for (const KnownFinding& k : known)
    if (applies_to(k, variant) && needs_met(k) && named(k) && (!best || k.when.size() > best->when.size())) best = &k;
  return best;
}

}  // namespace pinsim
