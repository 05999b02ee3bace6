// Writing the files a run leaves (traces, reports, pictures), and the check
// every command makes before any work: whether a path can be written at all.
// The pinsim commands and the Mooncake lane's campaign share these; each
// turns a false into its own one-line error.
#pragma once
#include <string>

namespace pinsim {

// Whether `path` can be written; an existing file is left as it was and a
// probe file is removed again.
bool can_write(const std::string& path);
// Writes `text` to `path` (replacing it); false when it cannot.
bool write_text(const std::string& path, const std::string& text);

}  // namespace pinsim
