// The demangled name of an exception's type. MasterService's calls answer
// with an error code, so an exception out of a target's op is a failure of
// its own, named by this (the lockstep runner and the concurrent lanes).
#pragma once
#include <exception>
#include <string>

namespace pinsim {

std::string exception_type(const std::exception& e);

}  // namespace pinsim
