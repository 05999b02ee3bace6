// The scheduling policies; see policies.h.
#include "policies.h"

#include <algorithm>

namespace pinsim::sched {

int RandomPolicy::choose(const std::vector<int>& runnable, int current) {
  if (preempt_pct_ < 100 && current >= 0 && !choices_.chance(preempt_pct_)) return current;
  return runnable[choices_.pick(runnable.size())];
}

PctPolicy::PctPolicy(Choices& choices, uint32_t actors, uint32_t depth, uint64_t expected_steps) {
  std::vector<uint64_t> order(actors);  // a random permutation of depth .. depth+actors-1
  for (uint32_t i = 0; i < actors; ++i) order[i] = depth + i;
  for (uint32_t i = actors; i > 1; --i) std::swap(order[i - 1], order[choices.pick(i)]);
  priority_ = std::move(order);
  for (uint32_t i = 1; i < depth; ++i) change_points_.push_back(choices.pick(std::max<uint64_t>(expected_steps, 1)));
  std::sort(change_points_.begin(), change_points_.end());
}

int PctPolicy::choose(const std::vector<int>& runnable, int current) {
  // At the i-th change point the running actor gets priority d-1-i, below
  // every initial one and below the earlier change points' actors.
  for (; next_change_ < change_points_.size() && change_points_[next_change_] <= step_; ++next_change_)
    if (current >= 0) priority_[current] = change_points_.size() - next_change_ - 1;
  ++step_;
  int best = runnable.front();
  for (int a : runnable)
    if (priority_[a] > priority_[best]) best = a;
  return best;
}

int BoundedPolicy::choose(const std::vector<int>& runnable, int current) {
  if (current < 0) return runnable[choices_.pick(runnable.size())];
  if (used_ >= bound_) return current;
  std::vector<int> options{current};  // going on first: runs with fewer preemptions come first
  for (int a : runnable)
    if (a != current) options.push_back(a);
  const int chosen = options[choices_.pick(options.size())];
  used_ += chosen != current;
  return chosen;
}

int ReplayPolicy::choose(const std::vector<int>& runnable, int current) {
  if (pos_ < decisions_.size()) {
    const uint32_t recorded = decisions_[pos_++];
    if (recorded == kGoOn) return current >= 0 ? current : runnable.front();
    const int want = static_cast<int>(recorded);
    if (std::find(runnable.begin(), runnable.end(), want) != runnable.end()) return want;
  }
  diverged_ = true;
  return current >= 0 ? current : runnable.front();
}

}  // namespace pinsim::sched
