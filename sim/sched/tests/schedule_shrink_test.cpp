// The schedule shrinker's one exception: an undecided failure (the
// linearization search past its budget) is written as run after a single
// replay, while any other failure of the same trace is shrunk. Every lane
// shares this through shrink_schedule.
#include <gtest/gtest.h>

#include <string>

#include "concurrent.h"
#include "schedule_shrink.h"

namespace pinsim::sched {
namespace {

// Two rounds of two clients with two puts each.
Trace two_rounds() {
  Trace t;
  t.concurrent.emplace();
  t.concurrent->settings.clients = 2;
  for (Time at : {Time{0}, Time{10}}) {
    ConcurrentRound r;
    r.t = at;
    for (int a = 0; a < 2; ++a)
      r.scripts.push_back({Op{.kind = OpKind::PutStart, .size = 1}, Op{.kind = OpKind::PutStart, .size = 2}});
    t.concurrent->rounds.push_back(r);
  }
  return t;
}

// A lane where every trace fails with `field`, counting its replays.
ConcurrentReplayer failing_with(const std::string& field, size_t* replays) {
  return [field, replays](const Trace& t) {
    ++*replays;
    pinsim::RunResult r;
    r.trace = t;
    r.failure = Failure{.what = "not-linearizable", .field = field};
    return r;
  };
}

TEST(ScheduleShrink, AnUndecidedFailureIsWrittenAsRunAfterOneReplay) {
  size_t replays = 0;
  const auto r = shrink_schedule(two_rounds(), failing_with(kUndecided, &replays));
  ASSERT_TRUE(r);
  EXPECT_EQ(replays, 1u);
  EXPECT_FALSE(r->not_shrunk.empty());
  EXPECT_EQ(r->trace.concurrent->rounds, two_rounds().concurrent->rounds);
  EXPECT_EQ(r->size, r->original);
}

TEST(ScheduleShrink, AnyOtherFailureOfTheSameTraceIsShrunk) {
  size_t replays = 0;
  const auto r = shrink_schedule(two_rounds(), failing_with("view/hard_pinned:hard", &replays));
  ASSERT_TRUE(r);
  EXPECT_GT(replays, 1u);
  EXPECT_TRUE(r->not_shrunk.empty());
  EXPECT_EQ(r->trace.concurrent->rounds.size(), 1u);
  EXPECT_LT(r->size, r->original);
}

}  // namespace
}  // namespace pinsim::sched
