// The local-disk tier's holder: the calls a holder client makes, in the
// order a real one makes them (local_disk_holder.h).
#include "local_disk_holder.h"

#if PINSIM_MC_HAS_LOCAL_DISK
namespace pinsim::mooncake_local {

namespace mc = ::mooncake;

void configure(mc::MasterServiceConfig& config) {
  config.enable_offload = true;
  config.offload_on_evict = false;
  config.promotion_on_hit = true;
  config.promotion_admission_threshold = 1;   // every hit passes the frequency gate
  config.promotion_max_per_heartbeat = 1u << 30;  // one heartbeat drains the mailbox
}

Result Holder::mount(mc::MasterService& service) const {
  if (auto r = service.UnmountLocalDiskSegment(client_); !r) return r;
  return service.MountLocalDiskSegment(client_, true);
}

Result Holder::take(mc::MasterService& service, std::vector<Key>* taken) {
  auto r = service.OffloadObjectHeartbeat(client_, true);
  if (!r) return tl::make_unexpected(r.error());
  for (const mc::OffloadTaskItem& task : *r) {
    Key k{task.tenant_id, task.key};
    hand_[k] = task.size;
    taken->push_back(std::move(k));
  }
  return {};
}

Result Holder::end(mc::MasterService& service, const mc::TenantId& tenant, const std::string& key, bool fail) {
  auto it = hand_.find({tenant.value(), key});
  if (it == hand_.end()) return tl::make_unexpected(mc::ErrorCode::OBJECT_NOT_FOUND);
  const int64_t size = it->second;
  hand_.erase(it);
  mc::StorageObjectMetadata meta{};
  meta.data_size = fail ? -1 : size;
  meta.transport_endpoint = "pinsim-local-disk";
  const mc::OffloadTaskItem task{tenant.value(), key, size};
  auto r = service.NotifyOffloadSuccess(client_, {task}, {meta});
  if (r && !fail) sizes_[{tenant.value(), key}] = size;
  return r;
}

Result Holder::promotion_start(mc::MasterService& service, const mc::TenantId& tenant, const std::string& key,
                               const std::vector<std::string>& preferred) const {
  (void)service.PromotionObjectHeartbeat(client_);
  auto s = sizes_.find({tenant.value(), key});
  const uint64_t size = s == sizes_.end() ? 0 : static_cast<uint64_t>(s->second);
  auto r = service.PromotionAllocStart(client_, key, tenant, size, preferred);
  if (!r) return tl::make_unexpected(r.error());
  return {};
}

Result Holder::promotion_end(mc::MasterService& service, const mc::TenantId& tenant, const std::string& key,
                             bool fail) const {
  if (fail) return service.NotifyPromotionFailure(client_, key, tenant);
  return service.NotifyPromotionSuccess(client_, key, tenant);
}

}  // namespace pinsim::mooncake_local
#endif
