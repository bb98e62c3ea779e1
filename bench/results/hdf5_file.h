#pragma once
// Opening and creating results files: file-access settings shared by every open, and the checks
// that a file is HDF5 and carries this ringbench's schema version.
//
// Every error names `shown`, the file the user gave: commit() works on a temporary copy, but a
// message about "x.h5.tmp.4711" would send the user looking for a file that no longer exists.

#include <filesystem>
#include <string>

#include "results/hdf5_handle.h"

namespace ringbench::results {

// "results file 'x.h5'": how every message about a whole file begins.
std::string file_context(const std::filesystem::path& shown);

// Throws ResultsError "results file 'x.h5' is not an HDF5 file" unless `path` starts with an
// HDF5 signature.
void require_hdf5_signature(const std::filesystem::path& path, const std::filesystem::path& shown);

// Who else may have the file open. A file ringbench is about to rename over the user's is ours
// alone (the commit lock guarantees it), so HDF5's own per-file lock is skipped there; that also
// keeps commits working on filesystems where HDF5's locking fails (some Lustre and NFS mounts).
enum class Sharing { Private, Shared };

struct DriverSession;

// Opens an existing results file (flags H5F_ACC_RDONLY or H5F_ACC_RDWR) and checks its schema
// version attribute. Throws ResultsError for a non-HDF5 file, a missing or different version.
// With a `session`, through the buffered driver (buffered_driver.h): writes stay in the session,
// and a reader's session lays a killed commit's undo log over the file. The session must outlive
// the File.
File open_results_file(const std::filesystem::path& path, unsigned flags, Sharing sharing,
                       const std::filesystem::path& shown, DriverSession* session = nullptr);

// Creates (truncating) a new, private results file holding only the schema version attribute.
File create_results_file(const std::filesystem::path& path, const std::filesystem::path& shown);

}  // namespace ringbench::results
