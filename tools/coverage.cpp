// Rule coverage: rules.h's catalogue joined with the generated locations.
#include "coverage.h"

#include <algorithm>
#include <string>

#include "rule_locations.h"

namespace pinsim {

int print_coverage(const RuleHits& hits, std::FILE* out, const RuleHits* seeds_hitting, uint64_t seeds) {
  int missed = 0;
  int width = 6;  // the source column is as wide as the longest citation
  for (const RuleInfo& info : rule_catalogue()) width = std::max(width, static_cast<int>(info.source.size()));
  const bool shares = seeds_hitting && seeds > 0;
  std::fprintf(out, "%-24s %10s %s %-*s %s\n", "rule", "hits", shares ? " seeds " : "", width, "source",
               "implemented at");
  for (const RuleInfo& info : rule_catalogue()) {
    std::string where;
    for (const RuleLocation& l : kRuleLocations)
      if (l.rule == info.rule) where += (where.empty() ? "" : ", ") + std::string(l.where);
    const uint64_t n = hits[info.rule];
    missed += n == 0;
    char share[16] = "";
    if (shares) std::snprintf(share, sizeof share, "%5.1f%% ", 100.0 * (*seeds_hitting)[info.rule] / seeds);
    std::fprintf(out, "%-24s %10llu %s %-*s %s%s\n", std::string(info.name).c_str(), static_cast<unsigned long long>(n),
                 share, width, std::string(info.source).c_str(), where.c_str(), n == 0 ? "   <- NEVER HIT" : "");
  }
  std::fprintf(out, "rules hit: %d/%d\n", kRuleCount - missed, kRuleCount);
  return missed;
}

}  // namespace pinsim
