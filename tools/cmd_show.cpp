// `pinsim show TRACE -o report.html`: replays a trace (on the model, and on a
// target when named, with the same checks as replay) and draws it
// (show_html.h); a trace with concurrent rounds is drawn as the interleaving
// of its last round run (history_html.h). Exit 0 when the file is written,
// whether the trace passes or fails; the picture says which.
#include <iostream>
#include <variant>

#include "campaign.h"
#include "cli.h"
#include "concurrent_lane.h"
#include "history_html.h"
#include "show_html.h"
#include "trace.h"

namespace pinsim::cli {

namespace {

// Every step's outcomes and Views, on the model and on the target, up to and
// including the failing step.
std::vector<ShownStep> record(const Trace& trace, TargetFactory factory, const TargetOptions& options, size_t upto) {
  auto created = Model::create(trace.config);
  if (auto* why = std::get_if<std::string>(&created)) throw UsageError("$.config: " + *why);
  Model model = std::get<Model>(std::move(created));
  std::string error;
  auto target = factory(trace.config, options, &error);
  if (!target) throw UsageError("the target refuses the trace's configuration: " + error);
  std::vector<ShownStep> steps;
  for (size_t i = 0; i < trace.steps.size() && i <= upto; ++i) {
    const TraceStep& s = trace.steps[i];
    ShownStep shown{s.t, s.op, model.apply(s.op, s.t), target->apply(s.op, s.t), {}, {}};
    shown.model_view = model.view(s.t);
    shown.target_view = target->view(s.t);
    steps.push_back(std::move(shown));
  }
  return steps;
}

// A trace with concurrent rounds: its last round run (the failing one, if
// any) as an interleaving (history_html.h), the verdict under it.
int show_interleaving(const Trace& trace, const TraceRun& run, const std::string& path, const std::string& out) {
  sched::History last;
  const RunResult r = sched::replay_concurrent(trace, run.factory, run.options, run.checks, &last);
  if (!r.error.empty()) throw UsageError(path + ": " + r.error);
  const ConcurrentSettings& settings = trace.concurrent->settings;
  sched::ShownHistory shown;
  shown.title = path + (trace.description.empty() ? "" : ": " + trace.description);
  for (uint32_t i = 0; i < settings.clients; ++i) shown.actors.push_back("client " + std::to_string(i));
  for (const std::string& b : settings.background) shown.actors.push_back(b);
  for (const TraceStep& step : trace.steps)
    if (step.op.kind != OpKind::Advance) shown.prefix.push_back({step.t, step.op});
  shown.history = &last;
  const size_t rounds = r.trace.concurrent ? r.trace.concurrent->rounds.size() : 0;
  shown.verdict = "round " + std::to_string(rounds) + " of " + std::to_string(trace.concurrent->rounds.size()) +
                  (r.failure ? ": fails, " + r.failure->what + " " + r.failure->field : ": every round passes");
  if (r.failure) shown.detail = r.failure->detail;
  write_file(out, sched::render_history_html(shown));
  std::cout << out << ": round " << rounds << " drawn (" << last.calls.size() << " calls)"
            << (r.failure ? ", failing" : "") << "\n";
  return 0;
}

}  // namespace

int cmd_show(const std::vector<std::string>& args) {
  po::options_description desc("pinsim show");
  desc.add_options()
      ("trace", po::value<std::string>(), "trace file")
      ("output,o", po::value<std::string>()->default_value("pinsim-report.html"), "the HTML file to write");
  add_trace_run_options(desc);
  const po::variables_map vm = parse(args, desc, "trace");
  if (!vm.count("trace")) throw UsageError("show: missing trace file");
  const std::string path = vm["trace"].as<std::string>();
  const std::string out = vm["output"].as<std::string>();
  const Trace trace = load_trace(path);
  const TraceRun run = trace_run_of(vm, trace, path);
  if (trace.concurrent) return show_interleaving(trace, run, path, out);
  const RunResult r = replay(trace, run.factory, run.options, run.checks);
  if (!r.error.empty()) throw UsageError(path + ": $.config: " + r.error);
  ShowInput in;
  in.title = path + (trace.description.empty() ? "" : ": " + trace.description);
  in.target = run.flags.target;
  in.failure = r.failure;
  in.went_on = r.trace.went_on;
  in.steps = record(trace, run.factory, run.options, r.failure ? r.failure->step : trace.steps.size());
  write_file(out, render_show_html(in));
  std::cout << out << ": " << in.steps.size() << " steps drawn" << (r.failure ? ", failing at step " + std::to_string(r.failure->step) : "")
            << "\n";
  return 0;
}

}  // namespace pinsim::cli
