#include "results/table_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "results/attributes.h"
#include "results/buffered_driver.h"
#include "results/hdf5_file.h"
#include "results/hdf5_types.h"
#include "results/row_buffer.h"

namespace ringbench::results {
namespace {

// Chunks of about 16 KiB of records: large enough that a 100k-row sweep is under a thousand
// chunks, small enough that a one-row /runs table does not cost much in a file that every
// commit copies. (A chunk's size is fixed when the table is created.)
constexpr size_t kChunkBytes = 16 * 1024;
constexpr size_t kMinChunkRows = 16;

std::string table_context(std::string_view table_path, const std::filesystem::path& shown) {
  return fmt::format("table {} in '{}'", table_path, shown.string());
}

// Table paths come from code, not users: a malformed one is a caller bug.
void require_valid_path(std::string_view path) {
  const bool valid = path.size() > 1 && path.front() == '/' && path.back() != '/' &&
                     path.find("//") == std::string_view::npos;
  if (!valid)
    throw std::invalid_argument(fmt::format("results table path '{}' is not of the form /a/b", path));
}

// H5Lexists fails on a path whose parent is missing, so walk down one component at a time.
bool link_exists(hid_t file, std::string_view path, std::string_view context) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string prefix(path.substr(0, end));
    if (!check_bool(H5Lexists(file, prefix.c_str(), H5P_DEFAULT), context,
                    fmt::format("look for '{}'", prefix)))
      return false;
    if (end == std::string_view::npos) return true;
  }
}

// The table's dataset, or an empty handle if it does not exist.
Dataset open_dataset(hid_t file, std::string_view path, std::string_view context) {
  require_valid_path(path);
  if (!link_exists(file, path, context)) return Dataset();
  // H5Oopen opens a group or a dataset alike; an object id of a dataset is a dataset id.
  const std::string name(path);
  const hid_t object = check_id(H5Oopen(file, name.c_str(), H5P_DEFAULT), context, "open it");
  if (H5Iget_type(object) != H5I_DATASET) {
    H5Oclose(object);
    throw ResultsError(fmt::format("{} exists but is a group, not a table", context));
  }
  return Dataset(object);
}

std::vector<Column> stored_columns(hid_t dataset, std::string_view context) {
  Datatype type(check_id(H5Dget_type(dataset), context, "read its type"));
  return columns_of_type(type.get(), context);
}

std::string describe(std::span<const Column> columns) {
  std::string text;
  for (const Column& column : columns) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", column.name, type_name(column.type));
  }
  return text;
}

bool same_column(const Column& a, const Column& b) { return a.name == b.name && a.type == b.type; }

// The one schema rule: same names, same types, same order; an older table may stop short.
enum class Fit { Same, Older };
Fit require_compatible_columns(hid_t dataset, const Table& table, std::string_view context) {
  const std::vector<Column> stored = stored_columns(dataset, context);
  if (std::equal(stored.begin(), stored.end(), table.columns.begin(), table.columns.end(), same_column))
    return Fit::Same;
  if (stored.size() < table.columns.size() &&
      std::equal(stored.begin(), stored.end(), table.columns.begin(), same_column))
    return Fit::Older;
  throw ResultsError(fmt::format("{} has columns ({}) but this writer expects ({})", context, describe(stored),
                                 describe(table.columns)));
}

void require_same_columns(hid_t dataset, const Table& table, std::string_view context) {
  if (require_compatible_columns(dataset, table, context) != Fit::Same)
    throw ResultsError(fmt::format("{} has the columns of an older schema; append to it before updating rows",
                                   context));
}

Dataset create_dataset(hid_t file, const Table& table, std::string_view context) {
  if (table.columns.empty())
    throw std::invalid_argument(fmt::format("{}: a table needs at least one column", context));
  const hsize_t initial = 0;
  const hsize_t unlimited = H5S_UNLIMITED;
  Dataspace space(check_id(H5Screate_simple(1, &initial, &unlimited), context, "create a dataspace"));

  const hsize_t chunk_rows = std::max(kMinChunkRows, kChunkBytes / (table.columns.size() * kSlotBytes));
  PropertyList dcpl(check_id(H5Pcreate(H5P_DATASET_CREATE), context, "create dataset properties"));
  check_status(H5Pset_chunk(dcpl.get(), 1, &chunk_rows), context, "set the chunk size");
  PropertyList lcpl(check_id(H5Pcreate(H5P_LINK_CREATE), context, "create link properties"));
  check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), context, "allow intermediate groups");

  Datatype type = compound_type(table.columns, TypeUse::File);
  Dataset dataset(check_id(
      H5Dcreate2(file, table.path.c_str(), type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
      context, "create it"));

  std::vector<std::string> units;
  std::vector<std::string> descriptions;
  for (const Column& column : table.columns) {
    units.push_back(column.unit);
    descriptions.push_back(column.description);
  }
  write_string_array_attribute(dataset.get(), "column_units", units, context);
  write_string_array_attribute(dataset.get(), "column_descriptions", descriptions, context);
  write_string_attribute(dataset.get(), "description", table.description, context);
  return dataset;
}

hsize_t row_count(hid_t dataset, std::string_view context) {
  Dataspace space(check_id(H5Dget_space(dataset), context, "read its shape"));
  hsize_t rows = 0;
  if (H5Sget_simple_extent_ndims(space.get()) != 1)
    throw ResultsError(fmt::format("{} is not a one-dimensional table", context));
  check_status(H5Sget_simple_extent_dims(space.get(), &rows, nullptr), context, "read its length");
  return rows;
}

}  // namespace

namespace {

// Writes packed rows after the table's last row.
void write_at_end(hid_t dataset, const Table& table, std::span<const std::byte> buffer, hsize_t added,
                  std::string_view context) {
  const hsize_t old_rows = row_count(dataset, context);
  const hsize_t new_rows = old_rows + added;
  check_status(H5Dset_extent(dataset, &new_rows), context, "extend it");
  Dataspace file_space(check_id(H5Dget_space(dataset), context, "read its shape"));
  check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &old_rows, nullptr, &added, nullptr),
               context, "select the new rows");
  Dataspace memory_space(check_id(H5Screate_simple(1, &added, nullptr), context, "create a dataspace"));
  Datatype memory_type = compound_type(table.columns, TypeUse::Memory);
  check_status(H5Dwrite(dataset, memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                        buffer.data()),
               context, fmt::format("write {} rows", added));
}

// An older table, widened to every column of `table`: its rows are read, the dataset is replaced
// by one with every column, and the rows go back with missing values in the new columns.
Dataset widen(hid_t file, Dataset older, const Table& table, std::string_view context,
              const std::filesystem::path& shown) {
  older = Dataset();
  const TableContents contents = read_rows(file, table.path, shown);
  check_status(H5Ldelete(file, table.path.c_str(), H5P_DEFAULT), context, "replace it with a wider table");
  Dataset widened = create_dataset(file, table, context);
  std::vector<Row> rows = contents.rows;
  for (Row& row : rows)
    for (size_t c = row.size(); c < table.columns.size(); ++c) row.push_back(missing_value(table.columns[c].type));
  if (!rows.empty()) write_at_end(widened.get(), table, pack_rows(table.columns, rows, context), rows.size(), context);
  return widened;
}

}  // namespace

Value missing_value(ColumnType type) {
  switch (type) {
    case ColumnType::Int64: return int64_t{-1};
    case ColumnType::UInt64: return uint64_t{0};
    case ColumnType::Float64: return std::numeric_limits<double>::quiet_NaN();
    case ColumnType::String: break;
  }
  return std::string();
}

void append_rows(hid_t file, const Table& table, std::span<const Row> rows,
                 const std::filesystem::path& shown) {
  const std::string context = table_context(table.path, shown);
  // Pack first: a bad row must fail before the table is created or extended.
  const std::vector<std::byte> buffer = pack_rows(table.columns, rows, context);
  Dataset dataset = open_dataset(file, table.path, context);
  if (dataset.get() < 0)
    dataset = create_dataset(file, table, context);
  else if (require_compatible_columns(dataset.get(), table, context) == Fit::Older)
    dataset = widen(file, std::move(dataset), table, context, shown);
  if (rows.empty()) return;
  write_at_end(dataset.get(), table, buffer, rows.size(), context);
}

size_t update_rows(hid_t file, const Table& table, std::string_view key_column, std::string_view key,
                   const Row& row, const std::filesystem::path& shown) {
  const std::string context = table_context(table.path, shown);
  const auto key_it = std::find_if(table.columns.begin(), table.columns.end(),
                                   [&](const Column& column) { return column.name == key_column; });
  if (key_it == table.columns.end() || key_it->type != ColumnType::String)
    throw std::invalid_argument(
        fmt::format("{}: update key '{}' is not a string column of the table", context, key_column));
  const std::vector<std::byte> replacement = pack_rows(table.columns, std::span(&row, 1), context);

  Dataset dataset = open_dataset(file, table.path, context);
  if (dataset.get() < 0) return 0;
  require_same_columns(dataset.get(), table, context);
  const hsize_t rows = row_count(dataset.get(), context);
  if (rows == 0) return 0;

  // Read only the key column: HDF5 picks compound members by name, so a one-member memory type
  // reads just that field of every record.
  const Column key_only[] = {*key_it};
  Datatype key_type = compound_type(key_only, TypeUse::Memory);
  Dataspace all_rows(check_id(H5Screate_simple(1, &rows, nullptr), context, "create a dataspace"));
  std::vector<char*> keys(rows, nullptr);
  check_status(H5Dread(dataset.get(), key_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, keys.data()), context,
               fmt::format("read column '{}'", key_column));
  ReclaimVlenOnExit reclaim(key_type.get(), all_rows.get(), keys.data());

  std::vector<hsize_t> matches;
  for (hsize_t i = 0; i < rows; ++i)
    if (key == std::string_view(keys[i] != nullptr ? keys[i] : "")) matches.push_back(i);
  if (matches.empty()) return 0;

  // One write of the same record to every matching row (a point selection).
  std::vector<std::byte> buffer;
  buffer.reserve(replacement.size() * matches.size());
  for (size_t i = 0; i < matches.size(); ++i)
    buffer.insert(buffer.end(), replacement.begin(), replacement.end());
  const hsize_t count = matches.size();
  Dataspace file_space(check_id(H5Dget_space(dataset.get()), context, "read its shape"));
  check_status(H5Sselect_elements(file_space.get(), H5S_SELECT_SET, count, matches.data()), context,
               "select the matching rows");
  Dataspace memory_space(check_id(H5Screate_simple(1, &count, nullptr), context, "create a dataspace"));
  Datatype memory_type = compound_type(table.columns, TypeUse::Memory);
  check_status(H5Dwrite(dataset.get(), memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                        buffer.data()),
               context, fmt::format("rewrite {} rows", count));
  return matches.size();
}

TableContents read_rows(hid_t file, std::string_view table_path, const std::filesystem::path& shown) {
  const std::string context = table_context(table_path, shown);
  Dataset dataset = open_dataset(file, table_path, context);
  if (dataset.get() < 0) throw ResultsError(fmt::format("{} does not exist", context));

  TableContents contents;
  contents.columns = stored_columns(dataset.get(), context);
  const size_t column_count = contents.columns.size();
  // Units and descriptions are documentation: a table written without them still reads.
  const auto units = read_string_array_attribute(dataset.get(), "column_units", context);
  const auto descriptions = read_string_array_attribute(dataset.get(), "column_descriptions", context);
  for (size_t c = 0; c < column_count; ++c) {
    if (units && units->size() == column_count) contents.columns[c].unit = (*units)[c];
    if (descriptions && descriptions->size() == column_count)
      contents.columns[c].description = (*descriptions)[c];
  }

  const hsize_t rows = row_count(dataset.get(), context);
  if (rows == 0) return contents;
  Datatype memory_type = compound_type(contents.columns, TypeUse::Memory);
  Dataspace all_rows(check_id(H5Screate_simple(1, &rows, nullptr), context, "create a dataspace"));
  const size_t record_bytes = column_count * kSlotBytes;
  std::vector<std::byte> buffer(rows * record_bytes);
  check_status(H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()),
               context, fmt::format("read {} rows", rows));
  ReclaimVlenOnExit reclaim(memory_type.get(), all_rows.get(), buffer.data());

  contents.rows.reserve(rows);
  for (hsize_t r = 0; r < rows; ++r)
    contents.rows.push_back(unpack_row(contents.columns, buffer.data() + r * record_bytes));
  return contents;
}

size_t TableContents::column(std::string_view name) const {
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c].name == name) return c;
  throw ResultsError(fmt::format("table has no column '{}' (it has {})", name, describe(columns)));
}

TableContents read_table(const std::filesystem::path& file, std::string_view table_path) {
  SilenceHdf5Errors silence;
  DriverSession session = reader_session(file);  // declared before the File, which uses it
  File h5 = open_results_file(file, H5F_ACC_RDONLY, Sharing::Shared, file, &session);
  return read_rows(h5.get(), table_path, file);
}

}  // namespace ringbench::results
