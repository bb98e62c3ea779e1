#include "results/row_buffer.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "results/hdf5_types.h"

namespace ringbench::results {
namespace {

bool holds(const Value& value, ColumnType type) {
  switch (type) {
    case ColumnType::Int64:
      return std::holds_alternative<int64_t>(value);
    case ColumnType::UInt64:
      return std::holds_alternative<uint64_t>(value);
    case ColumnType::Float64:
      return std::holds_alternative<double>(value);
    case ColumnType::String:
      return std::holds_alternative<std::string>(value);
  }
  return false;
}

std::string_view held_type_name(const Value& value) {
  static constexpr std::string_view kNames[] = {"int64", "uint64", "float64", "string"};
  return kNames[value.index()];
}

template <typename T>
void store(std::byte* slot, const T& value) {
  std::memcpy(slot, &value, sizeof value);
}

template <typename T>
T load(const std::byte* slot) {
  T value;
  std::memcpy(&value, slot, sizeof value);
  return value;
}

}  // namespace

std::vector<std::byte> pack_rows(std::span<const Column> columns, std::span<const Row> rows,
                                 std::string_view context) {
  const size_t record_bytes = columns.size() * kSlotBytes;
  std::vector<std::byte> buffer(rows.size() * record_bytes);
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (row.size() != columns.size())
      throw std::invalid_argument(
          fmt::format("{}: row {} has {} values for {} columns", context, r, row.size(), columns.size()));
    for (size_t c = 0; c < columns.size(); ++c) {
      const Value& value = row[c];
      if (!holds(value, columns[c].type))
        throw std::invalid_argument(
            fmt::format("{}: row {} column '{}' holds a {} value but the column is {}", context, r,
                        columns[c].name, held_type_name(value), type_name(columns[c].type)));
      std::byte* slot = buffer.data() + r * record_bytes + c * kSlotBytes;
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              if (v.find('\0') != std::string::npos)
                throw std::invalid_argument(
                    fmt::format("{}: row {} column '{}' holds a string with an embedded NUL byte", context, r,
                                columns[c].name));
              store(slot, v.c_str());
            } else {
              store(slot, v);
            }
          },
          value);
    }
  }
  return buffer;
}

Row unpack_row(std::span<const Column> columns, const std::byte* record) {
  Row row;
  row.reserve(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::byte* slot = record + c * kSlotBytes;
    switch (columns[c].type) {
      case ColumnType::Int64:
        row.emplace_back(load<int64_t>(slot));
        break;
      case ColumnType::UInt64:
        row.emplace_back(load<uint64_t>(slot));
        break;
      case ColumnType::Float64:
        row.emplace_back(load<double>(slot));
        break;
      case ColumnType::String: {
        const char* text = load<const char*>(slot);
        row.emplace_back(std::string(text != nullptr ? text : ""));
        break;
      }
    }
  }
  return row;
}

}  // namespace ringbench::results
