// The concurrent lane on the command line: `pinsim run --actors N` (rounds
// of actors at once under the deterministic scheduler, through the one seed
// loop), and the replay and shrink of the traces it writes.
#pragma once
#include "campaign.h"
#include "cli.h"

namespace pinsim::cli {

void add_concurrent_options(po::options_description& desc);
// Whether the command line asks for the concurrent lane (--actors).
bool concurrent_requested(const po::variables_map& vm);
// With --actors, sets o.seed_runner to the lane's seed; throws a UsageError
// naming the flag (a target that is not thread-safe, --jobs, a bad count, a
// lane flag without --actors).
void setup_concurrent(const po::variables_map& vm, CampaignOptions* o, TargetFactory factory,
                      const TargetOptions& options, const Checks& checks);
// The lane's figures under the summary line.
void print_concurrent_figures(const CampaignSummary& s, double secs);
// `pinsim replay` and `pinsim shrink` of a trace with rounds.
int replay_concurrent_trace(const po::variables_map& vm, const Trace& trace, const TraceRun& run,
                            const std::string& path);
int shrink_concurrent_trace(const po::variables_map& vm, const Trace& trace, const TraceRun& run,
                            const std::string& path);

}  // namespace pinsim::cli
