// Tables written with commit() and read back with read_table(): every column type and its edge
// values, attributes, accumulation, nested paths, and update_where().

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <set>

#include "results/results_file.h"
#include "results_test_support.h"
#include "tests/support/text_pattern.h"

namespace ringbench::results {
namespace {

using testing::append;
using testing::sample_row;
using testing::sample_table;
using testing::TempDir;

// Doubles compare by bits, so NaN, -0.0 and denormals must come back exactly.
void expect_same_row(const Row& expected, const Row& actual, size_t row_index) {
  ASSERT_EQ(expected.size(), actual.size()) << "row " << row_index;
  for (size_t c = 0; c < expected.size(); ++c) {
    ASSERT_EQ(expected[c].index(), actual[c].index()) << "row " << row_index << " column " << c;
    if (const double* e = std::get_if<double>(&expected[c]))
      EXPECT_EQ(std::bit_cast<uint64_t>(*e), std::bit_cast<uint64_t>(std::get<double>(actual[c])))
          << "row " << row_index << " column " << c << ": " << *e << " vs " << std::get<double>(actual[c]);
    else
      EXPECT_EQ(expected[c], actual[c]) << "row " << row_index << " column " << c;
  }
}

TEST(ResultsRoundTrip, EveryColumnTypeWithEdgeValues) {
  TempDir dir;
  const Table table{
      .path = "/edge",
      .columns = {{"i", ColumnType::Int64, "", ""},
                  {"u", ColumnType::UInt64, "bytes", ""},
                  {"f", ColumnType::Float64, "us", ""},
                  {"s", ColumnType::String, "", ""}},
      .description = "",
  };
  const std::string long_string(100'000, 'x');
  const std::vector<Row> rows = {
      {int64_t{0}, uint64_t{0}, 0.0, std::string()},
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(), -0.0, std::string("a")},
      {std::numeric_limits<int64_t>::max(), uint64_t{1} << 63, std::numeric_limits<double>::infinity(),
       long_string},
      {int64_t{-1}, uint64_t{42}, -std::numeric_limits<double>::infinity(), std::string("µs · 带宽 ✓")},
      {int64_t{7}, uint64_t{7}, std::numeric_limits<double>::quiet_NaN(),
       std::string("quotes \" ' , tabs \t newline \n end")},
      {int64_t{8}, uint64_t{8}, std::numeric_limits<double>::denorm_min(), std::string(" ")},
      {int64_t{9}, uint64_t{9}, std::numeric_limits<double>::max(), std::string()},
  };
  append(dir / "r.h5", table, rows);

  const TableContents read = read_table(dir / "r.h5", "/edge");
  ASSERT_EQ(read.rows.size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) expect_same_row(rows[r], read.rows[r], r);
}

TEST(ResultsRoundTrip, ColumnsComeBackWithUnitsAndDescriptions) {
  TempDir dir;
  const Table table = sample_table();
  append(dir / "r.h5", table, {sample_row("a", 0)});

  const TableContents read = read_table(dir / "r.h5", "/results");
  ASSERT_EQ(read.columns.size(), table.columns.size());
  for (size_t c = 0; c < table.columns.size(); ++c) {
    EXPECT_EQ(read.columns[c].name, table.columns[c].name);
    EXPECT_EQ(read.columns[c].type, table.columns[c].type);
    EXPECT_EQ(read.columns[c].unit, table.columns[c].unit);
    EXPECT_EQ(read.columns[c].description, table.columns[c].description);
  }
  EXPECT_EQ(read.column("t_avg_us"), 3u);
  EXPECT_THROW(read.column("nope"), ResultsError);
}

TEST(ResultsRoundTrip, AppendTwiceAccumulatesInOrder) {
  TempDir dir;
  const Table table = sample_table();
  append(dir / "r.h5", table, {sample_row("a", 0), sample_row("a", 1)});
  append(dir / "r.h5", table, {sample_row("b", 0)});
  // Two appends inside one transaction land together.
  commit(dir / "r.h5", [&](Transaction& txn) {
    const std::vector<Row> first = {sample_row("c", 0)};
    const std::vector<Row> second = {sample_row("c", 1)};
    txn.append(table, first);
    txn.append(table, second);
  });

  const TableContents read = read_table(dir / "r.h5", "/results");
  ASSERT_EQ(read.rows.size(), 5u);
  const size_t run = read.column("run_id");
  const size_t rank = read.column("rank");
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"a", 0}, {"a", 1}, {"b", 0}, {"c", 0}, {"c", 1}};
  for (size_t r = 0; r < expected.size(); ++r) {
    EXPECT_EQ(std::get<std::string>(read.rows[r][run]), expected[r].first);
    EXPECT_EQ(std::get<int64_t>(read.rows[r][rank]), expected[r].second);
  }
}

// A newer schema adds columns at the end: appending to a table written by an older one widens it,
// keeping its rows and giving them the new columns' missing values, then appends after them.
TEST(ResultsSchemaGrowth, AppendingWidensAnOlderTableAndKeepsItsRows) {
  TempDir dir;
  const Table older{"/t", {{"run_id", ColumnType::String, "", "run"}, {"x", ColumnType::Float64, "us", "x"}}, "t"};
  Table newer = older;
  newer.columns.push_back({"calls", ColumnType::Int64, "", "calls"});
  newer.columns.push_back({"bytes", ColumnType::UInt64, "B", "bytes"});
  newer.columns.push_back({"why", ColumnType::String, "", "why"});
  newer.columns.push_back({"y", ColumnType::Float64, "us", "y"});
  append(dir / "r.h5", older, {Row{std::string("old"), 1.5}, Row{std::string("old"), 2.5}});
  append(dir / "r.h5", newer, {Row{std::string("new"), 3.5, int64_t{7}, uint64_t{8}, std::string("ci"), 9.5}});

  const TableContents read = read_table(dir / "r.h5", "/t");
  ASSERT_EQ(read.columns.size(), newer.columns.size());
  ASSERT_EQ(read.rows.size(), 3u);
  EXPECT_EQ(std::get<double>(read.rows[0][1]), 1.5);
  EXPECT_EQ(std::get<double>(read.rows[1][1]), 2.5);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(std::get<int64_t>(read.rows[r][2]), -1);
    EXPECT_EQ(std::get<uint64_t>(read.rows[r][3]), 0u);
    EXPECT_EQ(std::get<std::string>(read.rows[r][4]), "");
    EXPECT_TRUE(std::isnan(std::get<double>(read.rows[r][5])));
  }
  EXPECT_EQ(std::get<std::string>(read.rows[2][0]), "new");
  EXPECT_EQ(std::get<int64_t>(read.rows[2][2]), 7);
  EXPECT_EQ(std::get<double>(read.rows[2][5]), 9.5);
  // The other way round is a different table, not an older one.
  EXPECT_THROW(append(dir / "r.h5", older, {Row{std::string("old"), 4.5}}), ResultsError);
}

TEST(ResultsRoundTrip, NestedPathsCreateGroupsAndTablesStaySeparate) {
  TempDir dir;
  append(dir / "r.h5", sample_table("/model/placements"), {sample_row("p", 0)});
  append(dir / "r.h5", sample_table("/model/costs"), {sample_row("q", 0), sample_row("q", 1)});
  append(dir / "r.h5", sample_table("/results"), {});

  EXPECT_EQ(read_table(dir / "r.h5", "/model/placements").rows.size(), 1u);
  EXPECT_EQ(read_table(dir / "r.h5", "/model/costs").rows.size(), 2u);
  const TableContents empty = read_table(dir / "r.h5", "/results");
  EXPECT_TRUE(empty.rows.empty());
  EXPECT_EQ(empty.columns.size(), 4u);
  EXPECT_THROW(read_table(dir / "r.h5", "/model"), ResultsError);  // a group, not a table
}

TEST(ResultsUpdateWhere, ReplacesOnlyMatchingRows) {
  TempDir dir;
  const Table table = sample_table("/runs");
  append(dir / "r.h5", table,
         {sample_row("mine", 0, 1, 1.0), sample_row("other", 0, 2, 2.0), sample_row("mine", 1, 3, 3.0)});

  size_t replaced = 0;
  commit(dir / "r.h5", [&](Transaction& txn) {
    replaced = txn.update_where(table, "run_id", "mine", sample_row("mine", 9, 99, 9.5));
  });
  EXPECT_EQ(replaced, 2u);

  const TableContents read = read_table(dir / "r.h5", "/runs");
  ASSERT_EQ(read.rows.size(), 3u);
  EXPECT_EQ(read.rows[0], sample_row("mine", 9, 99, 9.5));
  EXPECT_EQ(read.rows[1], sample_row("other", 0, 2, 2.0));
  EXPECT_EQ(read.rows[2], sample_row("mine", 9, 99, 9.5));
}

TEST(ResultsUpdateWhere, NoMatchOrNoTableReplacesNothing) {
  TempDir dir;
  const Table table = sample_table("/runs");
  append(dir / "r.h5", table, {sample_row("a", 0)});
  commit(dir / "r.h5", [&](Transaction& txn) {
    EXPECT_EQ(txn.update_where(table, "run_id", "zzz", sample_row("zzz", 1)), 0u);
    EXPECT_EQ(txn.update_where(sample_table("/absent"), "run_id", "a", sample_row("a", 1)), 0u);
    // The key must be a string column of the table: a caller bug otherwise.
    EXPECT_THROW(txn.update_where(table, "rank", "a", sample_row("a", 1)), std::invalid_argument);
  });
  const TableContents read = read_table(dir / "r.h5", "/runs");
  ASSERT_EQ(read.rows.size(), 1u);
  EXPECT_EQ(read.rows[0], sample_row("a", 0));
  EXPECT_THROW(read_table(dir / "r.h5", "/absent"), ResultsError);
}

TEST(ResultsRunId, IsAVersion4UuidAndUnique) {
  const std::string uuid4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_run_id();
    ASSERT_TRUE(ringbench::testing::matches_whole(id, uuid4)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace ringbench::results
