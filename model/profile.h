// Profiles: `rfc` is RFC 3028 and PR 2835 as written; `mooncake-main` differs
// from it only where Mooncake states the difference as intended. Every
// difference is one row of kProfileDeltas, with the citation that shows the
// intent, and one field of ProfileRules; no other file in model/ branches on
// the profile by name. Any other place where Mooncake differs from the rules
// is a finding (scenarios/findings/), never a row here.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace pinsim {

enum class Profile : uint8_t { Rfc, MooncakeMain };

struct ProfileRules {
  // Snapshots carry the committed deadline; restore keeps unexpired ones and
  // rebuilds the index from them (RFC "Snapshot and HA semantics").
  bool snapshot_keeps_soft_pin;
  // An object whose read lease expired survives restore while its soft pin
  // is still active (RFC restore step 4: discard only when both expired).
  bool pinned_object_survives_expired_lease;
};

struct ProfileDelta {
  std::string_view rule;           // the rule of RFC 3028 / PR 2835 that differs
  std::string_view rfc;            // what the rule states
  std::string_view mooncake_main;  // what Mooncake main does instead
  std::string_view citation;       // where Mooncake states that difference as intended
  std::string_view source;         // the code that implements it
};

ProfileRules rules_for(Profile profile);
std::span<const ProfileDelta> profile_deltas();
std::string_view to_string(Profile profile);
std::optional<Profile> parse_profile(std::string_view name);

}  // namespace pinsim
