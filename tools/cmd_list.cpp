// `pinsim list faults|properties|rules|targets|ops|presets`: what this build
// knows, each with its one-line meaning, from the same tables the code uses.
#include <cstdio>
#include <iterator>

#include "cli.h"
#include "presets.h"
#include "property.h"
#include "rules.h"
#include "targets.h"
#ifdef PINSIM_HAVE_EMBEDDED
#include "faults.h"
#endif

namespace pinsim::cli {

namespace {

const char* kOpClassNames[] = {"start",  "end",    "revoke",  "read",  "remove",
                               "retention", "master", "policy", "segment", "replication", "clock"};
static_assert(std::size(kOpClassNames) == static_cast<size_t>(OpClass::Clock) + 1, "one name per OpClass");

void list_ops() {
  for (const OpInfo& op : kOpTable)
    std::printf("%-18s %-9s weight %2u\n", std::string(op.name).c_str(), kOpClassNames[static_cast<int>(op.cls)], op.weight);
}

void list_faults() {
#ifdef PINSIM_HAVE_EMBEDDED
  for (const embedded::FaultInfo& f : embedded::fault_catalogue())
    std::printf("%-4s %s\n", std::string(f.name).c_str(), std::string(f.summary).c_str());
#else
  std::printf("(this build has no embedded target, so no seeded faults)\n");
#endif
}

}  // namespace

int cmd_list(const std::vector<std::string>& args) {
  po::options_description desc("pinsim list");
  desc.add_options()("what", po::value<std::string>(), "faults, properties, rules, targets, ops or presets");
  const po::variables_map vm = parse(args, desc, "what");
  const std::string what = vm.count("what") ? vm["what"].as<std::string>() : "";
  if (what == "ops") list_ops();
  else if (what == "faults") list_faults();
  else if (what == "properties")
    for (const StepCheck* p : all_properties()) std::printf("%-4s %s\n", std::string(p->id()).c_str(), std::string(p->rule()).c_str());
  else if (what == "rules")
    for (const RuleInfo& r : rule_catalogue())
      std::printf("%-24s %s (%s)\n", std::string(r.name).c_str(), std::string(r.summary).c_str(), std::string(r.source).c_str());
  else if (what == "targets")
    for (const std::string& t : target_names()) std::printf("%s\n", t.c_str());
  else if (what == "presets")
    for (const Preset& p : presets()) std::printf("%-10s %s\n", std::string(p.name).c_str(), std::string(p.summary).c_str());
  else
    throw UsageError("list: expected one of faults, properties, rules, targets, ops, presets");
  return 0;
}

}  // namespace pinsim::cli
