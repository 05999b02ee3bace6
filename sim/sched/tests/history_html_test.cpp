// The picture of an interleaving is one self-contained HTML file: a row per
// actor, a box per call with its op and outcome, the verdict under it, and
// nothing loaded from elsewhere.
#include <gtest/gtest.h>

#include "history_html.h"

namespace pinsim::sched {
namespace {

TEST(HistoryHtml, DrawsEveryCallInItsActorsRowAndLoadsNothing) {
  History h;
  Op start;
  start.kind = OpKind::UpsertStart;
  start.object = {0, 2};
  start.hard_pin = true;
  Op evict;
  evict.kind = OpKind::Evict;
  h.calls = {{0, start, Outcome{}, 1, 3}, {1, evict, Outcome::of(ErrorCode::OBJECT_NOT_FOUND), 2, 6}};
  const std::string html = render_history_html(
      {"t<1>", {"client 0", "evict"}, {}, &h, "no order of the calls explains them: x", "the <account>"});
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find(">upsert_start<"), std::string::npos);
  EXPECT_NE(html.find("k2 hard: OK"), std::string::npos);
  EXPECT_NE(html.find("OBJECT_NOT_FOUND"), std::string::npos);
  EXPECT_NE(html.find(">evict<"), std::string::npos);
  EXPECT_NE(html.find("t&lt;1&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("the <account>"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
}

}  // namespace
}  // namespace pinsim::sched
