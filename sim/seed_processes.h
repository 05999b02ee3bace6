// Where a campaign's seeds run: in this process, or in N worker processes
// forked from it (--jobs N). Results travel encoded over pipes
// (result_codec.h) and are handed out strictly in seed order, so the seed
// loop sees the same results in the same order whichever worker finished
// first; seeds run ahead of the loop are dropped when it stops early. A seed
// gives the same result in any process because a run depends only on its
// seed and options (targets start every run from the same state). Each
// worker is sent a few seeds ahead, so it starts the next one as soon as it
// has written a result, without waiting for this process to read it.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign.h"

namespace pinsim {

class SeedProcesses {
 public:
  struct Options {
    unsigned jobs = 1;
    std::function<RunResult(uint64_t seed)> run;
    std::function<std::optional<uint64_t>(uint64_t seed)> next;  // the campaign's seed after this one
    bool passing_traces = false;
  };
  explicit SeedProcesses(Options o) : o_(std::move(o)) {}
  ~SeedProcesses();
  SeedProcesses(const SeedProcesses&) = delete;
  SeedProcesses& operator=(const SeedProcesses&) = delete;

  // The result of `seed`, which must be the campaign's next seed after the
  // previous call's (or its first). Throws what the seed's run threw, or
  // std::runtime_error when the process running it died.
  RunResult result(uint64_t seed);

 private:
  struct Worker {
    pid_t pid = -1;
    int request = -1, reply = -1;  // our ends of its pipes
    std::deque<uint64_t> queued;  // the seeds sent to it and not yet answered, in order
  };
  void start_workers();
  void dispatch(uint64_t first);
  void collect();  // waits for one worker's reply

  Options o_;
  std::vector<Worker> workers_;
  std::optional<uint64_t> next_dispatch_;
  bool dispatched_any_ = false;
  std::map<uint64_t, std::pair<bool, std::string>> done_;  // seed -> (ok, encoded result or error)
  void (*previous_sigpipe_)(int) = SIG_DFL;
};

}  // namespace pinsim
