// RapidCheck's defaults for ctest: a pinned seed (a random one once let a
// stateful test pass without finding its fault), taken from
// PINSIM_RC_DEFAULTS, unless the user set RC_PARAMS themselves (for example
// RapidCheck's reproduce= string), which then wins. Linked into the test
// executables that use RapidCheck; it runs before RapidCheck reads its
// configuration (on first use).
#include <cstdlib>

namespace {

const bool kApplied = [] {
  if (const char* defaults = std::getenv("PINSIM_RC_DEFAULTS")) setenv("RC_PARAMS", defaults, /*overwrite=*/0);
  return true;
}();

}  // namespace
