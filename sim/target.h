// The Target interface: what the lockstep runner drives beside the model.
// A target applies ops at virtual time, shows a View of its state, and says
// which parts of the View it can show. The runner never names a target.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.h"
#include "op.h"
#include "outcome.h"
#include "placement.h"
#include "view.h"

namespace pinsim {

class Target {
 public:
  virtual ~Target() = default;
  virtual std::string_view name() const = 0;
  virtual Capabilities capabilities() const = 0;
  virtual Outcome apply(const Op& op, Time now) = 0;
  // False for an op this target cannot perform (it would answer UNSUPPORTED);
  // campaigns draw another op instead, so only what both sides can do is
  // compared. Replayed traces are never altered: there, UNSUPPORTED shows.
  virtual bool supports(const Op&) const { return true; }
  // True when the target's second eviction pass visits objects in an order
  // the rules leave open (Mooncake scans shards from a random start): the
  // runner then accepts any victim set the model can produce with some scan
  // order, and the model follows the target's choice.
  virtual bool eviction_order_unspecified() const { return false; }
  // Which build of the target this is, for matching known findings (a
  // Mooncake target names its tree: main, pre-2909, pr-2835); "" if one.
  virtual std::string_view variant() const { return ""; }
  virtual View view(Time now) const = 0;
  // The same View written into `out`, whose buffers a target may reuse (the
  // runner's per-step View; the embedded master does).
  virtual void view_into(Time now, View* out) const { *out = view(now); }
  // The next View reads the whole state, not only what the ops since the
  // last one touched (for a target whose Views are incremental; every other
  // target's are whole). The runner asks for it at a run's last step, so a
  // change an op made outside what it touched shows by the run's end.
  virtual void view_whole_next() {}
  // Runs the background work the target left for after a concurrent round's
  // calls (the Mooncake lane's unmount sweep, "after_round"); the lane asks
  // for it at the round's quiescent point, before the round's View.
  virtual void settle() {}
  // Where its replicas are (model/placement.h), for the concurrent lane: at a
  // round's end it keeps only the model states that placed as the target
  // did. nullopt when the target cannot show it (the lane then compares the
  // View alone).
  virtual std::optional<Placement> placement() const { return std::nullopt; }
  // An independent copy of this target at its present state, or nullptr when
  // it cannot be copied (the explorer then replays a state's path for each
  // transition instead of copying the state once per transition).
  virtual std::unique_ptr<Target> clone() const { return nullptr; }
  // Sets this target to `from`'s present state, reusing this one's storage
  // (the explorer's per-transition copy). `from` is quiescent and of the same
  // kind, configuration and options. False when this target cannot (the
  // caller then clones).
  virtual bool assign(const Target& /*from*/) { return false; }
};

// One per-run option of a target, named as the command line's flag is
// (e.g. fault=F2 from --fault F2). Only the target knows what its options
// mean: the command line, traces, the seed loop and the runner pass them
// through unread, and a factory refuses an option it does not take.
struct TargetOption {
  TargetOption(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
  std::string name;
  std::string value;
  bool operator==(const TargetOption&) const = default;
};
using TargetOptions = std::vector<TargetOption>;

// A factory's refusal of the first option whose name is not in `taken`, or
// "" when it takes them all: "the model target takes no 'fault' option
// (given 'F2'; it takes none)".
inline std::string untaken_option(std::string_view target, const TargetOptions& options,
                                  std::initializer_list<std::string_view> taken) {
  for (const TargetOption& o : options) {
    if (std::find(taken.begin(), taken.end(), o.name) != taken.end()) continue;
    std::string list;
    for (std::string_view t : taken) list += (list.empty() ? "" : ", ") + std::string(t);
    return "the " + std::string(target) + " target takes no '" + o.name + "' option (given '" + o.value +
           "'; it takes " + (list.empty() ? "none" : list) + ")";
  }
  return "";
}

// Builds a target for a configuration; nullptr with `error` set when the
// options or the configuration are refused.
using TargetFactory = std::unique_ptr<Target> (*)(const Config& config, const TargetOptions& options,
                                                  std::string* error);

}  // namespace pinsim
