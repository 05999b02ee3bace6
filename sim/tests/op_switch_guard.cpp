// Never part of a build: the ctest op_switch_guard compiles it and passes
// only when the compiler refuses it, naming an op. It stands for a target
// whose op mapping (a `switch (op.kind)` with no default: Model::dispatch,
// EmbeddedMaster::apply, the Mooncake target's perform and supports) lacks
// a row of op_table.h: with -Werror=switch on in every build, that target
// does not build until the op is mapped.
#include "op.h"

namespace pinsim {

int maps_one_op_only(OpKind kind) {
  switch (kind) {
    case OpKind::Get: return 1;
  }
  return 0;
}

}  // namespace pinsim
