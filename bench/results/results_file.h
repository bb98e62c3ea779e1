#pragma once
// The results file: one HDF5 file that every ringbench executable appends to (ringbench's
// measurements, topomodel's outputs), so measurements and model outputs sit side by side.
//
// Layout: every table is a 1-D chunked, extendible dataset of a compound type (one member per
// column), e.g. /runs, /results, /model/placements. Column names carry their unit (t_avg_us,
// busbw_GBps); the dataset attributes `column_units` and `column_descriptions` repeat them, one
// entry per column. The root attribute `ringbench_schema_version` guards the layout.
// h5py users read a table in one line: pandas.DataFrame(h5py.File(f)["results"][:]).
//
// Crash consistency: HDF5 can corrupt a file killed mid-write, so HDF5 never writes the file
// itself. commit() takes an exclusive lock (flock on "<file>.lock", waiting a bounded time) and
// opens an existing file through a driver that keeps every write in memory (buffered_driver.h);
// when the body is done, the original bytes of the regions those writes touch go to a sealed,
// fsynced undo log "<file>.undo", the writes go into the file, which is fsynced, and the log is
// removed (undo_log.h). A kill at any moment leaves either the old file, or the new one, or a torn
// file with a sealed log that restores the old one: readers (read_table, and
// scripts/ringbench_results.py) lay the log over the file, the next commit restores it. A new file
// is created as "<file>.tmp.<pid>" and renamed into place. Earlier rows are never rewritten except
// by an explicit update_where() of the caller's own run.
//
// Cost: a commit reads and writes only what it changes (the new rows, the tables' indexes and
// headers) and fsyncs the log, the file and the directory: the same into a 1 GB file as into an
// empty one (scripts/commit-cost.sh measures it).
//
// Thread safety: none needed; only rank 0 writes. Calls block for the lock (at most
// lock_timeout) and for the fsyncs.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ringbench::results {

// Schema versions only grow, and only additively: a newer version may add tables, and columns at
// the end of a table, never remove, rename, retype or reorder one. So this library reads and
// appends to every older version: appending to a table with fewer columns widens it in place
// (its rows keep their values, new columns get missing_value()), and the file's version becomes
// this one. A file of a newer version is refused with a clear message.
//   1  the first layout
//   2  /results gains the median, its percentiles and 95% interval, calls and stop_reason
//      (algbw, busbw and efficiency then come from the median); /runs gains the run's
//      conditions and median interval width; /samples (--samples) is new
//   3  /runs gains interface_reason, the build (compiler, compiler_flags, build_type), hdf5_library,
//      the Slurm job and array ids, and every option as its own opt_* column; /results gains the
//      CPU cost of the calls (cpu_s_per_GB, ctx_switches_per_call)
//   4  /runs gains one core's reduction and copy rates (reduce_GBps, copy_GBps); /links (the
//      point-to-point time of each link class) is new: what `topomodel calibrate` fits on
//   5  /workloads (ringbench --workload ddp: step time, exposed communication and overlap per
//      bucket size) is new;
//      /events (each shrink of --on-failure shrink: when, who failed, the new N, where) is new;
//      /results gains epoch (the shrinks before the row)
//   6  /results gains the transport parameters each row ran with (pipeline_bytes,
//      write_slice_bytes, spin_us, streams)
//   7  /results gains threads (the threads that drove the streams, --threads)
//   8  /results gains segment_bytes (the pipelined plans' segment each row ran with, --segment)
//   9  /exchanges (the ring send/receive link test at chunks beyond the rows' own, up to the
//      largest size: what `topomodel calibrate` reads large messages' copy rate from) is new
//  10  /exchanges gains reduces (the reducing link test beside the plain one, where the run
//      reduces: what `topomodel calibrate` reads the reduction's rate from)
inline constexpr int64_t kSchemaVersion = 10;

// A results-file problem a user can act on (wrong schema, not HDF5, unwritable path, lock
// timeout). what() is one line naming the file.
class ResultsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The lock stayed held by another writer for longer than the wait allowed: nothing is wrong with
// the file, and the same commit may succeed later.
class ResultsBusy : public ResultsError {
 public:
  using ResultsError::ResultsError;
};

enum class ColumnType { Int64, UInt64, Float64, String };

struct Column {
  std::string name;         // with its unit suffix where it has one: "t_avg_us"
  ColumnType type;
  std::string unit;         // "us", "GB/s (1e9 bytes/s)", "bytes", "" for none
  std::string description;  // one line
};

struct Table {
  std::string path;  // "/runs", "/results", "/model/placements"; intermediate groups are created
  std::vector<Column> columns;
  std::string description;  // stored as the dataset's `description` attribute
};

using Value = std::variant<int64_t, uint64_t, double, std::string>;

// What a row written before a column existed holds in it: NaN, "", -1 (Int64), 0 (UInt64).
Value missing_value(ColumnType type);
using Row = std::vector<Value>;  // one Value per column, in column order, of the column's type

class Transaction {
 public:
  virtual ~Transaction() = default;
  // Appends rows to the table, creating it if absent. An existing table must have these columns
  // (names and types), or the first of them (an older schema: it is widened), otherwise
  // ResultsError.
  // A row whose length or value types do not match table.columns, a string holding a NUL byte, or
  // a path not of the form "/a/b" is a caller bug: std::invalid_argument, thrown before anything is
  // written (if it leaves the body, commit() leaves the file as it was).
  virtual void append(const Table& table, std::span<const Row> rows) = 0;
  // Replaces every row whose String column key_column equals key by `row` (used to close the
  // caller's own /runs row). Returns how many rows were replaced (0 if the table is absent).
  virtual size_t update_where(const Table& table, std::string_view key_column, std::string_view key,
                              const Row& row) = 0;
};

// Applies `body` to the file atomically (see above). Creates the file, with the schema version
// attribute, if it does not exist. Throws ResultsError for a file that is not HDF5, has another
// schema version, cannot be written, or stays locked for longer than lock_timeout.
void commit(const std::filesystem::path& file, const std::function<void(Transaction&)>& body,
            std::chrono::milliseconds lock_timeout = std::chrono::seconds(60));

// Checks that commit() can work on `file`, leaving nothing behind: creates and removes a probe file
// in its directory and the lock file (when absent), opens an existing file for writing and reads
// its schema version (not access(), which always passes for root). Throws ResultsError otherwise.
// Executables call this before any long work.
void check_writable(const std::filesystem::path& file);

// Reads a whole table (for tests, merging and validation). Throws ResultsError if absent.
struct TableContents {
  std::vector<Column> columns;
  std::vector<Row> rows;
  // Index of the named column, or throws ResultsError.
  size_t column(std::string_view name) const;
};
TableContents read_table(const std::filesystem::path& file, std::string_view table_path);

// "1.10.8": the HDF5 library this program runs with (recorded in /runs).
std::string hdf5_library_version();

// A new globally unique run id (RFC 4122 version 4 UUID text from /dev/urandom).
std::string new_run_id();

}  // namespace ringbench::results
