// How the scheduler picks the next actor at a decision with more than one
// runnable actor. Each policy draws from Choices, so a seed gives one
// interleaving and the odometer enumerates them; replay follows a recorded
// decision list. Four policies:
//   random    a uniform choice, or with preempt_pct < 100 the running actor
//             goes on unless a rare coin says otherwise;
//   pct       PCT (probabilistic concurrency testing): random distinct
//             priorities, the highest runnable one runs, and at d-1 random
//             change points over the expected number of decisions the running
//             actor drops below every other;
//   bounded   the odometer's exhaustive enumeration with at most K
//             preemptions per run (CHESS's preemption bound): the running
//             actor is the first option, so runs without preemption come first;
//   replay    the recorded decisions; where a recorded actor cannot run (an
//             edited script), the running actor goes on, else the lowest.
// A preemption is a switch away from an actor that could have gone on.
#pragma once
#include <cstdint>
#include <vector>

#include "choices.h"

namespace pinsim::sched {

class Policy {
 public:
  virtual ~Policy() = default;
  // `runnable`: the actors that can run, ascending, at least two; `current`:
  // the actor that was running when it is among them, else -1.
  virtual int choose(const std::vector<int>& runnable, int current) = 0;
};

class RandomPolicy final : public Policy {
 public:
  RandomPolicy(Choices& choices, uint32_t preempt_pct) : choices_(choices), preempt_pct_(preempt_pct) {}
  int choose(const std::vector<int>& runnable, int current) override;

 private:
  Choices& choices_;
  uint32_t preempt_pct_;
};

class PctPolicy final : public Policy {
 public:
  // `depth` d >= 1: d-1 change points drawn over [0, expected_steps).
  PctPolicy(Choices& choices, uint32_t actors, uint32_t depth, uint64_t expected_steps);
  int choose(const std::vector<int>& runnable, int current) override;

 private:
  std::vector<uint64_t> priority_;       // per actor; higher runs first
  std::vector<uint64_t> change_points_;  // decision indices, ascending
  size_t next_change_ = 0;
  uint64_t step_ = 0;
};

class BoundedPolicy final : public Policy {
 public:
  BoundedPolicy(Choices& choices, uint32_t preempt_bound) : choices_(choices), bound_(preempt_bound) {}
  int choose(const std::vector<int>& runnable, int current) override;

 private:
  Choices& choices_;
  uint32_t bound_;
  uint32_t used_ = 0;
};

class ReplayPolicy final : public Policy {
 public:
  // A decision that lets the running actor go on (no preemption there): what
  // the schedule shrinker writes in place of a preemption; never in a trace.
  static constexpr uint32_t kGoOn = UINT32_MAX;
  explicit ReplayPolicy(std::vector<uint32_t> decisions) : decisions_(std::move(decisions)) {}
  int choose(const std::vector<int>& runnable, int current) override;
  // Whether some recorded decision could not be followed (or the list ran out).
  bool diverged() const { return diverged_; }

 private:
  std::vector<uint32_t> decisions_;
  size_t pos_ = 0;
  bool diverged_ = false;
};

}  // namespace pinsim::sched
