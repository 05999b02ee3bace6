// One expiry cycle (RFC 3028 "Expiration cleanup", "Deadline index"): every
// object whose stored deadline is <= now becomes Disabled and the gauge drops
// by the number reset, in one aggregate step. The model states the effect;
// the embedded target implements the index that achieves it. The same cycle
// prunes expired group-retention entries (PR 2835 rule 7).
#include "model.h"

namespace pinsim {

Outcome Model::cleanup(Time now) {
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const ObjectId id = deadlines_.begin()->second;
    hits_.hit(Rule::Cleanup);
    set_deadline(id, find_object(id)->second, std::nullopt);
  }
  expire_retiring_pins(now);
  prune_expired_retention(now);
  return Outcome{};
}

}  // namespace pinsim
