// Field-level diffs for failure reports: every differing field is named with
// its object and both values; an object missing on one side is one row, not
// a shift of every object after it.
#include <gtest/gtest.h>

#include "field_diff.h"

namespace pinsim {

namespace {

ObjectView object(TenantId t, KeyId k) {
  ObjectView o;
  o.id = {t, k};
  o.size = 32;
  o.complete_memory = 1;
  return o;
}

}  // namespace

TEST(FieldDiff, NamesEveryDifferingFieldWithBothValues) {
  View model, target;
  model.objects = {object(0, 1), object(0, 2), object(0, 3)};
  model.objects[0].lease = 3182767;
  model.objects[2].deadline = 500;
  target.objects = {object(0, 1), object(0, 3)};
  target.objects[1].deadline = std::nullopt;
  model.gauge = 1;
  model.retention = {{0, 2, 900}};
  target.usage = {{1, 64}};
  const std::vector<FieldDiff> want = {
      {"", "gauge", "1", "0"},
      {"t0/k1", "lease", "3182767", "0"},
      {"t0/k2", "present", "yes", "no"},
      {"t0/k3", "deadline", "500", "none"},
      {"t0/g2", "present", "yes", "no"},
      {"t1", "present", "no", "yes"},
  };
  EXPECT_EQ(diff_views(model, target), want);
  EXPECT_TRUE(diff_views(model, model).empty());
}

TEST(FieldDiff, OutcomesDifferPerBatchResult) {
  Outcome a, b;
  a.results = {{ErrorCode::OK, std::nullopt, 1}, {ErrorCode::OBJECT_NOT_FOUND, std::nullopt, std::nullopt}};
  b.results = {{ErrorCode::OK, std::nullopt, 2}, {ErrorCode::OBJECT_NOT_FOUND, std::nullopt, std::nullopt}};
  EXPECT_EQ(diff_outcomes(a, b), (std::vector<FieldDiff>{{"results[0]", "replicas", "1", "2"}}));
  const Outcome found{.code = ErrorCode::OK, .replicas = 1};
  EXPECT_EQ(diff_outcomes(found, Outcome::of(ErrorCode::OBJECT_NOT_FOUND)),
            (std::vector<FieldDiff>{{"", "code", "OK", "OBJECT_NOT_FOUND"}, {"", "replicas", "1", "absent"}}));
}

}  // namespace pinsim
