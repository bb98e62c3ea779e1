// commit() and check_writable(): the crash-consistency scheme described in results_file.h.
//
// An existing file is changed in place, at a cost that does not grow with the file:
//   lock "<file>.lock"  ->  restore a commit a killed writer left half done ("<file>.undo")  ->
//   open the file through the buffered driver, run the body, close it (every write stays in
//   memory)  ->  apply_in_place(): seal the undo log, write, fsync, remove the log  ->  unlock
// A new file is created as "<file>.tmp.<pid>", fsynced and renamed into place, so a kill leaves
// no file or a complete one.

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "results/buffered_driver.h"
#include "results/file_lock.h"
#include "results/hdf5_file.h"
#include "results/hdf5_handle.h"
#include "results/results_file.h"
#include "results/table_io.h"
#include "results/undo_log.h"
#include "transport/fd.h"

namespace ringbench::results {
namespace {

namespace fs = std::filesystem;

fs::path directory_of(const fs::path& file) {
  const fs::path parent = file.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Every commit creates the copy and the lock file beside the results file and renames into that
// directory, so the directory itself must be writable, even to update an existing file.
void require_writable_directory(const fs::path& file) {
  const fs::path directory = directory_of(file);
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);
  std::string reason;
  if (!fs::exists(status))
    reason = "it does not exist";
  else if (!fs::is_directory(status))
    reason = "it is not a directory";
  else if (access(directory.c_str(), W_OK | X_OK) != 0)
    reason = std::strerror(errno);
  if (!reason.empty())
    throw ResultsError(fmt::format("{} cannot be written: directory '{}' is not writable ({})",
                                   file_context(file), directory.string(), reason));
}

fs::path copy_path(const fs::path& file) {
  fs::path copy = file;
  copy += fmt::format(".tmp.{}", getpid());
  return copy;
}

// Under the commit lock no other writer is running, so every "<file>.tmp.<pid>" is left over
// from one that was killed mid-commit. (Where flock does not reach across nodes the lock itself
// is already broken, so this assumes nothing more.)
void remove_stale_copies(const fs::path& file) {
  const std::string prefix = file.filename().string() + ".tmp.";
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_of(file), error)) {
    const std::string name = entry.path().filename().string();
    const bool is_copy = name.size() > prefix.size() && name.starts_with(prefix) &&
                         name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
    if (is_copy) fs::remove(entry.path(), error);
  }
}

// An existing file must be one we may read (to copy it) and write: renaming over a file the
// user made read-only would quietly defeat the protection.
void require_replaceable_file(const fs::path& file) {
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (!fs::is_regular_file(status))
    throw ResultsError(fmt::format("{} is not a regular file", file_context(file)));
  if (access(file.c_str(), R_OK | W_OK) != 0)
    throw ResultsError(fmt::format("{} cannot be replaced: {}", file_context(file), std::strerror(errno)));
}

// Removes the copy unless the commit got as far as renaming it.
class RemoveOnFailure {
 public:
  explicit RemoveOnFailure(fs::path path) : path_(std::move(path)) {}
  ~RemoveOnFailure() {
    if (armed_) {
      std::error_code ignored;
      fs::remove(path_, ignored);
    }
  }
  RemoveOnFailure(const RemoveOnFailure&) = delete;
  RemoveOnFailure& operator=(const RemoveOnFailure&) = delete;
  void disarm() { armed_ = false; }

 private:
  fs::path path_;
  bool armed_ = true;
};

void fsync_path(const fs::path& path, int open_flags, const fs::path& file) {
  Fd fd(::open(path.c_str(), open_flags | O_CLOEXEC));
  if (!fd || fsync(fd.get()) != 0) {
    // Some filesystems cannot fsync a directory (EINVAL); the rename is still done.
    if ((open_flags & O_DIRECTORY) != 0 && errno == EINVAL) return;
    throw ResultsError(
        fmt::format("{}: cannot fsync '{}': {}", file_context(file), path.string(), std::strerror(errno)));
  }
}

class FileTransaction final : public Transaction {
 public:
  FileTransaction(hid_t file, const fs::path& shown) : file_(file), shown_(shown) {}

  void append(const Table& table, std::span<const Row> rows) override {
    append_rows(file_, table, rows, shown_);
  }

  size_t update_where(const Table& table, std::string_view key_column, std::string_view key,
                      const Row& row) override {
    return update_rows(file_, table, key_column, key, row, shown_);
  }

 private:
  hid_t file_;
  const fs::path& shown_;
};

// A file that does not exist yet: created as a copy beside it, then renamed into place.
void commit_new_file(const fs::path& file, const std::function<void(Transaction&)>& body) {
  const std::string context = file_context(file);
  const fs::path copy = copy_path(file);
  RemoveOnFailure remove_copy(copy);  // declared before the File, so it runs after H5Fclose
  File h5 = create_results_file(copy, file);
  FileTransaction transaction(h5.get(), file);
  body(transaction);
  check_status(h5.close(), context, "write the new file");
  fsync_path(copy, O_RDONLY, file);
  std::error_code error;
  fs::rename(copy, file, error);
  if (error)
    throw ResultsError(
        fmt::format("{}: cannot rename '{}' over it: {}", context, copy.string(), error.message()));
  remove_copy.disarm();
  fsync_path(directory_of(file), O_RDONLY | O_DIRECTORY, file);
}

// Creates and removes a file beside `file`: the one proof that the directory takes new files (the
// undo log, a new file's copy). access() always says yes to root, even on /proc or a read-only mount.
void probe_directory(const fs::path& file) {
  fs::path probe = file;
  probe += fmt::format(".probe.{}", getpid());
  Fd created(::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!created)
    throw ResultsError(fmt::format("{} cannot be written: cannot create a file in directory '{}': {}",
                                   file_context(file), directory_of(file).string(), std::strerror(errno)));
  created.reset();
  ::unlink(probe.c_str());
}

// Opens the lock file as commit() will, creating it if absent (and then removing it again).
void probe_lock_file(const fs::path& file) {
  const fs::path lock = FileLock::path_for(file);
  std::error_code error;
  const bool existed = fs::exists(lock, error);
  Fd opened(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!opened)
    throw ResultsError(fmt::format("{}: lock file '{}' cannot be opened for writing: {}", file_context(file),
                                   lock.string(), std::strerror(errno)));
  if (!existed) ::unlink(lock.c_str());
}

}  // namespace

void commit(const fs::path& file, const std::function<void(Transaction&)>& body,
            std::chrono::milliseconds lock_timeout) {
  SilenceHdf5Errors silence;
  const std::string context = file_context(file);
  require_writable_directory(file);
  const CommitMarker marker;  // declared before the lock: there before it is taken, until after it is let go
  const FileLock lock = FileLock::acquire(file, lock_timeout);
  remove_stale_copies(file);
  recover_interrupted_commit(file);

  std::error_code error;
  const bool exists = fs::exists(file, error);
  if (error) throw ResultsError(fmt::format("{}: cannot stat it: {}", context, error.message()));
  if (!exists) return commit_new_file(file, body);
  // Check before opening: a multi-gigabyte file that is not ours should fail at once.
  require_replaceable_file(file);
  require_hdf5_signature(file, file);
  DriverSession session;  // declared before the File, which writes into it
  {
    File h5 = open_results_file(file, H5F_ACC_RDWR, Sharing::Private, file, &session);
    FileTransaction transaction(h5.get(), file);
    body(transaction);  // if it throws, the buffered writes are dropped and the file is unchanged
    check_status(h5.close(), context, "write the commit's changes");
  }
  if (!session.closed) throw ResultsError(fmt::format("{}: HDF5 did not close it", context));
  apply_in_place(file, session.pending);
}

void check_writable(const fs::path& file) {
  SilenceHdf5Errors silence;
  const std::string context = file_context(file);
  require_writable_directory(file);
  probe_directory(file);
  probe_lock_file(file);

  std::error_code error;
  if (fs::exists(file, error)) {
    require_replaceable_file(file);
    Fd writable(::open(file.c_str(), O_RDWR | O_CLOEXEC));  // opened, never written
    if (!writable)
      throw ResultsError(fmt::format("{} cannot be opened for writing: {}", context, std::strerror(errno)));
    DriverSession session = reader_session(file);  // declared before the File, which uses it
    open_results_file(file, H5F_ACC_RDONLY, Sharing::Shared, file, &session);  // HDF5 and schema version
  }
}

}  // namespace ringbench::results
