#pragma once
// Rows <-> the in-memory record layout of compound_type(columns, TypeUse::Memory): one 8-byte
// slot per column (see hdf5_types.h).

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "results/results_file.h"

namespace ringbench::results {

// Packs `rows` for one H5Dwrite. String slots point into `rows`, which must outlive the buffer.
// A row whose length or value types do not match `columns`, or a string with an embedded NUL
// (a C string would silently cut it), is a caller bug: std::invalid_argument naming `context`,
// the row and the column, thrown before anything is written.
std::vector<std::byte> pack_rows(std::span<const Column> columns, std::span<const Row> rows,
                                 std::string_view context);

// Unpacks one record filled by H5Dread. A null string pointer reads as "".
Row unpack_row(std::span<const Column> columns, const std::byte* record);

}  // namespace ringbench::results
