// The summary writers; see summary.h.
#include "summary.h"

#include <sstream>

#include "markup.h"

namespace pinsim {

using nlohmann::json;

std::string summary_json(const Summary& s) {
  json j = s.extra;
  j.update(json{{"format", "pinsim-" + s.command}, {"target", s.target}, {"tree", s.tree}, {"verdict", s.verdict},
                {"seconds", s.seconds}});
  json runs = json::array();
  for (const PresetRun& p : s.runs)
    runs.push_back({{"preset", p.preset}, {"seeds_run", p.seeds_run}, {"refused", p.refused}, {"steps", p.steps},
                    {"started", p.started}, {"seeds", p.seeds}});
  j["runs"] = runs;
  json fails = json::array();
  for (const SummaryFailure& f : s.failures)
    fails.push_back({{"source", f.source}, {"signature", f.signature}, {"verdict", f.verdict}, {"known", f.known},
                     {"detail", f.detail}, {"trace", f.trace}, {"shrunk", f.shrunk}, {"seconds", f.seconds},
                     {"budget_needed", f.budget_needed}, {"fingerprint", f.fingerprint}, {"base", f.base}});
  j["failures"] = fails;
  return j.dump(1) + "\n";
}

std::string junit_xml(const std::string& suite, const std::vector<JUnitCase>& cases) {
  size_t failures = 0;
  for (const JUnitCase& c : cases) failures += c.failures.size();
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" << markup_escape(suite) << "\" tests=\""
    << cases.size() << "\" failures=\"" << failures << "\">\n";
  for (const JUnitCase& c : cases) {
    x << "  <testcase classname=\"" << markup_escape(c.classname) << "\" name=\"" << markup_escape(c.name) << "\">";
    for (const auto& [message, text] : c.failures)
      x << "<failure message=\"" << markup_escape(message) << "\">" << markup_escape(text) << "</failure>";
    if (!c.skipped.empty()) x << "<skipped message=\"" << markup_escape(c.skipped) << "\"/>";
    if (!c.system_out.empty()) x << "<system-out>" << markup_escape(c.system_out) << "</system-out>";
    x << "</testcase>\n";
  }
  x << "</testsuite>\n";
  return x.str();
}

}  // namespace pinsim
