// A picture of an interleaving: one self-contained HTML file (inline SVG, no
// external assets) with a row per actor and each call drawn from its
// invocation to its return on the scheduler's event clock, so that who
// overlapped whom is seen at a glance, with the verdict of the checks under
// it. The Mooncake lane writes it for a replayed trace (`--html`).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "concurrent.h"

namespace pinsim::sched {

struct ShownHistory {
  std::string title;
  std::vector<std::string> actors;              // a name per actor index ("client 0", "evict", ...)
  std::vector<std::pair<Time, Op>> prefix;      // the sequential steps before the calls
  const History* history = nullptr;
  std::string verdict;  // one line: passes, or what failed and its signature
  std::string detail;   // the checker's account of a failure, or ""
};

std::string render_history_html(const ShownHistory& in);

}  // namespace pinsim::sched
