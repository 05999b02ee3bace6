// HA-OpLog mode; see oplog_mode.h.
#include "oplog_mode.h"
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "ha/kv/ha_kv_backend.h"
#include "ha/oplog/ordered_oplog_writer.h"
#if PINSIM_MC_HAS_STANDBY_RESTORE
#include "ha/oplog/oplog_applier.h"
#include "ha/oplog/oplog_batch_standby_reader.h"
#include "ha/standby_metadata_store.h"
#endif
#include "master_service_access.h"

namespace pinsim::mooncake_oplog {
namespace mc = mooncake;

namespace {

constexpr const char* kClusterId = "pinsim";

// The log's store: what etcd holds for a cluster, in a map. Get of a missing
// key and a transaction whose comparison fails answer as the etcd backend does.
class MemoryKv final : public mc::HaKvBackend {
 public:
  mc::ErrorCode Get(std::string_view key, std::string& value) override {
    const std::lock_guard lock(mutex_);
    auto it = kv_.find(std::string(key));
    if (it == kv_.end()) return mc::ErrorCode::ETCD_KEY_NOT_EXIST;
    value = it->second;
    return mc::ErrorCode::OK;
  }
  mc::ErrorCode Put(std::string_view key, std::string_view value) override {
    const std::lock_guard lock(mutex_);
    kv_[std::string(key)] = std::string(value);
    return mc::ErrorCode::OK;
  }
  // [begin, end), or the key `begin` alone when `end` is empty (as etcd).
  mc::ErrorCode Range(std::string_view begin, std::string_view end, size_t limit,
                      std::vector<mc::KvPair>& kvs) override {
    const std::lock_guard lock(mutex_);
    kvs.clear();
    auto it = kv_.lower_bound(std::string(begin));
    if (end.empty()) {
      if (it != kv_.end() && it->first == begin) kvs.push_back({it->first, it->second});
      return mc::ErrorCode::OK;
    }
    for (; it != kv_.end() && it->first < end; ++it) {
      if (limit != 0 && kvs.size() == limit) break;
      kvs.push_back({it->first, it->second});
    }
    return mc::ErrorCode::OK;
  }
  bool SupportsTxn() const override { return true; }
  mc::ErrorCode Txn(const mc::KvTxn& txn) override {
    const std::lock_guard lock(mutex_);
    for (const mc::KvCompare& c : txn.compares) {
      auto it = kv_.find(c.key);
      const bool holds = c.kind == mc::KvCompareKind::kKeyNotExists
                             ? it == kv_.end()
                             : it != kv_.end() && it->second == c.expected_value;
      if (!holds) return mc::ErrorCode::ETCD_TRANSACTION_FAIL;
    }
    for (const mc::KvPair& p : txn.puts) kv_[p.key] = p.value;
    return mc::ErrorCode::OK;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> kv_;
};

// Mooncake's ordered writer, whose durable callbacks wait for settle(), and
// whose batch writes are watched: a write the store refuses makes settle()
// throw (the writer would retry on the virtual clock, which never moves).
class SettlingWriter final : public mc::OrderedOpLogWriter {
 public:
  SettlingWriter(mc::OrderedOpLogWriterConfig config, WriteBatchFn write)
      : OrderedOpLogWriter(std::move(config), [this, write = std::move(write)](const auto& batch, const auto& prefix) {
          if (!wait_for_release(batch.last_seq)) return mc::ErrorCode::ETCD_OPERATION_ERROR;
          const mc::ErrorCode err = write(batch, prefix);
          if (err != mc::ErrorCode::OK) fail(err);
          return err;
        }) {}
  ~SettlingWriter() override { Stop(); }

  tl::expected<PendingHandle, mc::ErrorCode> Commit(Reservation&& reservation, mc::OpLogEntry entry,
                                                    DurableCallback callback) override {
    auto handle = OrderedOpLogWriter::Commit(
        std::move(reservation), std::move(entry), [this, callback = std::move(callback)](const mc::OpLogEntry& e) {
          {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stopping_ || e.sequence_id <= released_; });
          }
          if (callback) callback(e);
          const std::lock_guard lock(mutex_);
          ++completed_;
          cv_.notify_all();
        });
    if (handle) {
      const std::lock_guard lock(mutex_);
      ++committed_;
      last_committed_ = std::max(last_committed_, handle->sequence_id());
    }
    return handle;
  }

  // Releases every entry committed so far, again at each wake-up (a callback
  // may commit more), until each callback has run or a write failed.
  void settle() {
    std::unique_lock lock(mutex_);
    while (!stopping_ && !failed_ && completed_ != committed_) {
      released_ = last_committed_;
      cv_.notify_all();
      cv_.wait(lock);
    }
    if (failed_)
      throw std::runtime_error("mooncake target: the operation log's store refused a batch write: " +
                               std::string(mc::toString(*failed_)));
  }

  void Stop() override {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    OrderedOpLogWriter::Stop();
  }

 private:
  void fail(mc::ErrorCode err) {
    const std::lock_guard lock(mutex_);
    failed_ = err;
    cv_.notify_all();
  }

  // A batch is written once settle() has released its last entry; false
  // when the writer stops first: the batch never lands (the primary is gone).
  bool wait_for_release(uint64_t last_seq) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return stopping_ || last_seq <= released_; });
    return last_seq <= released_;
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t committed_ = 0, completed_ = 0, last_committed_ = 0, released_ = 0;
  bool stopping_ = false;
  std::optional<mc::ErrorCode> failed_;
};

}  // namespace

class Log {
 public:
  std::shared_ptr<MemoryKv> kv;
  SettlingWriter* writer = nullptr;  // owned by the master
};

void configure(mc::MasterServiceConfig& config) {
  config.enable_ha = true;
  config.enable_oplog = true;
  config.ha_backend_type = "etcd";  // the mode's only backend; the store is installed, never dialled
  config.cluster_id = kClusterId;
}

namespace {

std::shared_ptr<Log> install_on(mc::MasterService& service, std::shared_ptr<MemoryKv> kv, std::string* error) {
  auto log = std::make_shared<Log>();
  log->kv = std::move(kv);
  mc::test::MasterServiceSnapshotTestBase::SetOpLogWriterFactory(
      service, [weak = std::weak_ptr<Log>(log)](mc::OrderedOpLogWriterConfig config,
                                                mc::OrderedOpLogWriter::WriteBatchFn write) {
        auto writer = std::make_unique<SettlingWriter>(std::move(config), std::move(write));
        if (auto held = weak.lock()) held->writer = writer.get();
        return std::unique_ptr<mc::OrderedOpLogWriter>(std::move(writer));
      });
  const mc::ErrorCode err = service.SetBatchOpLogBackendForTesting(log->kv);
  if (err != mc::ErrorCode::OK || !log->writer) {
    *error = "MasterService did not start its operation log: " + std::string(mc::toString(err));
    return nullptr;
  }
  return log;
}

}  // namespace

std::shared_ptr<Log> install(mc::MasterService& service, std::string* error) {
  return install_on(service, std::make_shared<MemoryKv>(), error);
}

void settle(Log& log) { log.writer->settle(); }

#if PINSIM_MC_HAS_STANDBY_RESTORE
std::shared_ptr<Log> install_continuing(mc::MasterService& service, const Log& previous, std::string* error) {
  return install_on(service, previous.kv, error);
}

bool read_standby(Log& log, mc::StandbySnapshot* out, std::string* error) {
  mc::StandbyMetadataStore store;
  mc::OpLogApplier applier(&store, kClusterId);
  mc::OpLogBatchStandbyReader reader(kClusterId, *log.kv, applier);
  auto applied = [&] { return applier.GetExpectedSequenceId() - 1; };
  for (int polls = 0; polls < 1'000; ++polls) {  // each poll reads up to 1,024 batches
    const mc::OpLogBatchStandbyPollResult r = reader.PollOnce();
    if (r.error != mc::ErrorCode::OK) {
      *error = "the standby's poll of the operation log failed: " + std::string(mc::toString(r.error));
      return false;
    }
    if (!r.durable_prefix_present || applied() >= r.durable_prefix.last_seq) {
      out->oplog_sequence_id = applied();
      store.Snapshot(out->objects);
      out->segments = applier.GetSegmentRegistry().GetAllSegments();
      return true;
    }
  }
  *error = "the standby did not catch up with the operation log's durable prefix";
  return false;
}
#endif

}  // namespace pinsim::mooncake_oplog
#endif
