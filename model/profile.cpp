// The one table of differences between the `rfc` and `mooncake-main`
// profiles. Read this file to know what "Mooncake main" means here.
#include "profile.h"

#include <array>

namespace pinsim {

namespace {

constexpr std::array<ProfileDelta, 3> kProfileDeltas{{
    {"snapshot soft pin (RFC Snapshot, SEMANTICS delta 1 and 3)",
     "the committed deadline is serialised; restore keeps unexpired deadlines, "
     "normalises expired ones and rebuilds the index from survivors",
     "soft pin is runtime-only: snapshots write false/0 in the old slots, "
     "every restored object is ordinary cache and the index is cleared",
     "Mooncake documents soft pin as runtime-only after #2909",
     "MetadataSerializer::SerializeMetadata, DeserializeShard, ApplySnapshotState"},
    {"restore survival (RFC restore steps 2-4, SEMANTICS delta 2)",
     "an object is discarded only when its read lease and its soft deadline "
     "have both expired",
     "every object whose read lease expired is discarded, pinned or not",
     "follows from delta 1: with no pin restored, only the lease remains",
     "ApplySnapshotState; catalog_backed_snapshot_provider"},
    {"commit test (RFC rule 1, SEMANTICS delta 4)",
     "commit on the change from zero to one readable replica",
     "commit on the change from zero to one COMPLETE replica",
     "no observable difference in this model: it has no invalid handles, so "
     "COMPLETE and readable coincide; kept here so the table is complete",
     "PutEnd fn_is_completed vs IsReplicaReadable"},
}};

}  // namespace

ProfileRules rules_for(Profile profile) {
  switch (profile) {
    case Profile::Rfc:
      return {.snapshot_keeps_soft_pin = true,
              .pinned_object_survives_expired_lease = true};
    case Profile::MooncakeMain:
      return {.snapshot_keeps_soft_pin = false,
              .pinned_object_survives_expired_lease = false};
  }
  return {};
}

std::span<const ProfileDelta> profile_deltas() { return kProfileDeltas; }

std::string_view to_string(Profile profile) {
  return profile == Profile::Rfc ? "rfc" : "mooncake-main";
}

std::optional<Profile> parse_profile(std::string_view name) {
  if (name == "rfc") return Profile::Rfc;
  if (name == "mooncake-main") return Profile::MooncakeMain;
  return std::nullopt;
}

}  // namespace pinsim
