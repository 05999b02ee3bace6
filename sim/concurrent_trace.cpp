// The concurrent part of a trace; see concurrent_trace.h.
#include "concurrent_trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "json_codec.h"

namespace pinsim {

using nlohmann::json;

json encode_concurrent(const ConcurrentRun& run) {
  const ConcurrentSettings& s = run.settings;
  json settings = {{"clients", s.clients},         {"background", s.background},   {"ops_per_round", s.ops_per_round},
                   {"rounds", s.rounds},           {"schedule", s.schedule},       {"preempt_pct", s.preempt_pct},
                   {"pct_depth", s.pct_depth},     {"preempt_bound", s.preempt_bound}};
  if (s.unmount_sweep != "in_call") settings["unmount_sweep"] = s.unmount_sweep;  // the default is left out
  json rounds = json::array();
  for (const ConcurrentRound& r : run.rounds) {
    json actors = json::array();
    for (const auto& script : r.scripts) {
      json ops = json::array();
      for (const Op& op : script) {
        json o = encode_op(op);
        if (op.client != 0) o["actor"] = op.client;  // the client id the op names (as a step's "actor")
        ops.push_back(std::move(o));
      }
      actors.push_back(std::move(ops));
    }
    rounds.push_back({{"t", r.t}, {"actors", std::move(actors)}, {"schedule", r.schedule}});
  }
  return {{"settings", std::move(settings)}, {"rounds", std::move(rounds)}};
}

namespace {

uint32_t small_count(const json& j, const std::string& path, uint32_t max) {
  if (!j.is_number_unsigned() || j.get<uint64_t>() > max)
    throw DecodeError(path + ": expected a whole number 0.." + std::to_string(max));
  return j.get<uint32_t>();
}

void only_fields(const json& j, const std::string& path, std::initializer_list<const char*> known) {
  if (!j.is_object()) throw DecodeError(path + ": expected an object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; }))
      throw DecodeError(path + "." + it.key() + ": unknown field");
}

ConcurrentSettings decode_settings(const json& j) {
  const std::string path = "$.concurrent.settings";
  only_fields(j, path, {"clients", "background", "ops_per_round", "rounds", "schedule", "preempt_pct", "pct_depth",
                        "preempt_bound", "unmount_sweep"});
  ConcurrentSettings s;
  auto count = [&](const char* key, uint32_t max, uint32_t* out) {
    if (j.contains(key)) *out = small_count(j[key], path + "." + key, max);
  };
  count("clients", 64, &s.clients);
  count("ops_per_round", 1000, &s.ops_per_round);
  count("rounds", 100000, &s.rounds);
  count("preempt_pct", 100, &s.preempt_pct);
  count("pct_depth", 64, &s.pct_depth);
  count("preempt_bound", 64, &s.preempt_bound);
  if (j.contains("background")) {
    if (!j["background"].is_array()) throw DecodeError(path + ".background: expected an array of names");
    for (const json& b : j["background"]) {
      if (b != "evict" && b != "cleanup")
        throw DecodeError(path + ".background: unknown actor " + b.dump() + " (evict, cleanup)");
      s.background.push_back(b.get<std::string>());
    }
  }
  if (j.contains("unmount_sweep")) {
    if (j["unmount_sweep"] != "in_call" && j["unmount_sweep"] != "after_round")
      throw DecodeError(path + ".unmount_sweep: expected in_call or after_round");
    s.unmount_sweep = j["unmount_sweep"].get<std::string>();
  }
  if (j.contains("schedule")) {
    if (j["schedule"] != "random" && j["schedule"] != "pct" && j["schedule"] != "odometer")
      throw DecodeError(path + ".schedule: expected random, pct or odometer");
    s.schedule = j["schedule"].get<std::string>();
  }
  return s;
}

ConcurrentRound decode_round(const json& j, const std::string& path, size_t actors) {
  only_fields(j, path, {"t", "actors", "schedule"});
  ConcurrentRound r;
  if (!j.contains("t") || !j["t"].is_number_unsigned()) throw DecodeError(path + ".t: missing or not a time");
  r.t = j["t"].get<Time>();
  if (!j.contains("actors") || !j["actors"].is_array() || j["actors"].size() != actors)
    throw DecodeError(path + ".actors: expected one script per actor (" + std::to_string(actors) + ")");
  for (size_t a = 0; a < actors; ++a) {
    const json& script = j["actors"][a];
    const std::string spath = path + ".actors[" + std::to_string(a) + "]";
    if (!script.is_array()) throw DecodeError(spath + ": expected an array of ops");
    r.scripts.emplace_back();
    for (size_t i = 0; i < script.size(); ++i) {
      const std::string opath = spath + "[" + std::to_string(i) + "]";
      json part = script[i];
      if (part.is_object()) part.erase("actor");
      Op op = decode_op(part, opath);
      if (script[i].is_object() && script[i].contains("actor")) {
        const json& c = script[i]["actor"];
        if (!c.is_number_unsigned() || c.get<uint64_t>() > UINT32_MAX)
          throw DecodeError(opath + ".actor: expected a client id");
        op.client = c.get<ClientId>();
      }
      if (op.kind == OpKind::Advance)
        throw DecodeError(opath + ": an advance cannot run concurrently (give the round a later t)");
      r.scripts.back().push_back(std::move(op));
    }
  }
  if (j.contains("schedule")) {
    if (!j["schedule"].is_array()) throw DecodeError(path + ".schedule: expected an array of actor indices");
    for (size_t i = 0; i < j["schedule"].size(); ++i)
      r.schedule.push_back(small_count(j["schedule"][i], path + ".schedule[" + std::to_string(i) + "]",
                                       static_cast<uint32_t>(actors ? actors - 1 : 0)));
  }
  return r;
}

}  // namespace

ConcurrentRun decode_concurrent(const json& j, Time clock) {
  only_fields(j, "$.concurrent", {"settings", "rounds"});
  ConcurrentRun run;
  if (j.contains("settings")) run.settings = decode_settings(j["settings"]);
  const size_t actors = run.settings.clients + run.settings.background.size();
  if (actors == 0) throw DecodeError("$.concurrent.settings: no actors (clients or background)");
  if (!j.contains("rounds") || !j["rounds"].is_array())
    throw DecodeError("$.concurrent.rounds: missing or not an array");
  for (size_t i = 0; i < j["rounds"].size(); ++i) {
    const std::string path = "$.concurrent.rounds[" + std::to_string(i) + "]";
    run.rounds.push_back(decode_round(j["rounds"][i], path, actors));
    if (run.rounds.back().t < clock)
      throw DecodeError(path + ".t: time goes backwards (" + std::to_string(run.rounds.back().t) + " < " +
                        std::to_string(clock) + ")");
    clock = run.rounds.back().t;
  }
  return run;
}

}  // namespace pinsim
