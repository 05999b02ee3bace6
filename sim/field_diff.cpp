// Field-level differences; see field_diff.h. Both sides are encoded as the
// trace format's JSON, lists keyed by what their entries are about (objects
// by tenant and key, retention by tenant and group, ...), and compared key
// by key, so an object missing on one side is one "present" row rather than
// a shift of every object after it.
#include "field_diff.h"

#include <nlohmann/json.hpp>
#include <set>

#include "json_codec.h"

namespace pinsim {

using nlohmann::json;

namespace {

// `list` (an array of objects) as an object keyed by `name(entry)`, the
// naming fields removed from each entry.
template <typename Name>
json keyed(const json& list, Name name, std::initializer_list<const char*> naming) {
  json out = json::object();
  for (const json& e : list) {
    json rest = e;
    for (const char* k : naming) rest.erase(k);
    out[name(e)] = rest;
  }
  return out;
}

// Appended, not "t" + dump(): GCC 12 at -O3 reports a -Wrestrict false
// positive on operator+(const char*, std::string&&).
std::string tenant_of(const json& e) { return std::string("t").append(e.at("tenant").dump()); }

json view_tree(const View& v) {
  json j = encode_view(v);
  j["objects"] = keyed(j["objects"], [](const json& e) { return tenant_of(e) + "/k" + e.at("key").dump(); },
                       {"tenant", "key"});
  if (j.contains("retiring"))
    j["retiring"] = keyed(j["retiring"], [](const json& e) { return tenant_of(e) + "/k" + e.at("key").dump(); },
                          {"tenant", "key"});
  j["retention"] = keyed(j["retention"], [](const json& e) { return tenant_of(e) + "/g" + e.at("group").dump(); },
                         {"tenant", "group"});
  j["usage"] = keyed(j["usage"], tenant_of, {"tenant"});
  json segments = json::object();
  for (size_t i = 0; i < j["memory_used"].size(); ++i)
    segments["segment " + std::to_string(i)] = {{"bytes allocated", j["memory_used"][i]}};
  for (size_t i = 0; i < j["mounted"].size(); ++i)
    segments["segment " + std::to_string(i)]["mounted"] = j["mounted"][i];
  for (size_t i = 0; i < j["segment_allocated"].size(); ++i)
    segments["segment " + std::to_string(i)]["allocated metric"] = j["segment_allocated"][i];
  for (size_t i = 0; i < j["segment_capacity"].size(); ++i)
    segments["segment " + std::to_string(i)]["capacity metric"] = j["segment_capacity"][i];
  j["memory_used"] = segments;
  j.erase("mounted"), j.erase("segment_allocated"), j.erase("segment_capacity");
  return j;
}

json outcome_tree(const Outcome& o) {
  json j = encode_outcome(o);
  json groups = json::object();
  for (size_t i = 0; i < j.value("retained", json::array()).size(); ++i)
    groups["retained[" + std::to_string(i) + "]"] = {{"result", j["retained"][i]}};
  json results = json::object();
  for (size_t i = 0; i < j.value("results", json::array()).size(); ++i)
    results["results[" + std::to_string(i) + "]"] = j["results"][i];
  j.erase("retained");
  j.erase("results");
  return {{"outcome", j}, {"retained", groups}, {"results", results}};
}

std::string shown(const json& j, const char* key) {
  if (!j.contains(key)) return "absent";
  const json& v = j.at(key);
  return v.is_null() ? "none" : v.is_string() ? v.get<std::string>() : v.dump();
}

std::set<std::string> keys_of(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const json* j : {&a, &b})
    for (auto it = j->begin(); it != j->end(); ++it) keys.insert(it.key());
  return keys;
}

// One entity's fields (an object, a retention entry, ...).
void diff_entity(const std::string& name, const json& a, const json& b, std::vector<FieldDiff>* out) {
  for (const std::string& k : keys_of(a, b))
    if (a.value(k, json()) != b.value(k, json())) out->push_back({name, k, shown(a, k.c_str()), shown(b, k.c_str())});
}

// A tree of scalars and entity maps (objects keyed by name).
std::vector<FieldDiff> diff_trees(const json& a, const json& b) {
  std::vector<FieldDiff> out;
  for (const std::string& k : keys_of(a, b)) {
    const json x = a.value(k, json()), y = b.value(k, json());
    if (x == y) continue;
    if (!x.is_object() && !y.is_object()) {
      out.push_back({"", k, shown(a, k.c_str()), shown(b, k.c_str())});
      continue;
    }
    if (k == "outcome") {  // the outcome's own fields, not an entity map
      diff_entity("", x.is_object() ? x : json::object(), y.is_object() ? y : json::object(), &out);
      continue;
    }
    const json ex = x.is_object() ? x : json::object(), ey = y.is_object() ? y : json::object();
    for (const std::string& name : keys_of(ex, ey)) {
      if (!ex.contains(name) || !ey.contains(name))
        out.push_back({name, "present", ex.contains(name) ? "yes" : "no", ey.contains(name) ? "yes" : "no"});
      else
        diff_entity(name, ex[name], ey[name], &out);
    }
  }
  return out;
}

}  // namespace

std::vector<FieldDiff> diff_views(const View& left, const View& right) {
  return diff_trees(view_tree(left), view_tree(right));
}

std::vector<FieldDiff> diff_outcomes(const Outcome& left, const Outcome& right) {
  return diff_trees(outcome_tree(left), outcome_tree(right));
}

}  // namespace pinsim
