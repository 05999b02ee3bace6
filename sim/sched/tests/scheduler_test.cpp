// The deterministic scheduler on small programs with known interleavings:
// one actor at a time, the same choices give the same schedule, a lost
// update behind a yield is found, locks exclude, and a lock-order cycle
// deadlocks in some schedule, which the run reports and survives.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "scheduler.h"

namespace pinsim::sched {
namespace {

// Two actors each add 1 to x by reading, yielding, writing: some schedules
// lose an update. With `locked`, a std::mutex (through the interposer)
// guards the read-modify-write and none may.
struct Counter {
  int x = 0;
  std::mutex m;
  RunResult run(Choices& c, bool locked) {
    Scheduler s(c);
    for (int a = 0; a < 2; ++a)
      s.spawn([this, locked] {
        std::unique_lock lk(m, std::defer_lock);
        if (locked) lk.lock();
        const int v = x;
        yield_point();
        x = v + 1;
      });
    return s.run();
  }
};

TEST(Scheduler, SameChoicesSameScheduleAndOneActorAtATime) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<uint32_t> first;
    for (int rep = 0; rep < 2; ++rep) {
      RandomChoices c(seed);
      Scheduler s(c);
      std::atomic<int> current{-1};
      int overlaps = 0;
      for (int a = 0; a < 3; ++a)
        s.spawn([&, a] {
          for (int i = 0; i < 5; ++i) {
            current = a;
            std::this_thread::yield();  // give a wrongly running thread every chance to interfere
            overlaps += current != a;  // another actor ran between two synchronisation points
            yield_point();
          }
        });
      RunResult r = s.run();
      EXPECT_FALSE(r.deadlock);
      EXPECT_EQ(overlaps, 0);
      if (rep == 0) first = r.schedule;
      else EXPECT_EQ(r.schedule, first) << "seed " << seed;
    }
  }
}

TEST(Scheduler, ExhaustiveSchedulesFindTheLostUpdateAndLocksPreventIt) {
  for (bool locked : {false, true}) {
    OdometerChoices c;
    int runs = 0, lost = 0;
    do {
      Counter k;
      EXPECT_FALSE(k.run(c, locked).deadlock);
      ++runs;
      lost += k.x == 1;
    } while (c.next());
    EXPECT_GT(runs, 1);
    if (locked) EXPECT_EQ(lost, 0);
    else EXPECT_GT(lost, 0);
  }
}

TEST(Scheduler, ALockOrderCycleDeadlocksInSomeScheduleAndTheRunEnds) {
  OdometerChoices c;
  int runs = 0, deadlocks = 0;
  do {
    std::mutex a, b;
    Scheduler s(c);
    s.spawn([&] { std::scoped_lock la(a); std::scoped_lock lb(b); });
    s.spawn([&] { std::scoped_lock lb(b); std::scoped_lock la(a); });
    const RunResult r = s.run();
    deadlocks += r.deadlock;
    EXPECT_EQ(r.lock_cycle.size(), 2u);  // a potential deadlock, seen in every run
    ++runs;
  } while (c.next());
  EXPECT_GT(deadlocks, 0);
  EXPECT_LT(deadlocks, runs);
}

TEST(Scheduler, OneLockOrderHasNoCycle) {
  RandomChoices c(7);
  std::mutex a, b;
  Scheduler s(c);
  for (int i = 0; i < 2; ++i) s.spawn([&] { std::scoped_lock la(a); std::scoped_lock lb(b); });
  const RunResult r = s.run();
  EXPECT_FALSE(r.deadlock);
  EXPECT_TRUE(r.lock_cycle.empty());
}

TEST(Scheduler, SharedLocksAdmitReadersTogetherAndExcludeTheWriter) {
  int together = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    RandomChoices c(seed);
    std::shared_mutex m;
    int readers = 0, most = 0;
    bool writer_alone = true;
    Scheduler s(c);
    for (int a = 0; a < 2; ++a)
      s.spawn([&] {
        std::shared_lock lk(m);
        most = std::max(most, ++readers);
        yield_point();
        --readers;
      });
    s.spawn([&] {
      std::unique_lock lk(m);
      writer_alone = writer_alone && readers == 0;
      yield_point();
      writer_alone = writer_alone && readers == 0;
    });
    EXPECT_FALSE(s.run().deadlock);
    EXPECT_TRUE(writer_alone);
    together += most == 2;
  }
  EXPECT_GT(together, 0);
}

}  // namespace
}  // namespace pinsim::sched
