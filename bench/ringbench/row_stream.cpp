#include "row_stream.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <variant>

#include "report.h"
#include "run_record.h"

namespace ringbench {
namespace {

// RFC 4180: a field holding a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_value(const results::Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) return csv_field(v);
        else if constexpr (std::is_same_v<T, double>) return std::isnan(v) ? std::string() : fmt::format("{}", v);
        else return std::to_string(v);
      },
      value);
}

nlohmann::ordered_json json_value(const results::Value& value) {
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, value);  // NaN becomes null
}

}  // namespace

void RowStream::write(const SizeResult& result) {
  if (options_.format == OutputFormat::Table) return;
  const results::Table& table = results_table();
  const results::Row row = to_row(run_id_, result, options_, n_);
  std::string line;
  if (options_.format == OutputFormat::Csv) {
    if (!header_written_) {
      for (const auto& column : table.columns) line += (line.empty() ? "" : ",") + column.name;
      fmt::print(out_, "{}\n", line);
      line.clear();
      header_written_ = true;
    }
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_value(row[i]);
  } else {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();  // in column order
    for (size_t i = 0; i < row.size() && i < table.columns.size(); ++i)
      object[table.columns[i].name] = json_value(row[i]);
    line = object.dump();
  }
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

void BusBandwidthAverage::add(const SizeResult& result, int world_size) {
  wrong_ += result.wrong();
  if (!result.bytes_counted) return;
  sum_GBps_ += Report::algbw_GBps(result.bytes, result.time.median) * busbw_factor(result.collective, world_size);
  ++rows_;
}

void BusBandwidthAverage::print(std::FILE* out) const {
  fmt::print(out, "# Out of bounds values : {} {}\n", wrong_, wrong_ == 0 ? "OK" : "FAILED");
  if (rows_ == 0) return;
  fmt::print(out, "# Avg bus bandwidth    : {:.4f} (GB/s, the mean busbw of ringbench's {} own rows: every "
                  "algorithm, auto included, every size and placement; mpi rows left out)\n",
             sum_GBps_ / rows_, rows_);
}

}  // namespace ringbench
