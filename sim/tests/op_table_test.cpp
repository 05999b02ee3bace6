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
  if (has_field(k, kFieldWrite)) f.insert({"size", "memory_replicas", "nof_replicas", "soft_pin", "group"});
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
    if (has_field(info.kind, kFieldWrite)) op.size = 32;
    const json j = encode_op(op);
    std::set<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
    EXPECT_EQ(keys, expected_fields(info.kind));
    EXPECT_EQ(decode_op(j, "$"), op);
  }
}

TEST(OpTable, DefaultWeightsComeFromTheTable) {
  const WorkloadConfig w;
  for (const OpInfo& info : kOpTable) EXPECT_EQ(w.weights[static_cast<size_t>(info.kind)], info.weight) << info.name;
  EXPECT_GT(w.weights[static_cast<size_t>(OpKind::Advance)], 0u);
}

}  // namespace pinsim
