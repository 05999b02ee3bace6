// The one table of differences between the `rfc` and `mooncake-main`
// profiles. Read this file to know what "Mooncake main" means here.
#include "profile.h"

#include <array>

namespace pinsim {

namespace {

constexpr std::array<ProfileDelta, 2> kProfileDeltas{{
    {"RFC 3028 Snapshot and HA semantics: the committed deadline is serialised",
     "snapshots serialise the committed deadline; restore keeps unexpired deadlines, normalises expired "
     "ones and rebuilds the index from the survivors",
     "soft pin is runtime-only: snapshots write false/0 in the old slots, every restored object is "
     "ordinary cache and the index is cleared",
     "Mooncake main 3b5a594, mooncake-store/src/master_service.cpp, MetadataSerializer: \"Keep the legacy "
     "snapshot slots for format compatibility, but soft pin is runtime-only state and is intentionally not "
     "persisted.\" ApplySnapshotState: \"Soft pin is runtime-only and is never restored from a snapshot.\" "
     "mooncake-store/include/metadata_store.h: \"Soft pin is also omitted because it is runtime-only "
     "eviction-priority state; promoted objects resume as ordinary cache.\"",
     "MetadataSerializer::SerializeMetadata, DeserializeShard, ApplySnapshotState"},
    {"RFC 3028 Snapshot and HA semantics, restore steps 2-4: discard only when lease and deadline expired",
     "an object is discarded at restore only when its read lease and its soft deadline have both expired",
     "every object whose read lease expired is discarded, pinned or not",
     "Mooncake main 3b5a594, ApplySnapshotState: \"Soft pin is runtime-only and is never restored from a "
     "snapshot.\" With no pin restored, RFC restore step 2's lease-based survival rule is all that remains",
     "ApplySnapshotState"},
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
