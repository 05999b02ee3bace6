// The concurrent part of a trace (`"concurrent"`, docs/trace-format.md): a run
// of several actors at once under the deterministic scheduler (sim/sched),
// recorded as its settings and, per round, the virtual time, each actor's
// script and the schedule (the actor chosen at each decision with more than
// one runnable actor). The rounds follow the trace's sequential steps; replay
// runs the same scripts under the recorded schedule.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "op.h"
#include "virtual_time.h"

namespace pinsim {

struct ConcurrentSettings {
  uint32_t clients = 0;                 // client actors (scripts drawn from the workload)
  std::vector<std::string> background;  // background actors, in order: "evict", "cleanup"
  uint32_t ops_per_round = 4;           // per actor and round
  uint32_t rounds = 5;
  std::string schedule = "random";      // random, pct, odometer
  uint32_t preempt_pct = 100;           // random: how often the running actor may be preempted
  uint32_t pct_depth = 3;               // pct: d (d-1 change points)
  uint32_t preempt_bound = 2;           // odometer: at most K preemptions per round
  // The Mooncake lane's: "in_call", an unmount's sweep of the objects it left
  // without a replica runs inside the call; "after_round", as MasterService's
  // replica-cleanup worker may, after every call of the round.
  std::string unmount_sweep = "in_call";
  bool operator==(const ConcurrentSettings&) const = default;
};

struct ConcurrentRound {
  Time t = 0;                               // every call of the round runs at this time
  std::vector<std::vector<Op>> scripts;     // per actor: clients first, then background
  std::vector<uint32_t> schedule;           // the decisions, in order
  bool operator==(const ConcurrentRound&) const = default;
};

struct ConcurrentRun {
  ConcurrentSettings settings;
  std::vector<ConcurrentRound> rounds;
  bool operator==(const ConcurrentRun&) const = default;
};

nlohmann::json encode_concurrent(const ConcurrentRun& run);
// Throws DecodeError("$.concurrent...: reason"); `clock`: the time after the
// sequential steps, which the first round may not precede.
ConcurrentRun decode_concurrent(const nlohmann::json& j, Time clock);

}  // namespace pinsim
