// Known findings: divergences already shrunk, explained and saved under
// scenarios/findings/. Each finding trace names the tree it was found on and
// the signatures of its failure (what failed, at which op, on which field).
// A campaign given `--known DIR` reports a failure that matches one as known
// and goes on; only unknown failures turn it red. Features are never switched
// off to avoid a finding: it is recognised instead.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "runner.h"
#include "trace.h"

namespace pinsim {

// "what/op/field", e.g. "property/upsert_start/P13": stable under renaming
// keys and actors, the same shape the shrinker keeps. In a finding's list a
// part may be "*" (a counter difference can show at any op).
std::string failure_signature(const Failure& failure, const Trace& trace);

struct KnownFinding {
  std::string file;                     // the trace, as given
  std::string tree;                     // the target variant it applies to
  std::vector<std::string> signatures;  // any of them matches
  std::vector<OpKind> needs;            // op kinds the failing run must have used (FindingInfo::needs)
  std::vector<std::string> also_on;     // other trees it was confirmed on (FindingInfo::also_on)
  std::vector<std::string> when;        // conditions the failing run must meet (FindingInfo::when)
  bool goes_on = false;                 // a campaign goes on past it (FindingInfo::goes_on)
};

// Whether `k` is a finding of the tree `variant` (found there, or confirmed there too).
bool applies_to(const KnownFinding& k, const std::string& variant);

// The op kinds `trace` used at or before step `step` (its failing step); a
// batch op also uses its element's kind (a batch upsert start is an upsert
// start of each of its keys, so a finding that needs one matches either).
std::vector<OpKind> ops_used(const Trace& trace, size_t step);

// The conditions a finding may name in `when` (kFindingConditions) that
// `trace` met at or before step `step`: "proposal_id_reused", a propose
// naming an id an earlier propose of its tenant named for another key;
// "restore_applied", the failing step is a restore that had a snapshot
// candidate to apply, "restore_started_empty" one that finds none usable and
// starts empty;
// "dfs_asked", a Start at or before it asked for a DFS replica; "ha_oplog",
// the trace's master runs in HA-OpLog mode; "batch_repeats_key", the failing
// step is a batch that names one key more than once;
// "at_task_timeout", the failing step runs exactly at the release timeout
// of a task an earlier step may have started (an End's offload, a read's or
// a holder's promotion, a copy); "end_after_copy_end", a write's End at or
// before it names a key after a copy of that key ended;
// "expected_quota_exceeded", the failing step's expected outcome (the model's
// in a campaign) is TENANT_QUOTA_EXCEEDED, for the op or one of its keys;
// "model_quota_evicted", the model replayed through the trace ran a quota
// eviction at the failing step (an attempt of a Start refused for quota),
// with "quota_retry_admitted" when the model's answer then admits the Start
// past the quota (for a batch, one of its keys at least);
// "start_preempts_write", the failing step is a Start naming an object whose
// write is in flight in the model before it; "unmount_takes_processing", an
// unmount before it takes a segment holding a PROCESSING replica of an
// object no step names from then up to the failing one; "restore_unmounts_segment",
// the failing step is a restore after which the model has a memory segment
// unmounted that was mounted or leaving before it; "failover_drops_uncommitted",
// the failing step is a failover and the model holds an object with no
// COMPLETE replica before it, which the failover drops; "end_completed_nothing",
// an End before it answered OK and left an object it names with no COMPLETE
// replica, whose key no step since wrote again; "quota_evicted_before", the model ran a
// quota eviction before it; "names_retiring_key", the failing step names a
// key retiring in the model (a logged removal took it while the log lags);
// "oplog_lag", the trace's log lags (the log's window);
// "reaper_discard_unlogged", the failing step makes, or names the key of, a
// write's discard by the reaper that the lagging log has not made durable;
// "restore_in_window", a restore before the failing step met a removal
// awaiting the lagging log, with no catch-up (an advance, a failover) since;
// "names_expired_copy", the failing step names a key whose copy the reaper
// expired, the expiry awaiting the lagging log.
// The Mooncake concurrency lane computes its own (lane_conditions in
// sim/targets/mooncake/concurrency_lane.h): "expected_quota_exceeded" as
// above, and "quota_refused_replacement", a start the model refuses for
// quota, that the target admitted, names an object that exists when it
// begins; "quota_refused_erased", a start the target refused for quota
// names an object that existed, with a completed replica, when the round
// began and is missing from the final View; "preserved_pin_dropped", a start the target admitted with
// Preserve names an object that held an unexpired committed pin when the
// round began and shows none in the final View, with "preserve_resizes"
// when such a start writes another size than the object had; and
// "start_changes_group", an admitted start names an object that lived in
// another group (or none) when the round began; "start_keeps_group", an
// admitted start names a grouped object in the group it lived in when the
// start began, the model neither refuses it for quota nor evicts for it,
// and another call found no such object while the start ran;
// "replacement_meets_quota", an admitted start names an object, the model
// (at one of the start's prefixes, or of the call that found nothing, the
// object there or not) refuses it for quota or runs a quota eviction for it,
// and another call found no such object while it ran;
// "unmount_frees_quota_for_start", a start overlaps an unmount answered OK
// that, applied first at one of the start's prefixes, spares the start some
// of the model's refusals for quota; "refused_start_preempts_write", a start
// the target refused, for quota or for want of a buffer, names an object
// whose write is in flight at one of its prefixes;
// "remove_all_counts_unmounted", with an unmount's sweep after the round, a
// RemoveAll that ends after an unmount answered OK began counts more than
// the model does with the unmount applied first at one of its prefixes,
// where the unmount lowers the model's count; "lost_write_blocks_start", with
// an unmount's sweep after the round, a Put start refused
// OBJECT_ALREADY_EXISTS after an unmount answered OK began, which the model
// admits with the unmount applied first at one of its prefixes and refuses
// without it, its key's write in progress there. A sequential run never meets the last eleven.
inline constexpr std::string_view kFindingConditions[] = {
    "proposal_id_reused",      "restore_applied",     "restore_started_empty", "dfs_asked",
    "at_task_timeout",         "end_after_copy_end",  "expected_quota_exceeded",
    "model_quota_evicted",     "quota_refused_replacement", "quota_refused_erased",
    "preserved_pin_dropped",   "preserve_resizes",    "start_changes_group",
    "start_preempts_write",    "unmount_takes_processing", "quota_retry_admitted",
    "start_keeps_group",       "replacement_meets_quota", "unmount_frees_quota_for_start",
    "refused_start_preempts_write", "remove_all_counts_unmounted", "lost_write_blocks_start",
    "restore_unmounts_segment", "ha_oplog", "batch_repeats_key",  // sequential conditions, listed last as the newest
    "failover_drops_uncommitted", "end_completed_nothing", "quota_evicted_before", "reaper_discarded_write",
    "failover_kept_processing", "names_retiring_key", "oplog_lag", "reaper_discard_unlogged", "restore_in_window",
    "names_expired_copy",
};
std::vector<std::string> conditions_met(const Trace& trace, size_t step);

// Every *.json under `dir` (sorted by name); a trace without a `finding`
// field is an error naming the file (DecodeError), so nothing is skipped.
std::vector<KnownFinding> load_known_findings(const std::string& dir);

// The finding a failure matches on a target of `variant`, or nullptr. A
// finding that needs op kinds matches only when `used` holds each of them
// (a caller with no trace passes none: such a finding never matches there).
// Of several that match, the one with the most `when` conditions (then the
// first by file name): two findings with one signature, one of them narrowed
// by a condition the run met, name it by the narrower.
const KnownFinding* match_known(const std::vector<KnownFinding>& known, const std::string& signature,
                                const std::string& variant, const std::vector<OpKind>& used = {},
                                const std::vector<std::string>& conditions = {});

}  // namespace pinsim
