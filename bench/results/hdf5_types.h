#pragma once
// How a table's columns map to HDF5 datatypes, in both directions.
//
// Every column takes one 8-byte slot of the compound type, in column order: int64, uint64 and
// float64 values directly, strings as a `char*` to a NUL-terminated UTF-8 string (HDF5's
// variable-length string). With equal slots the in-memory record needs no padding arithmetic and
// the file record has the same offsets; h5py shows the table as a numpy structured array with
// fields int64, uint64, float64 and object (bytes).

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "results/hdf5_handle.h"
#include "results/results_file.h"

namespace ringbench::results {

inline constexpr size_t kSlotBytes = 8;
static_assert(sizeof(int64_t) == kSlotBytes && sizeof(uint64_t) == kSlotBytes &&
                  sizeof(double) == kSlotBytes && sizeof(char*) == kSlotBytes,
              "the row layout assumes 8-byte values and pointers");

// The variable-length UTF-8 C string type, used for string columns and string attributes.
Datatype utf8_string_type();

// File types are fixed little-endian (what h5py and h5dump expect on every machine); memory
// types are native. HDF5 converts between them on read and write.
enum class TypeUse { File, Memory };
Datatype compound_type(std::span<const Column> columns, TypeUse use);

// The columns (name and type only; unit and description empty) of a dataset's compound type.
// Throws ResultsError naming `context` if the type is not a compound of types we can represent
// (e.g. a table written by hand with fixed-length strings).
std::vector<Column> columns_of_type(hid_t compound, std::string_view context);

// "int64", "uint64", "float64", "string": for error messages.
std::string_view type_name(ColumnType type);

}  // namespace ringbench::results
