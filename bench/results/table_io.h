#pragma once
// Tables inside an open results file: create, check, append, update in place, read.
// `shown` is the results file the user named (see hdf5_file.h); messages about a table read
// "table /results in 'x.h5': ...".

#include <filesystem>
#include <span>
#include <string_view>

#include "results/hdf5_handle.h"
#include "results/results_file.h"

namespace ringbench::results {

// Transaction::append on an open file.
void append_rows(hid_t file, const Table& table, std::span<const Row> rows,
                 const std::filesystem::path& shown);

// Transaction::update_where on an open file. An absent table has no rows to replace: returns 0.
size_t update_rows(hid_t file, const Table& table, std::string_view key_column, std::string_view key,
                   const Row& row, const std::filesystem::path& shown);

// read_table on an open file.
TableContents read_rows(hid_t file, std::string_view table_path, const std::filesystem::path& shown);

}  // namespace ringbench::results
