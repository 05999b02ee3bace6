// The crash report; see crash_report.h.
#include "crash_report.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "trace.h"

namespace pinsim::crash_report {

namespace {

// Written by the thread that runs ops, read by the handler on that thread.
char g_what[256];
char g_path[512];
const Trace* g_trace = nullptr;
const Op* g_op = nullptr;
int64_t g_t = 0;
bool g_installed = false;
RunFlags g_run;
bool g_has_run = false;

void say(const char* s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

void say_number(uint64_t n) {
  char buf[24];
  int i = sizeof buf;
  buf[--i] = '\0';
  do buf[--i] = static_cast<char>('0' + n % 10); while ((n /= 10) != 0);
  say(buf + i);
}

// Async-signal-safe: the line that names the run always gets out.
void say_where(int sig) {
  say("pinsim: the process crashed (signal ");
  say_number(static_cast<uint64_t>(sig));
  say(", ");
  say(sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  say(")");
  if (g_trace) {
    say(" in ");
    say(g_what);
    say(", at step ");
    say_number(g_trace->steps.size() + 1);
    if (g_op) {
      say(" (");
      say(to_string(g_op->kind).data());
      say(")");
    }
  }
  say("\n");
}

// Not async-signal-safe (it allocates): tried under an alarm, after the line.
void write_trace() {
  if (!g_trace || !g_path[0]) return;
  Trace t = *g_trace;
  if (g_op) t.steps.push_back(TraceStep{g_t, *g_op, std::nullopt, std::nullopt});
  t.description += ": crashed the process at its last step";
  if (g_has_run) t.run = g_run;
  std::ofstream out(g_path);
  out << pinsim::write_trace(t);
  if (!out) return;
  say("pinsim: its steps, the crashing one last, are in ");
  say(g_path);
  say("; replay it with: pinsim replay ");
  say(g_path);
  say("\n");
}

void on_fatal(int sig) {
  signal(sig, SIG_DFL);
  say_where(sig);
  signal(SIGALRM, SIG_DFL);
  alarm(10);
  write_trace();
  raise(sig);
}

void copy(char* dst, size_t n, const std::string& s) {
  snprintf(dst, n, "%s", s.c_str());
}

}  // namespace

void install(const std::string& trace_path, const RunFlags* run) {
  copy(g_path, sizeof g_path, trace_path);
  g_has_run = run != nullptr;
  if (run) g_run = *run;
  if (g_installed) return;
  g_installed = true;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, on_fatal);
}

Scope::Scope(const std::string& what, const Trace* trace) {
  copy(g_what, sizeof g_what, what);
  g_trace = trace;
  g_op = nullptr;
}

Scope::~Scope() {
  g_trace = nullptr;
  g_op = nullptr;
}

void applying(const Op& op, int64_t t) {
  g_op = &op;
  g_t = t;
}

}  // namespace pinsim::crash_report
