// Profiles: where the RFC text and Mooncake main part ways on purpose
// (SEMANTICS.md section 2, deltas). Every difference is one row of
// kProfileDeltas, with its reason and source, and one field of ProfileRules;
// no other file in model/ branches on the profile by name.
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
  std::string_view rule;
  std::string_view rfc;
  std::string_view mooncake_main;
  std::string_view reason;
  std::string_view source;
};

ProfileRules rules_for(Profile profile);
std::span<const ProfileDelta> profile_deltas();
std::string_view to_string(Profile profile);
std::optional<Profile> parse_profile(std::string_view name);

}  // namespace pinsim
