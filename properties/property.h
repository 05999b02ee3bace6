// Shared helpers for the properties P1-P14: each
// property is a StepCheck in its own file, saying which rule it protects.
#pragma once
#include <string>
#include <vector>

#include "check.h"

namespace pinsim {

inline std::string name(ObjectId id) { return object_name(id); }
inline std::string show(const std::optional<Time>& t) { return t ? std::to_string(*t) : "none"; }

inline uint32_t complete(const ObjectView& o) {
  return o.complete_memory + o.complete_nof + o.complete_disk + o.complete_dfs;
}

// Whether a write in multi-tenant mode may have evicted `before` for its
// tenant's quota (rule tenant.quota-eviction): a write by that tenant, and an
// object with COMPLETE memory, an expired lease and no hard pin.
inline bool quota_evictable(const Config& config, const Op& op, const ObjectView& before, Time now) {
  return config.multi_tenant && is_start(element_kind(op.kind)) && before.id.tenant == op.object.tenant &&
         now >= before.lease && !before.hard_pinned && before.complete_memory > 0;
}

// Declares a property class; its check() is defined in the property's file.
#define PINSIM_PROPERTY(Class, Id, Rule, Needs)                                       \
  class Class final : public StepCheck {                                              \
   public:                                                                            \
    std::string_view id() const override { return Id; }                               \
    std::string_view rule() const override { return Rule; }                           \
    Capabilities needs() const override { return Needs; }                             \
    std::optional<std::string> check(const StepContext& s) const override;            \
  };

// Every property, P1..P14, in order.
const std::vector<const StepCheck*>& all_properties();
const StepCheck* property_by_id(std::string_view id);

}  // namespace pinsim
