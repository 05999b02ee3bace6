// Seeds in other processes; see seed_processes.h.
#include "seed_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "result_codec.h"

// libgcov's, present only in a coverage build (weak: null in any other).
extern "C" void __gcov_dump(void) __attribute__((weak));

namespace pinsim {

namespace {

// A worker's normal end. A coverage build writes gcov's counters at exit,
// which _exit skips: a worker writes its own first, so a campaign with
// --jobs counts what its workers ran (libgcov merges them into the files).
[[noreturn]] void worker_done() {
  if (__gcov_dump) __gcov_dump();
  _exit(0);
}

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<size_t>(r);
  }
  return true;
}

// One message: the seed, whether it ran (else `text` is the error), the text.
struct Message {
  uint64_t seed = 0;
  bool ok = false;
  std::string text;
};

bool send(int fd, const Message& m) {  // one write: each system call costs a worker time
  const uint64_t head[3] = {m.seed, m.ok ? 1u : 0u, m.text.size()};
  std::string bytes(reinterpret_cast<const char*>(head), sizeof head);
  bytes += m.text;
  return write_all(fd, bytes.data(), bytes.size());
}

std::optional<Message> receive(int fd) {
  uint64_t head[3];
  if (!read_all(fd, head, sizeof head)) return std::nullopt;
  Message m{head[0], head[1] != 0, std::string(head[2], '\0')};
  if (!read_all(fd, m.text.data(), m.text.size())) return std::nullopt;
  return m;
}

// A worker dies with the process that forked it (a campaign ended by a
// signal leaves nothing running).
void die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
}

std::string ended(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                 strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status)) + " before reporting";
}

// Runs `produce` and reports its result or error as one message.
template <typename F>
Message attempt(uint64_t seed, F&& produce) {
  try {
    return {seed, true, produce()};
  } catch (const std::exception& e) {
    return {seed, false, e.what()};
  }
}

}  // namespace

void SeedProcesses::start_workers() {
  // A worker that died shows as a failed write, not as SIGPIPE ending this process.
  previous_sigpipe_ = signal(SIGPIPE, SIG_IGN);
  const pid_t parent = getpid();
  for (unsigned i = 0; i < o_.jobs; ++i) {
    int request[2], reply[2];
    if (pipe(request) != 0 || pipe(reply) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      die_with_parent(parent);
      signal(SIGPIPE, previous_sigpipe_);
      for (const Worker& w : workers_) close(w.request), close(w.reply);
      close(request[1]), close(reply[0]);
      uint64_t seed;
      while (read_all(request[0], &seed, sizeof seed)) {
        const Message m = attempt(seed, [&] { return encode_run_result(o_.run(seed), o_.passing_traces); });
        if (!send(reply[1], m)) _exit(1);
      }
      worker_done();
    }
    close(request[0]), close(reply[1]);
    workers_.push_back({pid, request[1], reply[0], {}});
  }
}

// Hands seeds from `next_dispatch_` on to the workers: a worker whose queue
// is down to kRefillAt gets consecutive seeds up to kQueued in one write,
// while at most kAhead results per worker are in flight or waiting for the
// loop. Fewer, larger writes: each system call costs this process time the
// workers would use.
void SeedProcesses::dispatch(uint64_t first) {
  constexpr size_t kQueued = 8, kRefillAt = 4, kAhead = 12;
  if (!dispatched_any_) next_dispatch_ = first, dispatched_any_ = true;
  size_t in_flight = 0;
  for (const Worker& w : workers_) in_flight += w.queued.size();
  for (Worker& w : workers_) {
    std::vector<uint64_t> seeds;
    if (w.queued.size() > kRefillAt) continue;
    while (next_dispatch_ && w.queued.size() + seeds.size() < kQueued &&
           in_flight + seeds.size() + done_.size() < kAhead * workers_.size()) {
      seeds.push_back(*next_dispatch_);
      next_dispatch_ = o_.next(*next_dispatch_);
    }
    if (seeds.empty()) continue;
    if (!write_all(w.request, seeds.data(), seeds.size() * sizeof seeds[0])) {
      if (!w.queued.empty()) return;  // it died running its first queued seed: collect() names that one
      int status = 0;
      waitpid(w.pid, &status, 0);
      w.pid = -1;
      throw std::runtime_error("seed " + std::to_string(seeds[0]) + ": the worker process to run it " + ended(status));
    }
    w.queued.insert(w.queued.end(), seeds.begin(), seeds.end());
    in_flight += seeds.size();
  }
}

void SeedProcesses::collect() {
  std::vector<pollfd> fds;
  for (const Worker& w : workers_)
    if (!w.queued.empty()) fds.push_back({w.reply, POLLIN, 0});
  if (fds.empty()) throw std::logic_error("SeedProcesses: waiting with no seed in flight");
  while (poll(fds.data(), fds.size(), -1) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  for (Worker& w : workers_) {
    if (w.queued.empty()) continue;
    auto it = std::find_if(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == w.reply; });
    if (!(it->revents & (POLLIN | POLLHUP | POLLERR))) continue;
    std::optional<Message> m = receive(w.reply);  // a worker answers its seeds in the order sent
    if (!m) {
      int status = 0;
      waitpid(w.pid, &status, 0);
      w.pid = -1;
      throw std::runtime_error("seed " + std::to_string(w.queued.front()) + ": the worker process running it " +
                               ended(status));
    }
    done_[m->seed] = {m->ok, std::move(m->text)};
    w.queued.pop_front();
  }
}

RunResult SeedProcesses::result(uint64_t seed) {
  if (o_.jobs <= 1) return o_.run(seed);
  if (workers_.empty()) start_workers();
  for (;;) {
    dispatch(seed);
    if (auto it = done_.find(seed); it != done_.end()) {
      auto [ok, text] = std::move(it->second);
      done_.erase(it);
      dispatch(seed);  // keep the workers busy while the loop handles this one
      if (!ok) throw std::runtime_error(text);
      return decode_run_result(text);
    }
    collect();
  }
}

// Idle workers end at the end of their request pipe; busy ones run seeds the
// loop no longer wants and are killed.
SeedProcesses::~SeedProcesses() {
  for (Worker& w : workers_) {
    close(w.request);
    if (!w.queued.empty() && w.pid > 0) kill(w.pid, SIGKILL);
  }
  for (Worker& w : workers_) {
    if (w.pid > 0)
      while (waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    close(w.reply);
  }
  if (!workers_.empty()) signal(SIGPIPE, previous_sigpipe_);
}

}  // namespace pinsim
