// Mooncake's valid-get metric (a successful GetReplicaList, each OK key of a
// BatchGetReplicaList), for the View's reads_served (rule read.hit).
// MasterMetricManager exports it but has no getter for it, so it is read
// through the member pointer an explicit instantiation may name: access
// checks do not apply to the names in an explicit instantiation, and the
// friend function it defines hands the pointer out. Nothing of Mooncake's
// is changed or copied.
#pragma once

#include <cstdint>

#include "master_metric_manager.h"

namespace pinsim::mooncake_metrics {

struct ValidGetsTag {};
auto member(ValidGetsTag);
template <auto M>
struct Expose {
  friend auto member(ValidGetsTag) { return M; }
};
template struct Expose<&mooncake::MasterMetricManager::valid_get_nums_>;

inline int64_t valid_get_nums() {
  return (mooncake::MasterMetricManager::instance().*member(ValidGetsTag{})).value();
}

}  // namespace pinsim::mooncake_metrics
