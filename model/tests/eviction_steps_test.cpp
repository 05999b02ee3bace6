// BatchEvict as its steps (Model::evict_begin and the step functions): run
// back to back they are Model::evict; with a write between them, pass 1
// still never takes a hard-pinned object (rule hardpin.never-evicted).
#include "model_fixture.h"

namespace pinsim::test {

class EvictionStepsTest : public ModelTest {
 protected:
  // k1 pinned, k2 and k3 unpinned, k4 read (leased); all leases but k4's expired.
  void objects() {
    ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(put(2, preserve()), ErrorCode::OK);
    ASSERT_EQ(put(3, preserve(), 128), ErrorCode::OK);
    ASSERT_EQ(put(4, preserve()), ErrorCode::OK);
    advance(20000);
    get(4);
  }
  void in_steps(uint32_t target, uint32_t lowerbound) {
    EvictionRun run;
    const Op op{.kind = OpKind::Evict, .evict_target_pct = target, .evict_lowerbound_pct = lowerbound};
    ASSERT_EQ(m().evict_begin(op, &run).code, ErrorCode::OK);
    for (KeyId k = 1; k <= 4; ++k) m().evict_census_step(run, {0, k}, now);
    for (KeyId k = 1; k <= 4; ++k) m().evict_pass1_step(run, {0, k}, now);
    m().evict_release_step(run, now);
    for (KeyId k = 1; k <= 4; ++k) m().evict_pass2_step(run, {0, k}, now);
  }
};

TEST_F(EvictionStepsTest, BackToBackStepsAreEvict) {
  for (auto [target, lowerbound] : {std::pair{100u, 100u}, {100u, 0u}, {50u, 50u}, {30u, 100u}, {0u, 0u}}) {
    reset();
    objects();
    Model whole = m();
    ASSERT_EQ(whole.apply({.kind = OpKind::Evict, .evict_target_pct = target, .evict_lowerbound_pct = lowerbound},
                          now).code,
              ErrorCode::OK);
    in_steps(target, lowerbound);
    EXPECT_EQ(m().view(now), whole.view(now)) << target << "/" << lowerbound;
  }
}

TEST_F(EvictionStepsTest, HardPinNeverEvicted_WrittenAfterTheCensus) {
  ASSERT_EQ(put(2, preserve()), ErrorCode::OK);
  advance(20000);
  EvictionRun run;
  ASSERT_EQ(m().evict_begin({.kind = OpKind::Evict, .evict_target_pct = 100, .evict_lowerbound_pct = 100}, &run).code,
            ErrorCode::OK);
  m().evict_census_step(run, {0, 2}, now);  // k2 is a candidate
  ASSERT_EQ(remove(2), ErrorCode::OK);
  Op start = start_op(OpKind::PutStart, 2, preserve(), 64, 1, 0, 0, 1, 0);
  start.hard_pin = true;
  ASSERT_EQ(apply(start).code, ErrorCode::OK);
  ASSERT_EQ(end(2), ErrorCode::OK);
  m().evict_pass1_step(run, {0, 2}, now);
  m().evict_release_step(run, now);
  m().evict_pass2_step(run, {0, 2}, now);
  EXPECT_TRUE(exists_in_view(2));
}

}  // namespace pinsim::test
