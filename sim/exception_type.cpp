// The demangled name of an exception's type; see exception_type.h.
#include "exception_type.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace pinsim {

std::string exception_type(const std::exception& e) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                                    std::free);
  return status == 0 && name ? name.get() : typeid(e).name();
}

}  // namespace pinsim
