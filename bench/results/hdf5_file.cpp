#include "results/hdf5_file.h"

#include <fmt/format.h>

#include "results/attributes.h"
#include "results/buffered_driver.h"
#include "results/results_file.h"

namespace ringbench::results {
namespace {

constexpr const char* kSchemaAttribute = "ringbench_schema_version";

PropertyList file_access(Sharing sharing, std::string_view context, DriverSession* session) {
  PropertyList fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), context, "create file-access properties"));
  if (session != nullptr)
    check_status(use_buffered_driver(fapl.get(), session), context, "select ringbench's buffered file driver");
  // The oldest on-disk format that has everything we use (chunked, extendible datasets of
  // compound type with vlen strings): h5py, h5dump and HDF5 1.8 tools all read it.
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_V18), context,
               "select the HDF5 1.8 file format");
  // H5Fclose closes whatever is still open in the file, so after it returns the file on disk is
  // complete and can be fsync()ed and renamed; the default (weak) close could leave it open.
  check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), context, "set the close degree");
  const bool use_hdf5_lock = sharing == Sharing::Shared;
  check_status(H5Pset_file_locking(fapl.get(), use_hdf5_lock, /*ignore_when_disabled=*/true), context,
               "set HDF5 file locking");
  return fapl;
}

void require_schema_version(hid_t file, std::string_view context) {
  const std::optional<int64_t> version = read_int64_attribute(file, kSchemaAttribute, context);
  if (!version)
    throw ResultsError(
        fmt::format("{} has no {} attribute; it was not written by ringbench", context, kSchemaAttribute));
  if (*version < 1 || *version > kSchemaVersion)
    throw ResultsError(fmt::format("{} has schema version {}, written by a newer ringbench; this one reads versions 1 "
                                   "to {}",
                                   context, *version, kSchemaVersion));
}

}  // namespace

std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return fmt::format("{}.{}.{}", major, minor, release);
}

std::string file_context(const std::filesystem::path& shown) {
  return fmt::format("results file '{}'", shown.string());
}

void require_hdf5_signature(const std::filesystem::path& path, const std::filesystem::path& shown) {
  const std::string context = file_context(shown);
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw_hdf5_error(context, "read it");
  if (is_hdf5 == 0) throw ResultsError(fmt::format("{} is not an HDF5 file", context));
}

File open_results_file(const std::filesystem::path& path, unsigned flags, Sharing sharing,
                       const std::filesystem::path& shown, DriverSession* session) {
  const std::string context = file_context(shown);
  // A half-done commit may have torn the signature on disk; the restore image holds the original.
  if (session == nullptr || !session->restore) require_hdf5_signature(path, shown);
  PropertyList fapl = file_access(sharing, context, session);
  File file(check_id(H5Fopen(path.c_str(), flags, fapl.get()), context, "open it"));
  require_schema_version(file.get(), context);
  // A writer's tables follow this version from now on (widened as they are appended to); older
  // tables it does not touch stay readable as the prefixes they are.
  if (flags & H5F_ACC_RDWR) write_int64_attribute(file.get(), kSchemaAttribute, kSchemaVersion, context);
  return file;
}

File create_results_file(const std::filesystem::path& path, const std::filesystem::path& shown) {
  const std::string context = file_context(shown);
  PropertyList fapl = file_access(Sharing::Private, context, nullptr);
  File file(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), context,
                     fmt::format("create '{}'", path.string())));
  write_int64_attribute(file.get(), kSchemaAttribute, kSchemaVersion, context);
  return file;
}

}  // namespace ringbench::results
