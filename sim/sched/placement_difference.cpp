// Placement differences and their JSON; see placement_difference.h.
#include "placement_difference.h"

#include <nlohmann/json.hpp>

namespace pinsim::sched {

namespace {

nlohmann::json encode_replicas(const std::vector<ReplicaPlacement>& replicas) {
  nlohmann::json out = nlohmann::json::array();
  for (const ReplicaPlacement& r : replicas)
    out.push_back(std::string(to_string(r.kind)) + "@" + std::to_string(r.segment) +
                  (r.status == ReplicaStatus::Processing ? "+processing" : "") + (r.eligible ? "+eligible" : ""));
  return out;
}

std::string name_of(ObjectId id) { return "t" + std::to_string(id.tenant) + "/k" + std::to_string(id.key); }

}  // namespace

Difference describe_placement_difference(const Placement& e, const Placement& a) {
  for (size_t i = 0; i < std::min(e.objects.size(), a.objects.size()); ++i)
    if (e.objects[i] != a.objects[i])
      return {"placement", "object " + name_of(e.objects[i].id) + ": replicas expected " +
                               encode_replicas(e.objects[i].replicas).dump() + ", got " +
                               encode_replicas(a.objects[i].replicas).dump()};
  if (e.objects.size() != a.objects.size()) return {"placement", "the objects differ"};
  if (e.discarded != a.discarded) return {"placement", "the discarded replicas awaiting release differ"};
  return {};
}

std::string encode_placement(const Placement& p) {
  nlohmann::json objects = nlohmann::json::array(), discarded = nlohmann::json::array();
  for (const ObjectPlacement& o : p.objects)
    objects.push_back({{"tenant", o.id.tenant}, {"key", o.id.key}, {"replicas", encode_replicas(o.replicas)}});
  for (const DiscardedPlacement& d : p.discarded)
    discarded.push_back({{"release_at", d.release_at}, {"size", d.size}, {"replicas", encode_replicas(d.replicas)}});
  return nlohmann::json{{"objects", objects}, {"discarded", discarded}}.dump();
}

}  // namespace pinsim::sched
