// Traces: round trip, determinism of seeded runs, and strict rejection of
// malformed input with the JSON path in the message.
#include <gtest/gtest.h>

#include "campaign.h"
#include "json_codec.h"
#include "model_target.h"
#include "trace.h"

namespace pinsim {

TEST(Trace, SameSeedGivesByteIdenticalTrace) {
  SeedOptions o;
  o.swarm = true;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const RunResult a = run_seed(seed, o, &make_model_target);
    const RunResult b = run_seed(seed, o, &make_model_target);
    ASSERT_EQ(write_trace(a.trace), write_trace(b.trace)) << "seed " << seed;
  }
}

TEST(Trace, RecordedSeedsReplayByteForByte) {
  SeedOptions o;
  o.swarm = true;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    const RunResult a = run_seed(seed, o, &make_model_target);
    ASSERT_FALSE(a.failure) << "seed " << seed;
    const std::string text = write_trace(a.trace);
    const Trace back = read_trace(text, "seed");
    const RunResult b = replay(back, &make_model_target);
    ASSERT_FALSE(b.failure) << "seed " << seed << ": " << b.failure->detail;
    ASSERT_EQ(write_trace(b.trace), text) << "seed " << seed;
  }
}

static std::string reject(const std::string& text) {
  try {
    read_trace(text, "t.json");
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Trace, MalformedInputIsRejectedWithItsPlace) {
  const std::string head = R"({"format":"pinsim-trace","version":1,"config":{},"steps":[)";
  EXPECT_NE(reject("{").find("t.json: invalid JSON"), std::string::npos);
  EXPECT_NE(reject(R"({"format":"pinsim-trace","version":9,"config":{},"steps":[]})").find("$.version: unknown version"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":0,"op":"frobnicate"}]})").find("$.steps[0].op: unknown op 'frobnicate'"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":0,"op":"get"}]})").find("$.steps[0].key"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":0,"op":"get","key":"x"}]})").find("$.steps[0].key"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":-1,"op":"cleanup"}]})").find("negative time"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":5,"op":"advance","ms":5},{"t":4,"op":"cleanup"}]})").find("$.steps[1].t: time goes backwards"), std::string::npos);
  EXPECT_NE(reject(head + R"({"t":0,"op":"cleanup","bogus":1}]})").find("$.steps[0].bogus: unknown field"), std::string::npos);
  EXPECT_NE(reject(R"({"format":"pinsim-trace","version":1,"config":{"segments":[]},"steps":[]})").find("$.config.segments"), std::string::npos);
}

// The flags that shaped a run are recorded and read back; a malformed record
// is rejected with its place, and traces without one stay valid.
TEST(Trace, RunFlagsRoundTrip) {
  Trace t;
  t.run = RunFlags{"embedded", "", {"F2", "F16"}, {"P3"}, false};
  const std::string text = write_trace(t);
  EXPECT_NE(text.find(R"("run": {"compare":false,"faults":["F2","F16"],"properties":["P3"],"target":"embedded"})"),
            std::string::npos) << text;
  EXPECT_EQ(read_trace(text, "t").run, t.run);
  t.run = RunFlags{"mooncake", "main", {}, {}, true};
  EXPECT_EQ(read_trace(write_trace(t), "t").run, t.run);
  EXPECT_FALSE(read_trace(R"({"format":"pinsim-trace","version":1,"config":{},"steps":[]})", "t").run);
  const std::string head = R"({"format":"pinsim-trace","version":1,"config":{},"steps":[],"run":)";
  EXPECT_NE(reject(head + "{}}").find("$.run.target: expected the target's name"), std::string::npos);
  EXPECT_NE(reject(head + R"({"target":"model","faults":"F2"}})").find("$.run.faults: expected an array"),
            std::string::npos);
  EXPECT_NE(reject(head + R"({"target":"model","properties":[3]}})").find("$.run.properties[0]"), std::string::npos);
  EXPECT_NE(reject(head + R"({"target":"model","compare":1}})").find("$.run.compare"), std::string::npos);
  EXPECT_NE(reject(head + R"({"target":"model","jobs":2}})").find("$.run.jobs: unknown field"), std::string::npos);
}

TEST(Trace, UnknownActionByteRoundTrips) {
  Trace t;
  Op op{.kind = OpKind::PutStart, .client = 1, .object = {0, 2}, .size = 8, .memory_replicas = 1};
  op.soft_pin.action = 255;
  t.steps.push_back({0, op, Outcome::of(ErrorCode::INVALID_PARAMS)});
  const Trace back = read_trace(write_trace(t), "x");
  EXPECT_EQ(back.steps[0].op, op);
  EXPECT_EQ(back.steps[0].expect, t.steps[0].expect);
}

}  // namespace pinsim

namespace pinsim {

// Found by the fuzz test: a number too large for a double made nlohmann
// throw out_of_range, which escaped as a crash of the command line.
TEST(Trace, HugeNumberIsACleanRejection) {
  try {
    read_trace(R"({"format":"pinsim-trace","version":1,"config":{},"steps":[{"t":1e999,"op":"cleanup"}]})", "n.json");
    FAIL() << "accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("n.json: invalid JSON: number overflow"), std::string::npos) << e.what();
  }
}

}  // namespace pinsim
