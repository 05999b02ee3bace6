// The local-disk tier's holder (rules local.*; README.md, "The local-disk
// tier"): the setup client, which mounts its own local disk, takes the
// offloads the master queues to it, reports each, and stages and settles the
// promotions back to memory. It exists apart from the adapter because what it
// keeps is the client's, not the master's: the offloads in its hand (what the
// heartbeat returned, until reported) and the size it wrote for each key
// (what its promotion start asks for). One per run, so it starts empty.
// Only on trees with the tier (PINSIM_MC_HAS_LOCAL_DISK).
#pragma once
#if PINSIM_MC_HAS_LOCAL_DISK
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "master_service.h"

namespace pinsim::mooncake_local {

using Result = tl::expected<void, mooncake::ErrorCode>;
using Key = std::pair<std::string, std::string>;  // Mooncake's tenant name, key name

// The master's configuration for the tier: offload at every End (not at
// eviction), promotion on the first hit, and a heartbeat that drains the
// promotion mailbox at once.
void configure(mooncake::MasterServiceConfig& config);

class Holder {
 public:
  explicit Holder(mooncake::UUID client) : client_(client) {}

  // Unmount (a no-op when none is registered) then mount of the holder's
  // local disk with offloading on: a registration and mailboxes of this run only.
  Result mount(mooncake::MasterService& service) const;

  // offload_take: the offload heartbeat; every task returned goes into the
  // hand. `taken` receives their keys.
  Result take(mooncake::MasterService& service, std::vector<Key>* taken);

  // offload_end: nothing in hand for the key is OBJECT_NOT_FOUND with no
  // call; else the task leaves the hand and is reported (a failure as a
  // negative size), and a success records its size.
  Result end(mooncake::MasterService& service, const mooncake::TenantId& tenant, const std::string& key, bool fail);

  // promotion_start: the promotion heartbeat (its items ignored: it drains
  // the mailbox), then PromotionAllocStart with the size recorded for the key
  // (0 with none) and `preferred` segments.
  Result promotion_start(mooncake::MasterService& service, const mooncake::TenantId& tenant, const std::string& key,
                         const std::vector<std::string>& preferred) const;

  // promotion_end: NotifyPromotionFailure or NotifyPromotionSuccess.
  Result promotion_end(mooncake::MasterService& service, const mooncake::TenantId& tenant, const std::string& key,
                       bool fail) const;

 private:
  mooncake::UUID client_;
  std::map<Key, int64_t> hand_;   // offloads taken and not reported, with the task's size
  std::map<Key, int64_t> sizes_;  // the size of the last offload reported written, by key
};

}  // namespace pinsim::mooncake_local
#endif
