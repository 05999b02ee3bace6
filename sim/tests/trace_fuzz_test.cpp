// Fuzzing the trace reader with RapidCheck: random bytes and mutated valid
// traces must be either accepted or rejected with a DecodeError, never crash,
// hang or throw anything else; accepted ones replay against the model.
// CI runs the default case count; the release check runs a million:
//   RC_PARAMS="max_success=1000000" build/sim/sim_tests --gtest_filter='TraceFuzz*'
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "campaign.h"
#include "json_codec.h"
#include "model_target.h"
#include "trace.h"

namespace pinsim {

namespace {

// Feeds one input; returns normally on acceptance or a clean rejection.
void feed(const std::string& text) {
  Trace t;
  try {
    t = read_trace(text, "fuzz.json");
  } catch (const DecodeError& e) {
    RC_ASSERT(std::string(e.what()).rfind("fuzz.json: ", 0) == 0);
    return;
  }
  if (t.steps.size() > 400) return;  // bound the replay cost per case
  RunResult r = replay(t, &make_model_target);
  (void)r;  // an expectation may fail; crashing or throwing may not
}

const std::vector<std::string>& bases() {
  static const std::vector<std::string> b = [] {
    std::vector<std::string> v;
    SeedOptions o;
    o.steps = 25;
    o.swarm = true;
    for (uint64_t seed = 1; seed <= 8; ++seed) v.push_back(write_trace(run_seed(seed, o, &make_model_target).trace));
    return v;
  }();
  return b;
}

const char* kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "null", "true", "-1", "0", "1e999",
                         "18446744073709551616", "9223372036854775807", "\"op\"", "\"advance\"", "\"t\"",
                         "\"put_start\"", "\"soft_pin\"", "\"ttl_ms\"", "\"steps\"", "\\u0000", "\xff"};

}  // namespace

RC_GTEST_PROP(TraceFuzz, RandomBytesAreRejectedCleanly, (const std::string& bytes)) { feed(bytes); }

RC_GTEST_PROP(TraceFuzz, MutatedTracesAreAcceptedOrRejectedCleanly, ()) {
  std::string text = bases()[*rc::gen::inRange<size_t>(0, bases().size())];
  const int mutations = *rc::gen::inRange(1, 6);
  for (int i = 0; i < mutations; ++i) {
    const size_t at = *rc::gen::inRange<size_t>(0, text.size());
    switch (*rc::gen::inRange(0, 5)) {
      case 0: text.erase(at, *rc::gen::inRange<size_t>(1, 20)); break;
      case 1: text.insert(at, kTokens[*rc::gen::inRange<size_t>(0, std::size(kTokens))]); break;
      case 2: text[at] = *rc::gen::arbitrary<char>(); break;
      case 3: {  // replace a number with an extreme one
        const size_t d = text.find_first_of("0123456789", at);
        if (d != std::string::npos) text.replace(d, 1, *rc::gen::element<std::string>("0", "-5", "4294967296", "18446744073709551615", "99999999999999999999"));
        break;
      }
      default: {  // duplicate a slice
        const size_t len = *rc::gen::inRange<size_t>(1, 80);
        text.insert(at, text.substr(at, len));
        break;
      }
    }
  }
  feed(text);
}

}  // namespace pinsim
