#include "results/hdf5_types.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace ringbench::results {

Datatype utf8_string_type() {
  constexpr std::string_view kContext = "results library";
  Datatype type(check_id(H5Tcopy(H5T_C_S1), kContext, "copy the C string type"));
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), kContext, "make a variable-length string type");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), kContext, "set the UTF-8 character set");
  check_status(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), kContext, "set NUL termination");
  return type;
}

namespace {

// Returns an id that the caller must not close when it is one of HDF5's predefined types; the
// string type comes back through `owned`, which the caller keeps alive until H5Tinsert copied it.
hid_t member_type(ColumnType type, TypeUse use, Datatype& owned) {
  const bool file = use == TypeUse::File;
  switch (type) {
    case ColumnType::Int64:
      return file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    case ColumnType::UInt64:
      return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    case ColumnType::Float64:
      return file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    case ColumnType::String:
      owned = utf8_string_type();
      return owned.get();
  }
  throw std::logic_error("unknown ColumnType");
}

}  // namespace

Datatype compound_type(std::span<const Column> columns, TypeUse use) {
  constexpr std::string_view kContext = "results library";
  Datatype compound(
      check_id(H5Tcreate(H5T_COMPOUND, columns.size() * kSlotBytes), kContext, "create a compound type"));
  for (size_t i = 0; i < columns.size(); ++i) {
    Datatype owned;
    const hid_t member = member_type(columns[i].type, use, owned);
    check_status(H5Tinsert(compound.get(), columns[i].name.c_str(), i * kSlotBytes, member), kContext,
                 fmt::format("add column '{}' to a compound type", columns[i].name));
  }
  return compound;
}

namespace {

// Maps one compound member's type to a ColumnType, or returns false if none fits.
bool column_type_of(hid_t member, ColumnType& out) {
  const size_t size = H5Tget_size(member);
  switch (H5Tget_class(member)) {
    case H5T_INTEGER:
      if (size != 8) return false;
      out = H5Tget_sign(member) == H5T_SGN_NONE ? ColumnType::UInt64 : ColumnType::Int64;
      return true;
    case H5T_FLOAT:
      if (size != 8) return false;
      out = ColumnType::Float64;
      return true;
    case H5T_STRING:
      if (H5Tis_variable_str(member) <= 0) return false;
      out = ColumnType::String;
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<Column> columns_of_type(hid_t compound, std::string_view context) {
  if (H5Tget_class(compound) != H5T_COMPOUND)
    throw ResultsError(fmt::format("{}: is not a table of compound rows", context));
  const int count = H5Tget_nmembers(compound);
  if (count < 0) throw_hdf5_error(context, "count the columns");

  std::vector<Column> columns;
  for (int i = 0; i < count; ++i) {
    const auto index = static_cast<unsigned>(i);
    // H5Tget_member_name returns memory the caller frees with H5free_memory.
    std::unique_ptr<char, herr_t (*)(void*)> name(H5Tget_member_name(compound, index), H5free_memory);
    if (!name) throw_hdf5_error(context, fmt::format("read the name of column {}", i));
    Datatype member(check_id(H5Tget_member_type(compound, index), context,
                             fmt::format("read the type of column '{}'", name.get())));
    Column column{.name = name.get(), .type = ColumnType::Int64, .unit = {}, .description = {}};
    if (!column_type_of(member.get(), column.type))
      throw ResultsError(fmt::format(
          "{}: column '{}' has a type ringbench cannot read (expected 64-bit integers, float64 or "
          "variable-length strings)",
          context, column.name));
    columns.push_back(std::move(column));
  }
  return columns;
}

std::string_view type_name(ColumnType type) {
  switch (type) {
    case ColumnType::Int64:
      return "int64";
    case ColumnType::UInt64:
      return "uint64";
    case ColumnType::Float64:
      return "float64";
    case ColumnType::String:
      return "string";
  }
  return "unknown";
}

}  // namespace ringbench::results
