// Escaping text for HTML and XML reports (the gate's JUnit and Markdown,
// pinsim show): the five special characters, and control characters other
// than newline shown as a space so that nothing raw reaches a viewer.
#pragma once
#include <string>

namespace pinsim {

inline std::string markup_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else if (static_cast<unsigned char>(c) < 0x20 && c != '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace pinsim
