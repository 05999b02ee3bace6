// ObjectMetadata's soft-pin transitions; see object_metadata.h. Every change
// of the stored deadline happens here, under the object lock, and reports the
// gauge delta and index update for the caller to apply after releasing it.
#include "object_metadata.h"

#include <algorithm>

namespace pinsim::embedded {

Time compute_deadline(Time now, uint64_t ttl_ms, bool wrap) {
  // F6: plain unsigned addition that wraps past the end of time, as an
  // unchecked `now + milliseconds(ttl)` does, instead of saturating.
  if (wrap) return static_cast<Time>(static_cast<uint64_t>(now) + ttl_ms);
  return saturating_deadline(now, ttl_ms);
}

ObjectMetadata::ObjectMetadata(SoftPinGauge& gauge, std::optional<Time> committed, bool f3_shadow)
    : gauge_(gauge), soft_pin_timeout_(committed), last_committed_(committed), f3_shadow_(f3_shadow) {
  if (committed) gauge_.add(1);
}

ObjectMetadata::~ObjectMetadata() {
  // F3: the destructor decides its -1 from the deadline as last committed, so
  // a pin the expiry cycle already cleared (and counted) is decremented again.
  const bool counted = f3_shadow_ ? last_committed_.has_value() : soft_pin_timeout_.has_value();
  if (counted) gauge_.add(-1);
}

// The master is quiescent when it is copied: no lock of `o` is needed.
ObjectMetadata::ObjectMetadata(const ObjectMetadata& o, SoftPinGauge& gauge)
    : client(o.client), size(o.size), replicas(o.replicas), pending(o.pending), lease(o.lease),
      put_start_time(o.put_start_time), group(o.group), hard_pinned(o.hard_pinned), processing(o.processing),
      checksum(o.checksum), task(o.task), quota(o.quota), dynamic_replicas(o.dynamic_replicas),
      recreate_after(o.recreate_after), offload(o.offload), promotion(o.promotion), refcnt(o.refcnt),
      gauge_(gauge), soft_pin_timeout_(o.soft_pin_timeout_),
      last_committed_(o.last_committed_), f3_shadow_(o.f3_shadow_), committed_ttl_ms_(o.committed_ttl_ms_) {}

std::unique_ptr<ObjectMetadata> ObjectMetadata::copy_for(SoftPinGauge& gauge) const {
  return std::unique_ptr<ObjectMetadata>(new ObjectMetadata(*this, gauge));
}

std::optional<Time> ObjectMetadata::committed_deadline() const {
  std::lock_guard guard(lock_);
  return soft_pin_timeout_;
}

SoftPinEvaluation ObjectMetadata::evaluate(Time now) {
  SoftPinEvaluation eval;
  std::lock_guard guard(lock_);
  if (soft_pin_timeout_ && now >= *soft_pin_timeout_) {
    eval.removed_deadline = soft_pin_timeout_;
    eval.delta = -1;
    soft_pin_timeout_.reset();
    last_committed_.reset();
  }
  eval.active = soft_pin_timeout_.has_value();
  return eval;
}

SoftPinEvaluation ObjectMetadata::commit_pending(Time now, bool wrap) {
  if (!pending) return evaluate(now);
  const Pending p = std::move(*pending);
  pending.reset();
  SoftPinEvaluation eval;
  std::lock_guard guard(lock_);
  auto drop = [&] {
    if (!soft_pin_timeout_) return;
    eval.removed_deadline = soft_pin_timeout_;
    eval.delta -= 1;
    soft_pin_timeout_.reset();
  };
  if (soft_pin_timeout_ && now >= *soft_pin_timeout_) drop();  // a stale deadline goes first
  switch (p.action) {
    case SoftPinAction::Preserve:
      break;
    case SoftPinAction::Enable:
      if (p.ttl_ms == 0) {
        drop();
      } else {
        if (!soft_pin_timeout_) eval.delta += 1;
        soft_pin_timeout_ = compute_deadline(now, p.ttl_ms, wrap);
        eval.deadline_to_index = soft_pin_timeout_;
        eval.removed_deadline.reset();  // the Upsert supersedes it
        committed_ttl_ms_ = p.ttl_ms;
      }
      break;
    case SoftPinAction::Disable:
      drop();
      break;
  }
  last_committed_ = soft_pin_timeout_;
  eval.active = soft_pin_timeout_ && now < *soft_pin_timeout_;
  return eval;
}

bool ObjectMetadata::expire_if_matches(Time expected, Time now, bool check_equality) {
  std::lock_guard guard(lock_);
  if (!soft_pin_timeout_) return false;
  if (check_equality && (*soft_pin_timeout_ != expected || now < expected)) return false;
  soft_pin_timeout_.reset();  // last_committed_ stays: see F3 in the destructor
  return true;
}

SoftPinEvaluation ObjectMetadata::renew_to(Time deadline) {
  SoftPinEvaluation eval;
  std::lock_guard guard(lock_);
  if (!soft_pin_timeout_) eval.delta = 1;
  soft_pin_timeout_ = deadline;
  last_committed_ = deadline;
  eval.deadline_to_index = deadline;
  eval.active = true;
  return eval;
}

size_t ObjectMetadata::forget_dynamic_replicas(std::vector<Replica>::const_iterator from,
                                               std::vector<Replica>::const_iterator end) {
  size_t forgotten = 0;
  for (auto r = from; r != end && !dynamic_replicas.empty(); ++r) forgotten += dynamic_replicas.erase(r->id);
  return forgotten;
}

const Replica* ObjectMetadata::replica_on(uint32_t segment) const {
  for (const Replica& r : replicas)
    if (r.segment == segment) return &r;
  return nullptr;
}

uint32_t ObjectMetadata::complete_memory_replicas() const {
  return static_cast<uint32_t>(std::count_if(replicas.begin(), replicas.end(), [](const Replica& r) {
    return r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete;
  }));
}

bool ObjectMetadata::any_complete() const {
  return std::any_of(replicas.begin(), replicas.end(),
                     [](const Replica& r) { return r.status == ReplicaStatus::Complete; });
}

bool ObjectMetadata::all_complete() const {
  return std::all_of(replicas.begin(), replicas.end(),
                     [](const Replica& r) { return r.status == ReplicaStatus::Complete; });
}

bool ObjectMetadata::write_complete() const {
  return std::all_of(replicas.begin(), replicas.end(),
                     [](const Replica& r) { return r.copy || r.status == ReplicaStatus::Complete; });
}

bool ObjectMetadata::evictable(const Replica& r) const {
  return !r.copy && r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete &&
         !(task && task->source == r.id) && !refcnt.count(r.id);
}

bool ObjectMetadata::has_evictable_memory() const {
  return std::any_of(replicas.begin(), replicas.end(), [this](const Replica& r) { return evictable(r); });
}

bool ObjectMetadata::memory_processing() const {
  return std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) {
    return !r.copy && r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Processing;
  });
}

uint64_t ObjectMetadata::complete_memory_bytes() const {
  const auto n = std::count_if(replicas.begin(), replicas.end(), [](const Replica& r) {
    return !r.copy && r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete;
  });
  return size * static_cast<uint64_t>(n);
}

uint64_t ObjectMetadata::write_memory_bytes() const {
  const auto n = std::count_if(replicas.begin(), replicas.end(), [](const Replica& r) {
    return !r.copy && r.kind == ReplicaKind::Memory;
  });
  return size * static_cast<uint64_t>(n);
}

uint32_t ObjectMetadata::viable_pending_replicas() const {
  if (!pending) return 0;
  uint32_t n = 0;
  for (const Replica& r : replicas)
    if (r.status == ReplicaStatus::Processing && pending->is_eligible(r.id)) ++n;
  return n;
}

}  // namespace pinsim::embedded
