// A first end-to-end check of the model through the fixture.
#include "model_fixture.h"

namespace pinsim::test {

TEST_F(ModelTest, Rfc2_EnableDeadlineIsCompletionPlusTtl) {
  ASSERT_EQ(put_start(1, enable(5000)), ErrorCode::OK);
  EXPECT_EQ(gauge(), 0);  // nothing moves at Start (B10)
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 5000);
  EXPECT_EQ(gauge(), 1);
}

}  // namespace pinsim::test
