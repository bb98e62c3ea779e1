#pragma once
// Numbers on the command line. Byte counts: "1G" = 1e9, "64M" = 64e6, "1Gi" = 2^30, "4096",
// "1.5G". GB = 1e9 bytes everywhere in the model (model/units.h); the binary suffixes are there
// for sizes that really are powers of two. Every other numeric flag takes a validator below, so
// that 0, a negative value, nan, inf, or a value beyond its limit (model/input_limits.h) is one
// line naming the flag ("--nodes: must be an integer from 1 to 1048576, got '0'"), exit 2.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ringbench::topomodel {

// InputError naming `flag` unless the text is a size from 1 byte to limits::kMaxBytes.
uint64_t parse_bytes(std::string_view text, std::string_view flag);
// A count such as "70e9" or "175000000000", > 0 and <= max (InputError naming `flag`).
double parse_count(std::string_view text, std::string_view flag, double max);

// The product of parallel sizes (--tp x --pp x ...), or limit + 1 as soon as it passes limit, so
// that four sizes of up to 2^20 each never overflow.
int64_t product_up_to(std::initializer_list<int> sizes, int64_t limit);

// CLI11 validators, for option->check(). They read the text before CLI11 converts it, so a value
// that would not fit the option's type (4294967297 for an int) is an error, never truncated.
// An integer from min to max (no sign tricks, no "1e3", no trailing text).
CLI::Validator integer_in(int64_t min, int64_t max);
// A finite number (not nan or inf) in [min, max], or in (min, max] with above_min.
CLI::Validator number_in(double min, double max, bool above_min = false);
// "1 GB", "64 MB", "4.2 kB", "512 B" (decimal units).
std::string human_bytes(double bytes);

}  // namespace ringbench::topomodel
