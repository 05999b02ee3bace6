// Writing files; see text_file.h.
#include "text_file.h"

#include <filesystem>
#include <fstream>

namespace pinsim {

bool can_write(const std::string& path) {
  const bool existed = std::filesystem::exists(path);
  {
    std::ofstream probe(path, std::ios::app);
    if (!probe) return false;
  }
  if (!existed) std::filesystem::remove(path);
  return true;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return out && (out << text);
}

}  // namespace pinsim
