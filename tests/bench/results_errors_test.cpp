// Every failure a user can hit is a one-line ResultsError naming the file; caller bugs are
// std::invalid_argument; and none of them changes the file.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>

#include "results/results_file.h"
#include "results_test_support.h"

namespace ringbench::results {
namespace {

using testing::append;
using ::testing::HasSubstr;
using testing::read_bytes;
using testing::sample_row;
using testing::sample_table;
using testing::TempDir;

// The message of the ResultsError that `call` throws ("" and a test failure if it throws none).
template <typename Call>
std::string results_error_of(Call&& call) {
  try {
    call();
  } catch (const ResultsError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    return message;
  }
  ADD_FAILURE() << "no ResultsError thrown";
  return "";
}

void append_one(const std::filesystem::path& file) { append(file, sample_table(), {sample_row("x", 0)}); }

// Sets the root's schema version attribute of an existing file to `version`.
void overwrite_schema_version(const std::filesystem::path& file, int64_t version) {
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(h5, 0);
  const hid_t attribute = H5Aopen(h5, "ringbench_schema_version", H5P_DEFAULT);
  ASSERT_GE(attribute, 0);
  EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_INT64, &version), 0);
  H5Aclose(attribute);
  H5Fclose(h5);
}

TEST(ResultsErrors, NonHdf5FileIsRejectedByEveryEntryPoint) {
  TempDir dir;
  const auto file = dir / "notes.h5";
  testing::write_bytes(file, "just some text\n");
  const std::string expected = "results file '" + file.string() + "' is not an HDF5 file";

  EXPECT_EQ(results_error_of([&] { append_one(file); }), expected);
  EXPECT_EQ(results_error_of([&] { check_writable(file); }), expected);
  EXPECT_EQ(results_error_of([&] { read_table(file, "/results"); }), expected);
  EXPECT_EQ(read_bytes(file), "just some text\n");
  EXPECT_TRUE(testing::leftover_copies(dir.path()).empty());

  // An empty file is not a results file either (commit() creates missing files, not empty ones).
  testing::write_bytes(file, "");
  EXPECT_EQ(results_error_of([&] { append_one(file); }), expected);
}

TEST(ResultsErrors, NewerSchemaVersionIsRejected) {
  TempDir dir;
  const auto file = dir / "r.h5";
  append_one(file);
  overwrite_schema_version(file, kSchemaVersion + 1);
  const std::string before = read_bytes(file);
  const std::string expected = "results file '" + file.string() + "' has schema version " +
                               std::to_string(kSchemaVersion + 1) +
                               ", written by a newer ringbench; this one reads versions 1 to " +
                               std::to_string(kSchemaVersion);

  EXPECT_EQ(results_error_of([&] { append_one(file); }), expected);
  EXPECT_EQ(results_error_of([&] { check_writable(file); }), expected);
  EXPECT_EQ(results_error_of([&] { read_table(file, "/results"); }), expected);
  EXPECT_EQ(read_bytes(file), before);
}

TEST(ResultsErrors, HdfFileWithoutSchemaVersionIsNotOurs) {
  TempDir dir;
  const auto file = dir / "foreign.h5";
  H5Fclose(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  EXPECT_THAT(results_error_of([&] { append_one(file); }),
              HasSubstr("has no ringbench_schema_version attribute; it was not written by ringbench"));
}

TEST(ResultsErrors, ColumnMismatchNamesBothColumnLists) {
  TempDir dir;
  const auto file = dir / "r.h5";
  append_one(file);
  const std::string before = read_bytes(file);

  Table renamed = sample_table();
  renamed.columns[3].name = "t_max_us";
  EXPECT_EQ(results_error_of([&] { append(file, renamed, {sample_row("y", 1)}); }),
            "table /results in '" + file.string() +
                "' has columns (run_id string, rank int64, bytes uint64, t_avg_us float64) but this writer "
                "expects (run_id string, rank int64, bytes uint64, t_max_us float64)");

  Table retyped = sample_table();
  retyped.columns[1].type = ColumnType::UInt64;
  EXPECT_THAT(results_error_of([&] {
                append(file, retyped, {Row{std::string("y"), uint64_t{1}, uint64_t{1}, 1.0}});
              }),
              HasSubstr("but this writer expects (run_id string, rank uint64,"));

  Table fewer = sample_table();
  fewer.columns.pop_back();
  EXPECT_THAT(results_error_of([&] {
                append(file, fewer, {Row{std::string("y"), int64_t{1}, uint64_t{1}}});
              }),
              HasSubstr("but this writer expects (run_id string, rank int64, bytes uint64)"));
  EXPECT_EQ(read_bytes(file), before);
}

TEST(ResultsErrors, UnwritableDirectoryIsNamed) {
  // Root ignores permission bits, so use directories that cannot be written by anyone.
  EXPECT_EQ(results_error_of([] { append_one("/nonexistent/r.h5"); }),
            "results file '/nonexistent/r.h5' cannot be written: directory '/nonexistent' is not writable "
            "(it does not exist)");
  EXPECT_THAT(results_error_of([] { check_writable("/nonexistent/r.h5"); }),
              HasSubstr("directory '/nonexistent' is not writable"));

  TempDir dir;
  if (geteuid() != 0) {  // root writes through permission bits
    std::filesystem::create_directory(dir / "sealed");
    std::filesystem::permissions(dir / "sealed",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    EXPECT_THAT(
        results_error_of([&] { append_one(dir / "sealed" / "r.h5"); }),
        HasSubstr("directory '" + (dir / "sealed").string() + "' is not writable (Permission denied)"));
  }
  testing::write_bytes(dir / "plain", "x");
  const auto below_a_file = dir / "plain" / "r.h5";
  EXPECT_THAT(
      results_error_of([&] { check_writable(below_a_file); }),
      HasSubstr("directory '" + (dir / "plain").string() + "' is not writable (it is not a directory)"));
}

// /proc passes access(W_OK) for root but takes no new files: only a real probe file finds out.
TEST(ResultsErrors, CheckWritableCreatesAProbeRatherThanTrustingAccess) {
  EXPECT_EQ(results_error_of([] { check_writable("/proc/x.h5"); }).substr(0, 86),
            "results file '/proc/x.h5' cannot be written: cannot create a file in directory '/proc'");
  TempDir dir;
  check_writable(dir / "new.h5");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the probe or the lock file was left behind";
}

TEST(ResultsErrors, CheckWritableAcceptsNewAndOwnFilesAndChangesNothing) {
  TempDir dir;
  EXPECT_NO_THROW(check_writable(dir / "new.h5"));
  EXPECT_NO_THROW(check_writable("relative-name-in-cwd.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "new.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "new.h5.lock"));

  append_one(dir / "r.h5");
  const std::string before = read_bytes(dir / "r.h5");
  EXPECT_NO_THROW(check_writable(dir / "r.h5"));
  EXPECT_EQ(read_bytes(dir / "r.h5"), before);

  // Read-only means "do not touch", even though a rename could replace it. (Root may write
  // anything, so only an unprivileged run can check this.)
  if (geteuid() != 0) {
    testing::write_bytes(dir / "ro.h5", read_bytes(dir / "r.h5"));
    std::filesystem::permissions(dir / "ro.h5", std::filesystem::perms::owner_read);
    EXPECT_THAT(results_error_of([&] { check_writable(dir / "ro.h5"); }), HasSubstr("cannot be replaced"));
  }

  std::filesystem::create_directory(dir / "d.h5");
  EXPECT_THAT(results_error_of([&] { check_writable(dir / "d.h5"); }), HasSubstr("is not a regular file"));
}

TEST(ResultsErrors, MissingTableAndColumnAreNamed) {
  TempDir dir;
  const auto file = dir / "r.h5";
  append_one(file);
  EXPECT_EQ(results_error_of([&] { read_table(file, "/runs"); }),
            "table /runs in '" + file.string() + "' does not exist");
  EXPECT_THAT(results_error_of([&] { read_table(file, "/results").column("busbw_GBps"); }),
              HasSubstr("no column 'busbw_GBps'"));
  EXPECT_THAT(results_error_of([&] { read_table(dir / "absent.h5", "/results"); }), HasSubstr("absent.h5"));
}

TEST(ResultsErrors, MalformedRowsAreCallerBugsAndChangeNothing) {
  TempDir dir;
  const auto file = dir / "r.h5";
  append_one(file);
  const std::string before = read_bytes(file);

  EXPECT_THROW(append(file, sample_table(), {Row{std::string("short")}}), std::invalid_argument);
  EXPECT_THROW(append(file, sample_table(), {Row{std::string("x"), 1.0, uint64_t{1}, 1.0}}),
               std::invalid_argument);
  EXPECT_THROW(append(file, sample_table(), {sample_row(std::string("nul\0inside", 10), 0)}),
               std::invalid_argument);
  EXPECT_THROW(append(file, sample_table("results"), {sample_row("x", 0)}), std::invalid_argument);
  EXPECT_THROW(append(file, sample_table("/a//b"), {sample_row("x", 0)}), std::invalid_argument);
  EXPECT_EQ(read_bytes(file), before);
  EXPECT_TRUE(testing::leftover_copies(dir.path()).empty());
}

TEST(ResultsErrors, LockTimeoutNamesFileAndHolder) {
  TempDir dir;
  const auto file = dir / "r.h5";
  append_one(file);
  // flock() locks belong to an open file description, so a second open() in this same process
  // contends like another writer would.
  const auto lock_path = dir / "r.h5.lock";
  const int fd = open(lock_path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  ASSERT_EQ(ftruncate(fd, 0), 0);
  ASSERT_EQ(pwrite(fd, "pid 4711 on node07\n", 19, 0), 19);

  const auto start = std::chrono::steady_clock::now();
  const std::string message = results_error_of([&] {
    commit(
        file, [](Transaction&) {}, std::chrono::milliseconds(300));
  });
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(message, HasSubstr("results file '" + file.string() +
                                 "' is locked by another writer for more than 0.3 s"));
  EXPECT_THAT(message, HasSubstr("held by pid 4711 on node07"));
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(3));

  // Once released, the next commit gets it and records itself as the holder.
  close(fd);
  append_one(file);
  EXPECT_THAT(read_bytes(lock_path), HasSubstr("pid " + std::to_string(getpid()) + " on "));
  EXPECT_EQ(read_table(file, "/results").rows.size(), 2u);
}

}  // namespace
}  // namespace ringbench::results
