#include "results/attributes.h"

#include <fmt/format.h>

#include "results/hdf5_types.h"

namespace ringbench::results {
namespace {

// Creates `name` on `object` with the given type and shape, deleting an older one first
// (H5Acreate2 refuses to overwrite).
Attribute create_attribute(hid_t object, const char* name, hid_t type, hid_t space,
                           std::string_view context) {
  if (check_bool(H5Aexists(object, name), context, fmt::format("look for attribute '{}'", name)))
    check_status(H5Adelete(object, name), context, fmt::format("replace attribute '{}'", name));
  return Attribute(check_id(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), context,
                            fmt::format("create attribute '{}'", name)));
}

}  // namespace

void write_int64_attribute(hid_t object, const char* name, int64_t value, std::string_view context) {
  Dataspace scalar(check_id(H5Screate(H5S_SCALAR), context, "create a dataspace"));
  Attribute attribute = create_attribute(object, name, H5T_STD_I64LE, scalar.get(), context);
  check_status(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &value), context,
               fmt::format("write attribute '{}'", name));
}

void write_string_attribute(hid_t object, const char* name, std::string_view value,
                            std::string_view context) {
  const std::string text(value);
  const char* pointer = text.c_str();
  Datatype type = utf8_string_type();
  Dataspace scalar(check_id(H5Screate(H5S_SCALAR), context, "create a dataspace"));
  Attribute attribute = create_attribute(object, name, type.get(), scalar.get(), context);
  check_status(H5Awrite(attribute.get(), type.get(), &pointer), context,
               fmt::format("write attribute '{}'", name));
}

void write_string_array_attribute(hid_t object, const char* name, std::span<const std::string> values,
                                  std::string_view context) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const std::string& value : values) pointers.push_back(value.c_str());
  const hsize_t count = values.size();
  Datatype type = utf8_string_type();
  Dataspace space(check_id(H5Screate_simple(1, &count, nullptr), context, "create a dataspace"));
  Attribute attribute = create_attribute(object, name, type.get(), space.get(), context);
  check_status(H5Awrite(attribute.get(), type.get(), pointers.data()), context,
               fmt::format("write attribute '{}'", name));
}

std::optional<int64_t> read_int64_attribute(hid_t object, const char* name, std::string_view context) {
  if (!check_bool(H5Aexists(object, name), context, fmt::format("look for attribute '{}'", name)))
    return std::nullopt;
  Attribute attribute(
      check_id(H5Aopen(object, name, H5P_DEFAULT), context, fmt::format("open attribute '{}'", name)));
  Dataspace space(check_id(H5Aget_space(attribute.get()), context, "read an attribute's shape"));
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw ResultsError(fmt::format("{}: attribute '{}' is not a single integer", context, name));
  int64_t value = 0;
  check_status(H5Aread(attribute.get(), H5T_NATIVE_INT64, &value), context,
               fmt::format("read attribute '{}' as an integer", name));
  return value;
}

std::optional<std::vector<std::string>> read_string_array_attribute(hid_t object, const char* name,
                                                                    std::string_view context) {
  if (!check_bool(H5Aexists(object, name), context, fmt::format("look for attribute '{}'", name)))
    return std::nullopt;
  Attribute attribute(
      check_id(H5Aopen(object, name, H5P_DEFAULT), context, fmt::format("open attribute '{}'", name)));
  Dataspace space(check_id(H5Aget_space(attribute.get()), context, "read an attribute's shape"));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) throw_hdf5_error(context, fmt::format("read the shape of attribute '{}'", name));

  Datatype type = utf8_string_type();
  std::vector<char*> pointers(static_cast<size_t>(count), nullptr);
  check_status(H5Aread(attribute.get(), type.get(), pointers.data()), context,
               fmt::format("read attribute '{}' as strings", name));
  ReclaimVlenOnExit reclaim(type.get(), space.get(), pointers.data());
  std::vector<std::string> values;
  values.reserve(pointers.size());
  for (const char* pointer : pointers) values.emplace_back(pointer != nullptr ? pointer : "");
  return values;
}

}  // namespace ringbench::results
