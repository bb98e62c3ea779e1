#pragma once
// In-place commits and their undo log, "<file>.undo": how commit() changes an existing results
// file at a cost that does not grow with the file (see results_file.h).
//
// HDF5 writes a commit's changes into memory (buffered_driver.h); apply_in_place() then
//   1. writes the original bytes of every region those changes touch, and the file's size, to
//      "<file>.undo", seals it (checksum + trailer) and fsyncs it;
//   2. writes the changes into the file and fsyncs it;
//   3. removes the undo log and fsyncs the directory.
// A kill before the seal leaves the file untouched (an unsealed log means nothing); a kill after
// it leaves a sealed log, which restores the file exactly as it was before the commit: the next
// writer does so under the commit lock (recover_interrupted_commit), and readers lay it over the
// file without writing (read_sealed_undo). A failed write (disk full, I/O error) is rolled back
// at once from memory, so the file is never left half changed by an error either.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace ringbench::results {

// Bytes at an offset of the file.
struct Extent {
  uint64_t offset = 0;
  std::vector<std::byte> bytes;
  uint64_t end() const { return offset + bytes.size(); }
};

// One commit's changes to an existing file, in the order HDF5 made them, and its size after.
struct PendingWrites {
  std::vector<Extent> writes;
  uint64_t final_size = 0;
};

// What a sealed undo log restores: the size before the commit and the original bytes of every
// region the commit touched (disjoint, so the order of restoring does not matter).
struct UndoImage {
  uint64_t original_size = 0;
  std::vector<Extent> originals;
};

std::filesystem::path undo_path(const std::filesystem::path& file);

// The sealed undo log beside `file`, or nullopt when there is none or it was never sealed (its
// commit had not touched the file). Throws ResultsError if it cannot be read.
std::optional<UndoImage> read_sealed_undo(const std::filesystem::path& file);

// Applies `pending` to `file` as described above. Throws ResultsError (naming `file` and the
// system's reason, e.g. "No space left on device") with the file as it was before. Call with the
// commit lock held.
void apply_in_place(const std::filesystem::path& file, const PendingWrites& pending);

// Writes and fsyncs `image` as the sealed undo log of `file` (step 1 above; tests use it to leave
// a commit half done). Throws ResultsError, with no log left, if it cannot.
void write_sealed_undo(const std::filesystem::path& file, const UndoImage& image);

// Restores a commit a killed writer left half done and removes its undo log; no-op without one.
// Call with the commit lock held, before opening the file for writing.
void recover_interrupted_commit(const std::filesystem::path& file);

// Marker for the kill trials (scripts/kill-trials.sh, tests/fault/kill_during_write_test.cpp):
// when RINGBENCH_COMMIT_MARKER names a file, commit() creates it (holding its pid) before it asks
// for the commit lock and removes it after letting the lock go, so a marker found after a SIGKILL
// proves the kill landed inside commit(). (Removed after the lock, not before: the removal may
// wait on the filesystem's journal, and a kill in that wait still lands inside the commit.)
class CommitMarker {
 public:
  CommitMarker();
  ~CommitMarker();
  CommitMarker(const CommitMarker&) = delete;
  CommitMarker& operator=(const CommitMarker&) = delete;

 private:
  const char* path_;
};

}  // namespace ringbench::results
