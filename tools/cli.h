// The command line's shared vocabulary: the usage error (exit code 2, one
// line), strict parsers, and the target and check options that run, replay,
// shrink and gate declare the same way, so the commands cannot drift apart.
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "campaign.h"
#include "runner.h"
#include "summary.h"
#include "target.h"
#include "trace.h"

namespace pinsim::cli {

namespace po = boost::program_options;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `pinsim CMD --help`: the command's options and examples were printed; exit 0.
struct HelpShown {};

void write_file(const std::string& path, const std::string& text);
// An output path that cannot be written is refused before the run, so a
// failure is never lost to it.
void check_writable(const std::string& path);
void print_failure(const Failure& f, const std::string& trace_path);
std::pair<uint64_t, uint64_t> parse_seeds(const std::string& s);  // "A..B"
// A non-negative decimal number no larger than `max`; anything else (a sign,
// a fraction, nan, too many digits) is a UsageError naming the flag.
uint64_t parse_count(const std::string& flag, const std::string& text, uint64_t max);
// The same, for a flag declared as a string option: vm[name] as a count.
uint64_t count_of(const po::variables_map& vm, const char* name, uint64_t max);
// --jobs: worker processes, 1..64 (run, gate and explore take it alike).
unsigned jobs_of(const po::variables_map& vm);
std::pair<uint64_t, uint64_t> parse_shard(const std::string& s);  // "K/N"
TargetFactory target_or_throw(const std::string& name);
TargetOptions target_options_of(const po::variables_map& vm);
// Refuses, before anything runs, options the target does not take: the
// factory is asked once with `config` (a UsageError naming the target).
void check_options_taken(TargetFactory factory, const std::string& target, const TargetOptions& options,
                         const Config& config);
Checks checks_of(const po::variables_map& vm);
void add_target_and_check_options(po::options_description& desc);
// The same options for a command that reads a trace (replay, shrink, show),
// plus --ignore-recorded.
void add_trace_run_options(po::options_description& desc);
// The command line's target, faults, properties and compare mode, as a trace
// records them (`tree`: the target's variant, "" when it has none).
RunFlags run_flags_of(const po::variables_map& vm, const std::string& tree = "");

// What a command that reads a trace runs: the flags the trace recorded (its
// "run"), or the command line's when it records none or --ignore-recorded is
// given. A flag that contradicts the record is a UsageError naming both.
struct TraceRun {
  RunFlags flags;  // what a trace written from this run records
  TargetFactory factory = nullptr;
  TargetOptions options;
  Checks checks;
};
TraceRun trace_run_of(const po::variables_map& vm, const Trace& trace, const std::string& path);
// The end of a replay, lockstep or concurrent: the trace as run records the
// run's flags and the target's tree (what --record writes), and a failure is
// printed. True when the replay failed.
bool finish_replay(const po::variables_map& vm, const TraceRun& run, RunResult* r);
// A shrunk trace's own description: what it fails and where it came from;
// the rule and the seed of the original no longer describe it.
void describe_shrunk(Trace* shrunk, const std::string& from, const Failure& failure);
// --format text|json and --junit FILE, for run, explore and mutants.
void add_summary_options(po::options_description& desc);
// Whether stdout is the JSON summary (--format json) rather than text;
// refuses an unknown format and an unwritable --junit before the run.
bool json_output(const po::variables_map& vm);
// Prints the JSON summary (--format json) and writes JUnit (--junit FILE).
void write_summary(const po::variables_map& vm, const Summary& summary, const std::vector<JUnitCase>& cases);
// Parses `args`; the first positional argument, if `positional` names one, fills it.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const char* positional = nullptr);

}  // namespace pinsim::cli
