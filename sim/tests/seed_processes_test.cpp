// Seeds run in worker processes come back whole and in seed order, however
// many seeds each worker is sent ahead; a seed's error and a worker's death
// name the seed; and a result survives its encoding byte for byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <stdexcept>

#include "json_codec.h"
#include "result_codec.h"
#include "seed_processes.h"

namespace pinsim {

namespace {

// A result that says which seed made it.
RunResult made_by(uint64_t seed) {
  RunResult r;
  r.trace.seed = seed;
  r.trace.description = "seed " + std::to_string(seed);
  r.steps = seed * 3;
  r.trace.steps.push_back({1, Op{.kind = OpKind::Advance, .advance_ms = 1}, Outcome{}, {}});
  return r;
}

SeedProcesses::Options options(unsigned jobs, uint64_t last, std::function<RunResult(uint64_t)> run) {
  return {jobs, std::move(run),
          [last](uint64_t seed) { return seed == last ? std::nullopt : std::optional<uint64_t>(seed + 1); }, false};
}

}  // namespace

TEST(SeedProcesses, ResultsComeInSeedOrderWithSeveralWorkers) {
  SeedProcesses p(options(3, 200, made_by));
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const RunResult r = p.result(seed);
    EXPECT_EQ(r.trace.seed, seed);
    EXPECT_EQ(r.steps, seed * 3);
    EXPECT_TRUE(r.trace.steps.empty());  // a passing seed's steps stay in its worker
  }
}

TEST(SeedProcesses, StoppingEarlyLeavesNothingRunning) {
  SeedProcesses p(options(2, 1'000'000, made_by));
  EXPECT_EQ(p.result(1).trace.seed, 1u);
  EXPECT_EQ(p.result(2).trace.seed, 2u);
}  // the destructor ends the workers, which hold seeds queued ahead

TEST(SeedProcesses, AThrowingSeedIsReportedAsItsError) {
  SeedProcesses p(options(2, 20, [](uint64_t seed) {
    if (seed == 7) throw std::runtime_error("seed 7 refused");
    return made_by(seed);
  }));
  for (uint64_t seed = 1; seed < 7; ++seed) EXPECT_EQ(p.result(seed).trace.seed, seed);
  EXPECT_THROW(
      {
        try {
          p.result(7);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "seed 7 refused");
          throw;
        }
      },
      std::runtime_error);
}

TEST(SeedProcesses, AWorkerThatDiesIsNamedBySeed) {
  SeedProcesses p(options(2, 20, [](uint64_t seed) {
    if (seed == 5) _exit(3);
    return made_by(seed);
  }));
  try {
    for (uint64_t seed = 1; seed <= 20; ++seed) p.result(seed);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("exited with status 3"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("seed 5: ", 0), 0u) << e.what();
  }
}

TEST(ResultCodec, AFailingResultKeepsItsTraceByteForByte) {
  RunResult r = made_by(9);
  r.failure = Failure{0, "view", "detail", "e", "a", "gauge", true, {{"o", "f", "1", "2"}}, "model", "embedded"};
  r.variant = "main";
  const RunResult back = decode_run_result(encode_run_result(r, false));
  EXPECT_EQ(write_trace(back.trace), write_trace(r.trace));
  ASSERT_TRUE(back.failure);
  EXPECT_EQ(back.failure->field, "gauge");
  EXPECT_EQ(back.failure->diff.size(), 1u);
  EXPECT_EQ(back.variant, "main");
  EXPECT_EQ(back.steps, 27u);
}

TEST(ResultCodec, BytesItDidNotWriteAreRefused) {
  const std::string good = encode_run_result(made_by(2), true);
  for (const std::string& bad : {std::string(), std::string("12"), std::string("x\n{}"), std::string("999\n{}"),
                                 good.substr(0, good.size() - 1), "1" + good})
    EXPECT_THROW(decode_run_result(bad), DecodeError) << bad;
}

}  // namespace pinsim
