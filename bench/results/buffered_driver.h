#pragma once
// An HDF5 virtual file driver that never writes the file: reads come from the file on disk, with
// two overlays, and writes are kept in memory for apply_in_place() (undo_log.h).
//   - a writer's session collects every write and the final size; when HDF5 closes the file they
//     are handed to the session, and the caller applies them durably, or drops them if its
//     transaction failed (the file is then byte-identical);
//   - a reader's session may carry a sealed undo log left by a killed commit: its original bytes
//     are laid over the file, so the reader sees the last complete commit without writing.
// Only for existing files; new files are created elsewhere (commit.cpp). Single-threaded, like
// the rest of the results library.

#include <hdf5.h>

#include <filesystem>
#include <optional>

#include "results/undo_log.h"

namespace ringbench::results {

struct DriverSession {
  std::optional<UndoImage> restore;  // reader: the state before a half-done commit
  PendingWrites pending;             // writer: filled when HDF5 closes the file
  bool closed = false;               // HDF5 has closed the file and `pending` is complete
};

// Makes `fapl` open files through the driver, with `session` (which must outlive the file and
// stay where it is). Negative on failure, with HDF5's error stack set.
herr_t use_buffered_driver(hid_t fapl, DriverSession* session);

// A reader's session for `file`: with the sealed undo log a killed commit left, if any.
DriverSession reader_session(const std::filesystem::path& file);

}  // namespace ringbench::results
