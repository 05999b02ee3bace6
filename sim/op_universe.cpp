// Interned ops and per-input op lists; see op_universe.h.
#include "op_universe.h"

#include <bit>
#include <unordered_set>

namespace pinsim {

namespace {

// A hash of every field of an op (Op::fields()), for de-duplicating the
// odometer's runs; ops with equal hashes are then compared field by field,
// so two ops that differ in any field never merge.
uint64_t op_hash(const Op& op) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto word = [&](uint64_t v) { h = (std::rotl(h, 23) ^ v) * 0xff51afd7ed558ccdull; };
  auto add = [&](const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::vector<GroupId>> || std::is_same_v<T, std::vector<uint64_t>>) {
      word(v.size());
      for (uint64_t x : v) word(x);
    } else if constexpr (std::is_same_v<T, std::optional<uint64_t>> || std::is_same_v<T, std::optional<uint32_t>>) {
      word(v.has_value());
      word(v.value_or(0));
    } else {
      word(static_cast<uint64_t>(v));
    }
  };
  std::apply([&](const auto&... f) { (add(f), ...); }, op.fields());
  return h ^ (h >> 29);
}

}  // namespace

std::vector<Op> all_ops(const Workload& generator, const Model& model, Time now) {
  std::vector<Op> ops;
  // Positions in ops, hashed and compared by the op they name; a candidate is
  // appended first and taken back when an equal op is already there.
  auto hash = [&](uint32_t i) { return op_hash(ops[i]); };
  auto equal = [&](uint32_t i, uint32_t j) { return ops[i] == ops[j]; };
  std::unordered_set<uint32_t, decltype(hash), decltype(equal)> seen(1024, hash, equal);
  OdometerChoices odometer;
  do {
    ops.push_back(generator.next(odometer, model, now));
    if (!seen.insert(static_cast<uint32_t>(ops.size() - 1)).second) ops.pop_back();
  } while (odometer.next());
  return ops;
}

size_t OpUniverse::WordsHash::operator()(const std::vector<uint64_t>& words) const {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ words.size();
  for (uint64_t w : words) h = (std::rotl(h, 23) ^ w) * 0xff51afd7ed558ccdull;
  return static_cast<size_t>(h ^ (h >> 29));
}

uint32_t OpUniverse::intern(const Op& op) {
  const uint64_t h = op_hash(op);
  auto [first, last] = index_.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (table_[it->second] == op) return it->second;
  const auto i = static_cast<uint32_t>(table_.size());
  table_.push_back(op);
  index_.emplace(h, i);
  bytes_ += sizeof(Op) + 32 + (op.keys.size() + op.sizes.size() + op.groups.size()) * sizeof(uint64_t);
  return i;
}

const std::vector<uint32_t>& OpUniverse::ops_in(const Model& model, Time now) {
  generator_.generator_input(model, now, &input_);
  if (auto it = lists_.find(input_); it != lists_.end()) return it->second;
  std::vector<uint32_t> list;
  for (const Op& op : all_ops(generator_, model, now)) list.push_back(intern(op));
  bytes_ += 64 + input_.size() * sizeof(uint64_t) + list.size() * sizeof(uint32_t);
  return lists_.emplace(input_, std::move(list)).first->second;
}

}  // namespace pinsim
