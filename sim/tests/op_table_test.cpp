// The op table is the one place an op is declared: the trace schema's op
// list, the wire names and the JSON fields each op writes all follow it. A
// new row that some part does not handle fails here, naming the op.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "json_codec.h"
#include "workload.h"

namespace pinsim {

using nlohmann::json;

TEST(OpTable, SchemaListsExactlyTheTablesOps) {
  std::ifstream in(PINSIM_SCHEMA_FILE);
  ASSERT_TRUE(in) << PINSIM_SCHEMA_FILE;
  const json schema = json::parse(in);
  std::vector<std::string> schema_ops = schema["$defs"]["step"]["properties"]["op"]["enum"];
  std::vector<std::string> table_ops;
  for (const OpInfo& op : kOpTable) table_ops.emplace_back(op.name);
  EXPECT_EQ(schema_ops, table_ops);
}

// The JSON fields an op's encoding carries, from its field bits.
std::set<std::string> expected_fields(OpKind k) {
  std::set<std::string> f{"op"};
  if (has_field(k, kFieldTenant)) f.insert("tenant");
  if (has_field(k, kFieldKey)) f.insert("key");
  if (has_field(k, kFieldKeys)) f.insert("keys");
  if (has_field(k, kFieldPattern)) f.insert("matches");
  if (has_field(k, kFieldQuota)) f.insert("quota");
  if (has_field(k, kFieldSegment)) f.insert("segment");
  if (has_field(k, kFieldTargets)) f.insert("targets");
  if (has_field(k, kFieldProposal)) f.insert("proposal");  // optional on copy ops: the test sets it
  if (has_field(k, kFieldSizes)) f.insert("sizes");
  if (has_field(k, kFieldSize)) f.insert("size");
  if (has_field(k, kFieldWriteConfig)) f.insert({"memory_replicas", "nof_replicas", "soft_pin", "group"});
  if (has_field(k, kFieldSelector)) f.insert("replicas");
  if (has_field(k, kFieldForce)) f.insert("force");
  if (has_field(k, kFieldGroups)) f.insert({"groups", "ttl_ms"});
  if (has_field(k, kFieldEvict)) f.insert({"target_pct", "lowerbound_pct"});
  if (has_field(k, kFieldRestore)) f.insert("fail_first_candidate");
  if (has_field(k, kFieldAdvance)) f.insert("ms");
  return f;
}

TEST(OpTable, EveryOpEncodesItsFieldsAndRoundTrips) {
  for (const OpInfo& info : kOpTable) {
    SCOPED_TRACE(std::string(info.name));
    EXPECT_EQ(to_string(info.kind), info.name);
    EXPECT_EQ(parse_op_kind(info.name), info.kind);
    Op op;
    op.kind = info.kind;
    if (has_field(info.kind, kFieldSize)) op.size = 32;
    if (has_field(info.kind, kFieldKeys) || has_field(info.kind, kFieldPattern)) op.keys = {1, 2, 1};
    if (has_field(info.kind, kFieldSizes)) op.sizes = {32, 64};
    if (has_field(info.kind, kFieldProposal)) op.proposal = 3;
    const json j = encode_op(op);
    std::set<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
    EXPECT_EQ(keys, expected_fields(info.kind));
    EXPECT_EQ(decode_op(j, "$"), op);
  }
}

// A batch op's element is the single op on one key; every batch op names a
// single-key element of its own class, and every other op is its own element.
TEST(OpTable, BatchOpsApplyTheirSingleKeyElement) {
  for (const OpInfo& info : kOpTable) {
    SCOPED_TRACE(std::string(info.name));
    const OpKind e = element_kind(info.kind);
    if (!is_batch(info.kind)) {
      EXPECT_EQ(e, info.kind);
      continue;
    }
    EXPECT_TRUE(is_key_op(e));
    EXPECT_EQ(op_info(e).cls, info.cls);
    EXPECT_EQ(std::string(info.name), "batch_" + std::string(op_info(e).name));
  }
  Op b;
  b.kind = OpKind::BatchUpsertStart;
  b.object.tenant = 1;
  b.keys = {4, 5};
  b.sizes = {32, 64};
  const Op e = batch_element(b, 1);
  EXPECT_EQ(e.kind, OpKind::UpsertStart);
  EXPECT_EQ(e.object, (ObjectId{1, 5}));
  EXPECT_EQ(e.size, 64u);
  EXPECT_TRUE(e.keys.empty());
  EXPECT_TRUE(batch_well_formed(b));
  b.sizes.pop_back();
  EXPECT_FALSE(batch_well_formed(b));
}

TEST(OpTable, DefaultWeightsComeFromTheTable) {
  const WorkloadConfig w;
  for (const OpInfo& info : kOpTable) EXPECT_EQ(w.weights[static_cast<size_t>(info.kind)], info.weight) << info.name;
  EXPECT_GT(w.weights[static_cast<size_t>(OpKind::Advance)], 0u);
}

}  // namespace pinsim
