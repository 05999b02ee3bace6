// Rendering of an interleaving; see history_html.h. Event e of the
// scheduler's clock is drawn at x = kLeft + e * kTickW.
#include "history_html.h"

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_codec.h"
#include "markup.h"

namespace pinsim::sched {

namespace {

constexpr int kLeft = 110, kTickW = 100, kRowH = 46, kTop = 30;

// "k2 hard", "g1", "": what a box says of its call's object, under its op.
std::string object_label(const Op& op) {
  std::string s;
  if (is_key_op(op.kind)) s += "k" + std::to_string(op.object.key);
  if (op.kind == OpKind::RetainGroups && !op.groups.empty()) s += "g" + std::to_string(op.groups.front());
  if (op.hard_pin) s += " hard";
  return s;
}

void call_box(std::ostringstream& svg, const Call& c) {
  const int x = kLeft + static_cast<int>(c.invoked) * kTickW;
  const int w = std::max(1, static_cast<int>(c.returned - c.invoked)) * kTickW - 4;
  const int y = kTop + static_cast<int>(c.actor) * kRowH + 6;
  const bool ok = c.outcome.code == ErrorCode::OK;
  const std::string tip = encode_op(c.op).dump() + " -> " + encode_outcome(c.outcome).dump();
  svg << "<g class=\"call\"><title>" << markup_escape(tip) << "</title><rect x=\"" << x << "\" y=\"" << y
      << "\" width=\"" << w << "\" height=\"" << kRowH - 12 << "\" rx=\"4\" fill=\"" << (ok ? "#cfe8cf" : "#f6d5b0")
      << "\" stroke=\"#555\"/><text x=\"" << x + 4 << "\" y=\"" << y + 14 << "\">" << to_string(c.op.kind)
      << "</text><text x=\"" << x + 4 << "\" y=\"" << y + 28 << "\" class=\"out\">"
      << markup_escape(object_label(c.op)) << (object_label(c.op).empty() ? "" : ": ") << to_string(c.outcome.code)
      << "</text></g>";
}

std::string svg_of(const ShownHistory& in) {
  const History& h = *in.history;
  uint64_t last = 1;
  for (const Call& c : h.calls) last = std::max(last, c.returned);
  const int width = kLeft + static_cast<int>(last + 1) * kTickW;
  const int height = kTop + static_cast<int>(in.actors.size()) * kRowH + 10;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\">";
  for (uint64_t e = 1; e <= last; ++e)
    svg << "<text x=\"" << kLeft + static_cast<int>(e) * kTickW - 3 << "\" y=\"16\" class=\"tick\">" << e << "</text>";
  for (size_t a = 0; a < in.actors.size(); ++a)
    svg << "<text x=\"6\" y=\"" << kTop + static_cast<int>(a) * kRowH + 28 << "\">" << markup_escape(in.actors[a])
        << "</text>";
  for (const Call& c : h.calls) call_box(svg, c);
  svg << "</svg>";
  return svg.str();
}

}  // namespace

std::string render_history_html(const ShownHistory& in) {
  std::ostringstream html;
  html << "<!doctype html><html><head><meta charset=\"utf-8\"><title>" << markup_escape(in.title)
       << "</title><style>body{font:14px sans-serif;margin:16px}text{font:12px monospace}.out{fill:#333}"
          ".tick{fill:#888}pre{white-space:pre-wrap;background:#f4f4f4;padding:8px}</style></head><body><h3>"
       << markup_escape(in.title) << "</h3><p>Each row is an actor; a box runs from the call's invocation to its "
       << "return on the scheduler's event clock (numbers on top). Hover a box for the whole op and outcome.</p>"
       << svg_of(in) << "<p><b>" << markup_escape(in.verdict) << "</b></p>";
  if (!in.detail.empty()) html << "<details><summary>the checker's account</summary><pre>" << markup_escape(in.detail)
                               << "</pre></details>";
  html << "<details><summary>the " << in.prefix.size() << " sequential steps before the calls</summary><pre>";
  for (const auto& [t, op] : in.prefix) html << "t=" << t << " " << markup_escape(encode_op(op).dump()) << "\n";
  html << "</pre></details><details><summary>the target's View at the end</summary><pre>"
       << markup_escape(encode_view(in.history->final_view).dump(1)) << "</pre></details></body></html>\n";
  return html.str();
}

}  // namespace pinsim::sched
