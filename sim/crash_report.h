// When the target under test brings the process down (a defect in a real
// master can dereference a bad iterator), the job still says which run did it
// and leaves the steps so far as a trace that replays: a red CI job with a
// counterexample, not a bare "Segmentation fault". The seed loop and replay
// say what runs; a fatal signal then prints one line naming the run, the step
// and the op, writes the trace (best effort, under a 10-second alarm, since
// the heap may be what broke), and ends the process with the same signal.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace pinsim {

struct Op;
struct Trace;
struct RunFlags;

namespace crash_report {

// Installs the handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT). The trace
// of a crashed run goes to `trace_path` (empty: none is written), recording
// `run` (the target and checks) so that `pinsim replay` needs no flags.
// Calling it again changes both.
void install(const std::string& trace_path, const RunFlags* run = nullptr);

// The run in progress, for as long as the scope lives: `what` names it (a
// seed and preset, or a trace file), `trace` holds its steps so far.
class Scope {
 public:
  Scope(const std::string& what, const Trace* trace);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

// The op now being applied at virtual time `t` (the step after the trace's last).
void applying(const Op& op, int64_t t);

}  // namespace crash_report
}  // namespace pinsim
