#pragma once
// Byte counts on the command line: "1G" = 1e9, "64M" = 64e6, "1Gi" = 2^30, "4096", "1.5G".
// GB = 1e9 bytes everywhere in the model (model/units.h); the binary suffixes are there for
// sizes that really are powers of two.

#include <cstdint>
#include <string>
#include <string_view>

namespace ringbench::topomodel {

// InputError naming `flag` unless the text is a positive size.
uint64_t parse_bytes(std::string_view text, std::string_view flag);
// A positive count such as "70e9" or "175000000000" (InputError naming `flag`).
double parse_count(std::string_view text, std::string_view flag);
// "1 GB", "64 MB", "4.2 kB", "512 B" (decimal units).
std::string human_bytes(double bytes);

}  // namespace ringbench::topomodel
