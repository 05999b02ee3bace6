// The model's Placement (placement.h): what no View shows of where its
// replicas are.
#include "model.h"

namespace pinsim {

Placement Model::placement() const {
  Placement p;
  p.objects.reserve(objects_.size());
  for (const auto& [id, o] : objects_) p.objects.push_back({id, placement_of(o.replicas, o.pending)});
  for (const Discarded& d : discarded_) p.discarded.push_back({d.release_at, d.size, placement_of(d.replicas, {})});
  sort_placement(&p);
  return p;
}

}  // namespace pinsim
