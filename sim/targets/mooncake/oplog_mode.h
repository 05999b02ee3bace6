// HA-OpLog mode (README.md, "HA-OpLog mode"): MasterService with its
// operation log on, the log kept in memory. Mooncake's ordered writer seals
// entries into batches (in Commit and on its own thread), writes them on
// that thread and runs each entry's durable callback (a Remove's erase, a
// revoked replica's release) on another; left
// alone, when a callback runs against the next op would depend on those
// threads. Here the callbacks wait until the adapter settles the log after
// each op: every entry the op committed is written, then its callbacks run
// in sequence order, before the op's View is read. So a run in this mode is
// as deterministic as one without it, and sees what a primary shows once
// its log has caught up. The batches written stay in the in-memory store.
// Only on trees whose MasterService takes a writer factory
// (PINSIM_MC_HAS_OPLOG_WRITER_FACTORY).
#pragma once
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
#include <memory>

#include "master_service.h"

namespace pinsim::mooncake_oplog {

class Log;

// The master's configuration for the mode: HA with the operation log on, at
// Mooncake's default batch size (1,024 entries: no op here reserves that many).
void configure(mooncake::MasterServiceConfig& config);

// Installs a fresh log on `service` (a writer and an empty store); a kept
// master gets a new one each run. Returns it, or nullptr with `error` set.
std::shared_ptr<Log> install(mooncake::MasterService& service, std::string* error);

// Waits until every entry committed so far is durable and its callback has
// run; throws std::runtime_error if the store refused a write. Never called
// on a thread that holds a lock a callback takes.
void settle(Log& log);

#if PINSIM_MC_HAS_STANDBY_RESTORE
// Failover (README.md, "Failover"). What a standby holds once it has read
// the whole log: Mooncake's OpLogBatchStandbyReader polls the store and its
// OpLogApplier applies each batch to a StandbyMetadataStore, as
// HotStandbyService's final catch-up before a promotion does; the export is
// PromoteAndExportSnapshot's. False with `error` set when a poll fails or the
// standby does not catch up with the durable prefix.
bool read_standby(Log& log, mooncake::StandbySnapshot* out, std::string* error);

// Installs on `service` a writer that continues `previous`'s log in the same
// store (the new primary's writer starts from its durable prefix).
std::shared_ptr<Log> install_continuing(mooncake::MasterService& service, const Log& previous, std::string* error);
#endif

}  // namespace pinsim::mooncake_oplog
#endif
