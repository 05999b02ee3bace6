// The model's objects: an ordered map (Views and scans go in key order) plus
// a hash index for O(1) lookups. The index holds iterators into the map, so
// copying rebuilds it (a copied index would point into the other table; the
// explorer copies models).
#pragma once
#include <map>
#include <unordered_map>

#include "object.h"

namespace pinsim {

class ObjectTable {
 public:
  using Map = std::map<ObjectId, Object>;

  ObjectTable() = default;
  ObjectTable(const ObjectTable& other) : map_(other.map_) { reindex(); }
  ObjectTable& operator=(const ObjectTable& other) {
    if (this != &other) {
      map_ = other.map_;
      reindex();
    }
    return *this;
  }
  ObjectTable(ObjectTable&&) noexcept = default;
  ObjectTable& operator=(ObjectTable&&) noexcept = default;

  Map::iterator find(ObjectId id) {
    auto it = index_.find(id);
    return it == index_.end() ? map_.end() : it->second;
  }
  Map::const_iterator find(ObjectId id) const {
    auto it = index_.find(id);
    return it == index_.end() ? map_.cend() : Map::const_iterator(it->second);
  }
  Object& insert(ObjectId id, Object obj) {
    auto it = map_.emplace(id, std::move(obj)).first;
    index_.emplace(id, it);
    return it->second;
  }
  void erase(Map::iterator it) {
    index_.erase(it->first);
    map_.erase(it);
  }
  Map::iterator begin() { return map_.begin(); }
  Map::iterator end() { return map_.end(); }
  Map::const_iterator begin() const { return map_.begin(); }
  Map::const_iterator end() const { return map_.end(); }
  bool empty() const { return map_.empty(); }
  size_t size() const { return map_.size(); }
  const Map& map() const { return map_; }

 private:
  struct IdHash {
    size_t operator()(ObjectId id) const { return (uint64_t{id.tenant} << 32 | id.key) * 0x9e3779b97f4a7c15ull >> 16; }
  };
  void reindex() {
    index_.clear();
    for (auto it = map_.begin(); it != map_.end(); ++it) index_.emplace(it->first, it);
  }
  Map map_;
  std::unordered_map<ObjectId, Map::iterator, IdHash> index_;
};

}  // namespace pinsim
