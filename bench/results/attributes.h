#pragma once
// Attributes the results file carries: the root's `ringbench_schema_version` (int64) and each
// table's `description` (a string) and `column_units` / `column_descriptions` (one string per
// column). Strings are variable-length UTF-8, like the string columns.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "results/hdf5_handle.h"

namespace ringbench::results {

// Writers replace an existing attribute of the same name. `context` names the object for
// errors, as in check_id().
void write_int64_attribute(hid_t object, const char* name, int64_t value, std::string_view context);
void write_string_attribute(hid_t object, const char* name, std::string_view value, std::string_view context);
void write_string_array_attribute(hid_t object, const char* name, std::span<const std::string> values,
                                  std::string_view context);

// Readers return nullopt when the attribute does not exist.
std::optional<int64_t> read_int64_attribute(hid_t object, const char* name, std::string_view context);
std::optional<std::vector<std::string>> read_string_array_attribute(hid_t object, const char* name,
                                                                    std::string_view context);

}  // namespace ringbench::results
