// JSON encoding of the vocabulary (ops, outcomes, views, config), shared by
// traces and reports. Decoding is strict: a wrong type, a missing or unknown
// field, or an out-of-range value raises DecodeError naming the JSON path.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>

#include "config.h"
#include "expectation.h"
#include "op.h"
#include "outcome.h"
#include "view.h"

namespace pinsim {

struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json encode_op(const Op& op);
Op decode_op(const nlohmann::json& j, const std::string& path);
nlohmann::json encode_outcome(const Outcome& o);
Outcome decode_outcome(const nlohmann::json& j, const std::string& path);
nlohmann::json encode_config(const Config& c);
Config decode_config(const nlohmann::json& j, const std::string& path);
nlohmann::json encode_view(const View& v);
nlohmann::json encode_state_expectation(const StateExpectation& e);
StateExpectation decode_state_expectation(const nlohmann::json& j, const std::string& path);

}  // namespace pinsim
