// Rendering of a trace as HTML + SVG; see show_html.h. Step i is drawn at
// x = kLeft + i * kStepW; virtual time is printed under each step.
#include "show_html.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_codec.h"
#include "markup.h"

namespace pinsim {

namespace {

constexpr int kLeft = 120, kStepW = 44, kLaneH = 34, kTop = 70;


const ObjectView* find(const View& v, ObjectId id) {
  for (const ObjectView& o : v.objects)
    if (o.id == id) return &o;
  return nullptr;
}

void rect(std::ostringstream& svg, int x, int y, int w, int h, const char* fill, const std::string& title) {
  svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"" << fill
      << "\"><title>" << markup_escape(title) << "</title></rect>";
}

// One object's lane: a cell per step where it exists.
void object_lane(std::ostringstream& svg, const ShowInput& in, ObjectId id, int y) {
  svg << "<g class=\"lane\" data-lane=\"" << object_name(id) << "\"><text x=\"8\" y=\"" << y + 20 << "\">" << object_name(id) << "</text>";
  for (size_t i = 0; i < in.steps.size(); ++i) {
    const ShownStep& s = in.steps[i];
    const ObjectView* o = find(s.model_view, id);
    if (!o) continue;
    const int x = kLeft + static_cast<int>(i) * kStepW;
    const bool active = o->deadline && *o->deadline > s.t;
    const char* pin = active ? "#2e7d32" : o->deadline ? "#9e9e9e" : "#e0e0e0";
    const uint32_t complete =
        o->complete_memory + o->complete_nof + o->complete_disk + o->complete_dfs + o->complete_local;
    const std::string what = "step " + std::to_string(i) + " t=" + std::to_string(s.t) + ": " +
                             std::to_string(complete) + " COMPLETE, " +
                             std::to_string(o->processing) + " PROCESSING, deadline " +
                             (o->deadline ? std::to_string(*o->deadline) + (active ? " (Active)" : " (expired)") : "none") +
                             ", lease " + std::to_string(o->lease) + ", group " + std::to_string(o->group) +
                             (o->pending ? ", Pending " + std::string(to_string(o->pending->action)) : "");
    rect(svg, x + 1, y, kStepW - 2, 12, pin, what);                                  // the pin
    if (o->pending) rect(svg, x + 1, y + 13, kStepW - 2, 6, "#f9a825", what);         // Pending
    if (o->lease > s.t) rect(svg, x + 1, y + 20, kStepW - 2, 4, "#1565c0", what);     // live lease
    svg << "<text x=\"" << x + 3 << "\" y=\"" << y + 10 << "\" font-size=\"9\" fill=\"white\">"
        << complete << (o->processing ? "+" + std::to_string(o->processing) + "p" : "")
        << "</text>";
  }
  svg << "</g>";
}

void gauge_line(std::ostringstream& svg, const ShowInput& in, int y, int h) {
  int64_t max = 1;
  for (const ShownStep& s : in.steps) max = std::max(max, s.model_view.gauge);
  svg << "<g class=\"gauge\"><text x=\"8\" y=\"" << y + h / 2 << "\">gauge</text><polyline fill=\"none\" stroke=\"#2e7d32\" points=\"";
  for (size_t i = 0; i < in.steps.size(); ++i) {
    const int x = kLeft + static_cast<int>(i) * kStepW + kStepW / 2;
    svg << x << "," << y + h - static_cast<int>(in.steps[i].model_view.gauge * h / max) << " ";
  }
  svg << "\"/></g>";
}

void retention_lanes(std::ostringstream& svg, const ShowInput& in, int y) {
  std::set<std::pair<TenantId, GroupId>> groups;
  for (const ShownStep& s : in.steps)
    for (const RetentionView& r : s.model_view.retention) groups.insert({r.tenant, r.group});
  for (const auto& [tenant, group] : groups) {
    svg << "<g class=\"lane\" data-lane=\"retention t" << tenant << "/g" << group << "\"><text x=\"8\" y=\"" << y + 12
        << "\">ret t" << tenant << "/g" << group << "</text>";
    for (size_t i = 0; i < in.steps.size(); ++i)
      for (const RetentionView& r : in.steps[i].model_view.retention)
        if (r.tenant == tenant && r.group == group)
          rect(svg, kLeft + static_cast<int>(i) * kStepW + 1, y + 2, kStepW - 2, 12, "#6a1b9a",
               "retained until " + std::to_string(r.deadline));
    svg << "</g>";
    y += 20;
  }
}

void step_marks(std::ostringstream& svg, const ShowInput& in, int height) {
  for (size_t i = 0; i < in.steps.size(); ++i) {
    const int x = kLeft + static_cast<int>(i) * kStepW;
    const bool failing = in.failure && in.failure->step == i;
    const bool gone_past =
        std::any_of(in.went_on.begin(), in.went_on.end(), [i](const WentOnPast& w) { return w.step == i; });
    const char* colour = failing ? "#c62828" : gone_past ? "#ef6c00" : "#eeeeee";
    svg << "<g class=\"step\"" << (failing ? " data-failing=\"true\"" : gone_past ? " data-gone-past=\"true\"" : "")
        << "><line x1=\"" << x << "\" y1=\"20\" x2=\"" << x << "\" y2=\"" << height << "\" stroke=\"" << colour << "\""
        << (failing || gone_past ? " stroke-width=\"3\"" : "")
        << "/><text x=\"" << x + 2 << "\" y=\"30\" font-size=\"9\" transform=\"rotate(-30 " << x + 2 << " 30)\">"
        << markup_escape(std::string(to_string(in.steps[i].op.kind))) << "</text><text x=\"" << x + 2 << "\" y=\"" << kTop - 8
        << "\" font-size=\"8\" fill=\"#757575\">" << in.steps[i].t << "</text></g>";
  }
}

// The fields that differ at the failing step, one row each, labelled by side.
std::string diff_table(const Failure& f) {
  if (f.diff.empty()) return "";
  std::string t = "<table class=\"diff\"><tr><th>object</th><th>field</th><th>" + markup_escape(f.left) + "</th><th>" +
                  markup_escape(f.right) + "</th></tr>";
  for (const FieldDiff& d : f.diff)
    t += "<tr><td>" + markup_escape(d.object) + "</td><td>" + markup_escape(d.field) + "</td><td>" +
         markup_escape(d.left) + "</td><td>" + markup_escape(d.right) + "</td></tr>";
  return t + "</table>";
}

// At the failing step: what failed, the fields that differ, then the model's and the target's View
// (and, for an expectation, the expected and actual values) side by side.
void failure_table(std::ostringstream& html, const ShowInput& in) {
  for (const WentOnPast& w : in.went_on)
    html << "<p class=\"gone-past\">Went on past known finding " << markup_escape(w.finding) << " at step " << w.step
         << " (" << markup_escape(w.signature) << ", amber): a standing offset of a metric, compared so after it.</p>";
  if (!in.failure) {
    html << "<p class=\"verdict pass\">Every step matched.</p>";
    return;
  }
  const Failure& f = *in.failure;
  const ShownStep& s = in.steps.back();
  const std::string target = in.target.empty() ? "target" : in.target;
  html << "<h2 class=\"verdict fail\">Failed at step " << f.step << " (" << markup_escape(f.what) << "): "
       << markup_escape(std::string(to_string(s.op.kind))) << " at t=" << s.t << "</h2><p>" << markup_escape(f.detail) << "</p>"
       << diff_table(f)
       << "<table class=\"side-by-side\"><tr><th></th><th>model</th><th>" << markup_escape(target) << "</th></tr>"
       << "<tr><th>outcome</th><td><pre>" << markup_escape(encode_outcome(s.model_outcome).dump()) << "</pre></td><td><pre>"
       << markup_escape(encode_outcome(s.target_outcome).dump()) << "</pre></td></tr>"
       << "<tr><th>View</th><td><pre>" << markup_escape(encode_view(s.model_view).dump(1)) << "</pre></td><td><pre>"
       << markup_escape(encode_view(s.target_view).dump(1)) << "</pre></td></tr>";
  if (!f.expected.empty())
    html << "<tr><th>expected / actual</th><td><pre>" << markup_escape(f.expected) << "</pre></td><td><pre>" << markup_escape(f.actual)
         << "</pre></td></tr>";
  html << "</table>";
}

}  // namespace

std::string render_show_html(const ShowInput& in) {
  std::set<ObjectId> ids;
  for (const ShownStep& s : in.steps)
    for (const ObjectView& o : s.model_view.objects) ids.insert(o.id);
  std::ostringstream svg;
  int y = kTop;
  for (ObjectId id : ids) {
    object_lane(svg, in, id, y);
    y += kLaneH;
  }
  gauge_line(svg, in, y, 40);
  y += 56;
  retention_lanes(svg, in, y);
  y += 20 * 4;
  std::ostringstream marks;
  step_marks(marks, in, y);
  const int width = kLeft + static_cast<int>(in.steps.size()) * kStepW + 20;
  std::ostringstream html;
  html << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" << markup_escape(in.title) << "</title><style>"
       << "body{font-family:sans-serif;margin:16px}text{font-family:sans-serif;font-size:11px}"
       << ".fail{color:#c62828}.pass{color:#2e7d32}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
       << "padding:4px;vertical-align:top}pre{white-space:pre-wrap;max-width:560px;font-size:11px}</style></head><body>"
       << "<h1>" << markup_escape(in.title) << "</h1><p>Lanes per object over the steps: pin (green Active, grey expired), "
       << "Pending (amber), live lease (blue); the number is COMPLETE replicas, +Np PROCESSING. Hover a cell for values."
       << "</p><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << y << "\">" << marks.str()
       << svg.str() << "</svg>";
  failure_table(html, in);
  html << "</body></html>\n";
  return html.str();
}

}  // namespace pinsim
