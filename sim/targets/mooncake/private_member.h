// How the adapter reads a private member of Mooncake's without changing
// Mooncake: access checks do not apply to the names in an explicit
// instantiation, so `template struct Expose<Tag, &Class::member_>;` may name
// a private member, and the friend function it defines hands the pointer out
// as member(Tag{}). Each use declares its tag, `auto member(Tag);` and the
// instantiation in this namespace (unexported_metrics.h: metrics without
// getters; dfs_records.h: the DFS allocator's records). Nothing of Mooncake's
// is changed or copied. Include it from the adapter only.
#pragma once

namespace pinsim::mooncake_private {

template <class Tag, auto M>
struct Expose {
  friend auto member(Tag) { return M; }
};

}  // namespace pinsim::mooncake_private
