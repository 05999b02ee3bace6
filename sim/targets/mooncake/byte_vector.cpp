// Mooncake's snapshot codec appends a snapshot to a std::vector<uint8_t> one
// byte at a time (SerializationHelper::serializeUint32: four push_backs per
// word; the segments' offset allocators are most of it). In a Debug Mooncake
// build each push_back is a call into the unoptimised copy of libstdc++'s
// template and half a dozen calls under it, and encoding was a quarter of a
// campaign's time. Every object file that uses a template member carries its
// own weak (COMDAT) copy, and the linker keeps the first it meets: this
// file's, an explicit instantiation compiled with pinsim's optimisation, is a
// source of each executable and comes before Mooncake's libraries. It is the
// same libstdc++ code (the one-definition rule makes all copies equivalent);
// Mooncake's own functions still run as its build compiled them.
// Configure with -DPINSIM_MOONCAKE_OPTIMISED_BYTE_VECTOR=OFF to leave it out.
#include <cstdint>
#include <vector>

template class std::vector<std::uint8_t>;
