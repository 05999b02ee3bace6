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

#include "runner.h"
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
void print_failure(const Failure& f, const std::string& trace_path);
std::pair<uint64_t, uint64_t> parse_seeds(const std::string& s);  // "A..B"
// A non-negative decimal number no larger than `max`; anything else (a sign,
// a fraction, nan, too many digits) is a UsageError naming the flag.
uint64_t parse_count(const std::string& flag, const std::string& text, uint64_t max);
// The same, for a flag declared as a string option: vm[name] as a count.
uint64_t count_of(const po::variables_map& vm, const char* name, uint64_t max);
std::pair<uint64_t, uint64_t> parse_shard(const std::string& s);  // "K/N"
TargetFactory target_or_throw(const std::string& name);
TargetOptions target_options_of(const po::variables_map& vm);
Checks checks_of(const po::variables_map& vm);
void add_target_and_check_options(po::options_description& desc);
// A shrunk trace's own description: what it fails and where it came from;
// the rule and the seed of the original no longer describe it.
void describe_shrunk(Trace* shrunk, const std::string& from, const Failure& failure);
// Parses `args`; the first positional argument, if `positional` names one, fills it.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const char* positional = nullptr);

}  // namespace pinsim::cli
