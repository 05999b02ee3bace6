// The log's window (config oplog_lag; rules log.window, log.catch-up;
// docs/interpretations.md, "The log's window"). In HA-OpLog mode a removal
// the master logs is visible at once (a read answers OBJECT_NOT_FOUND, the
// key is free for a new write) and finalised once its entry is durable
// (Mooncake's RFC 2756, "Phase 4: Remove/Evict Logical Remove and Durable
// Finalize"): until the log catches up, the removed object is retiring, its
// memory still allocated, its charge still charged, its soft pin still
// counted by the gauge, and its memory still counted as cached. Without the
// lag the log catches up after every op, so nothing retires.
#include "model.h"

namespace pinsim {

namespace {

uint64_t memory_replicas(const Replicas& replicas) {
  return static_cast<uint64_t>(
      std::count_if(replicas.begin(), replicas.end(), [](const Replica& r) { return r.kind == ReplicaKind::Memory; }));
}

bool has_complete_memory(const Replicas& replicas) {
  return std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.complete_memory(); });
}

}  // namespace

// An object a logged removal takes: erased now, or, while the log lags,
// retiring with everything it holds (rule log.window).
void Model::remove_logged(ObjectTable::Entry* it) {
  if (!config_.oplog_lag) return erase_object(it);
  hits_.hit(Rule::LogWindow);
  Object& obj = it->second;
  Retiring r{it->first, obj.size, obj.replicas, obj.charged_bytes(), obj.deadline, has_complete_memory(obj.replicas)};
  if (obj.deadline) deadlines_.erase({*obj.deadline, it->first});  // the gauge keeps counting it (retiring_)
  obj.deadline.reset();
  obj.replicas.erase(obj.replicas.begin(), obj.replicas.end());  // held by the retiring entry, not released
  erase_object(it);
  retire(std::move(r));
}

// One entry per object, as Mooncake keeps one metadata: what its removals
// hold (an eviction's replicas, then the object's removal) adds up. A key
// written again is another object (close_retiring).
void Model::retire(Retiring&& r) {
  auto same = std::find_if(retiring_.begin(), retiring_.end(),
                           [&](const Retiring& x) { return x.id == r.id && !x.closed; });
  if (same == retiring_.end()) return retiring_.push_back(std::move(r));
  for (const Replica& x : r.replicas) same->replicas.push_back(x);
  for (Discarded& d : r.discarding) same->discarding.push_back(std::move(d));
  same->removal |= r.removal;
  same->write_discard |= r.write_discard;
  same->copy_discard |= r.copy_discard;
  same->charge += r.charge;
  if (r.deadline) same->deadline = r.deadline;
  same->cached |= r.cached;
}

// Replicas [from, end) of `obj` a logged removal takes (an eviction, a
// revoke): freed now, or, while the log lags, held by a retiring entry with
// the charge they carried (rule log.window).
// With `memory_gone` (an unmount: the segment's memory went with it) their
// bytes are freed now and only the charge and the cached count are held.
void Model::remove_logged(ObjectId id, Object& obj, Replicas::iterator from, bool memory_gone) {
  if (!config_.oplog_lag || from == obj.replicas.end()) return free_replicas(id, obj, from);
  hits_.hit(Rule::LogWindow);
  const uint64_t charged = obj.charged_bytes();
  const bool was_cached = has_complete_memory(obj.replicas);
  Retiring r{id, obj.size, {from, obj.replicas.end()}, 0, std::nullopt, false};
  // What the log knows and a logged removal therefore takes: everything an
  // eviction or a Revoke takes, and of an unmount's, the COMPLETE replicas.
  // A PROCESSING replica lost with its segment (a copy's target) was never
  // logged: the charge it carried goes at once, as without the lag.
  const bool marked = !memory_gone || std::any_of(r.replicas.begin(), r.replicas.end(), [](const Replica& x) {
    return x.status == ReplicaStatus::Complete;
  });
  if (memory_gone) {
    for (const Replica& x : r.replicas) release_replica(x, obj.size);
    r.replicas.erase(r.replicas.begin(), r.replicas.end());
  }
  note_replicas_gone(obj, from);
  obj.replicas.erase(from, obj.replicas.end());
  r.charge = charged - std::min(charged, obj.charged_bytes());
  r.cached = was_cached && !has_complete_memory(obj.replicas);
  if (marked) retire(std::move(r));
}

// The reaper's discard of an expired write's or copy's PROCESSING replicas
// [from, end) of `obj`: Mooncake logs it when the object has a COMPLETE
// replica (the log knows it) and moves them to its discard list in the
// durable callback. While the log lags they are gone for clients at once and
// held, with the charge they carried, until the catch-up (rule log.window);
// otherwise they join the discard list now. Returns whether it retired them.
bool Model::discard_logged(ObjectId id, Object& obj, Replicas::iterator from, Time release_at, bool write) {
  const bool logged = std::any_of(obj.replicas.begin(), from, [](const Replica& r) {
    return r.status == ReplicaStatus::Complete;
  });
  if (!config_.oplog_lag || !logged || from == obj.replicas.end()) {
    discard_replicas(id, obj, from, release_at);
    return false;
  }
  hits_.hit(Rule::LogWindow);
  const uint64_t charged = obj.charged_bytes();
  Retiring r{id, obj.size, {}, 0, std::nullopt, false, false, {{release_at, {from, obj.replicas.end()}, obj.size}},
             false, write, !write};
  note_replicas_gone(obj, from);
  obj.replicas.erase(from, obj.replicas.end());
  r.charge = charged - std::min(charged, obj.charged_bytes());
  retire(std::move(r));
  return true;
}

// A new object of `id`: the retiring ones of its key are another object's.
void Model::close_retiring(ObjectId id) {
  for (Retiring& r : retiring_)
    if (r.id == id) r.closed = true;
}

// An unmount: the retiring replicas on `segment` lose their memory with it
// (their charge and pin stay held).
void Model::release_retiring_on(uint32_t segment) {
  for (Retiring& r : retiring_) {
    std::vector<Replicas*> held{&r.replicas};
    for (Discarded& d : r.discarding) held.push_back(&d.replicas);
    for (Replicas* h : held) {
      auto first = h->stable_partition([&](const Replica& x) { return x.segment != segment; });
      for (auto x = first; x != h->end(); ++x) release_replica(*x, r.size);
      h->erase(first, h->end());
    }
  }
}

// A charge a logged removal's durable callback releases (a Revoke's
// settlement; with `removal` false, the settlement of a write the reaper
// discarded): held while the log lags (rule log.window).
void Model::hold_charge(ObjectId id, uint64_t size, uint64_t bytes, bool removal) {
  if (!config_.oplog_lag || bytes == 0) return;
  Retiring r{id, size, {}, bytes, std::nullopt, false};
  r.removal = removal;
  retire(std::move(r));
}

// The log catches up (rule log.catch-up): every retiring object's memory is
// freed, its charge released, its soft pin no longer counted; the reaper's
// discards join the discard list (their memory freed there when due).
void Model::catch_up_log() {
  if (!retiring_.empty()) hits_.hit(Rule::LogCatchUp);
  for (Retiring& r : retiring_) {
    for (const Replica& x : r.replicas) release_replica(x, r.size);
    for (Discarded& d : r.discarding) discarded_.push_back(std::move(d));
    if (r.deadline) --gauge_;
  }
  retiring_.clear();
}

// CleanupExpiredSoftPins expires a retiring object's due pin as any other
// (the deadline index still holds it until the object is finalised).
void Model::expire_retiring_pins(Time now) {
  for (Retiring& r : retiring_)
    if (r.deadline && *r.deadline <= now) {
      hits_.hit(Rule::Cleanup);
      r.deadline.reset();
      --gauge_;
    }
}

std::vector<ObjectId> Model::write_discards_awaiting_log() const {
  std::vector<ObjectId> ids;
  for (const Retiring& r : retiring_)
    if (r.write_discard) ids.push_back(r.id);
  return ids;
}

std::vector<ObjectId> Model::copy_discards_awaiting_log() const {
  std::vector<ObjectId> ids;
  for (const Retiring& r : retiring_)
    if (r.copy_discard) ids.push_back(r.id);
  return ids;
}

std::vector<ObjectId> Model::removals_awaiting_log() const {
  std::vector<ObjectId> ids;
  for (const Retiring& r : retiring_)
    if (r.removal) ids.push_back(r.id);
  return ids;
}

uint64_t Model::retiring_charge(TenantId tenant) const {
  uint64_t charged = 0;
  for (const Retiring& r : retiring_)
    if (r.id.tenant == tenant) charged += r.charge;
  return charged;
}

// The retiring objects as a View shows them (sorted by id): the memory
// replicas whose bytes they hold, and a soft pin still counted.
void Model::retiring_view(View* v) const {
  v->retiring.clear();
  for (const Retiring& r : retiring_) {
    ObjectView o;
    o.id = r.id;
    o.size = r.size;
    uint64_t memory = memory_replicas(r.replicas);
    for (const Discarded& d : r.discarding) memory += memory_replicas(d.replicas);
    o.complete_memory = static_cast<uint32_t>(memory);
    o.deadline = r.deadline;
    o.retiring = true;
    v->retiring.push_back(o);
  }
  std::stable_sort(v->retiring.begin(), v->retiring.end(),
                   [](const ObjectView& a, const ObjectView& b) { return a.id < b.id; });
}

// Objects whose memory the cached-objects gauge counts: those with a
// COMPLETE memory replica, and those whose last one is retiring.
uint64_t Model::cached_with_retiring(const View& v) const {
  uint64_t n = cached_objects(v.objects);
  for (const Retiring& r : retiring_) {
    if (!r.cached) continue;
    const ObjectView* o = r.closed ? nullptr : pinsim::find_object(v, r.id);  // a closed one is another object
    n += !(o && o->complete_memory > 0);
  }
  return n;
}

}  // namespace pinsim
