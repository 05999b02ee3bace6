// Replays a trace against the model target with every property, through the
// installed pinsim libraries. Exit 0 when it matches, 1 when it fails.
#include <cstdio>

#include "campaign.h"
#include "model_target.h"
#include "property.h"
#include "trace.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const pinsim::Trace trace = pinsim::load_trace(argv[1]);
  const pinsim::RunResult r = pinsim::replay(trace, &pinsim::make_model_target, {}, {pinsim::all_properties(), true});
  std::printf("%zu steps, %s\n", trace.steps.size(), r.failure ? r.failure->detail.c_str() : "all matched");
  return r.failure ? 1 : 0;
}
