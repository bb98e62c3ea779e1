// The buffered driver (buffered_driver.h): HDF5's virtual file layer (H5FD_class_t of 1.10) with
// the callbacks a read-write file needs; everything else is left to HDF5's defaults. Failures are
// pushed on HDF5's error stack with the system's reason, so throw_hdf5_error() reports them.

#include "results/buffered_driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ringbench::results {
namespace {

struct DriverInfo {
  DriverSession* session;  // copied bit for bit by HDF5 with the file-access property list
};

struct BufferedFile {
  H5FD_t pub;  // first: HDF5 sees a BufferedFile* as its H5FD_t*
  int fd;
  dev_t device;
  ino_t inode;
  uint64_t disk_size;  // bytes served from disk; past it reads give zeros, as HDF5's sec2 driver does
  haddr_t eoa;
  haddr_t eof;
  DriverSession* session;
  std::vector<Extent>* writes;
};

// As HDF5's sec2 driver: the largest offset an off_t can hold.
constexpr haddr_t kMaxAddress = (haddr_t{1} << (8 * sizeof(off_t) - 1)) - 1;

herr_t push_error(const char* function, hid_t minor, const char* what) {
  H5Epush2(H5E_DEFAULT, __FILE__, function, __LINE__, H5E_ERR_CLS, H5E_VFL, minor, "%s: %s", what,
           std::strerror(errno));
  return -1;
}

BufferedFile* as_buffered(H5FD_t* file) { return reinterpret_cast<BufferedFile*>(file); }
const BufferedFile* as_buffered(const H5FD_t* file) { return reinterpret_cast<const BufferedFile*>(file); }

void* copy_info(const void* info) {
  void* copy = std::malloc(sizeof(DriverInfo));
  if (copy != nullptr) std::memcpy(copy, info, sizeof(DriverInfo));
  return copy;
}

void* get_info(H5FD_t* file) {
  const DriverInfo info{as_buffered(file)->session};
  return copy_info(&info);
}

herr_t free_info(void* info) {
  std::free(info);
  return 0;
}

H5FD_t* open_file(const char* name, unsigned flags, hid_t fapl, haddr_t maxaddr) {
  const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->session == nullptr || (flags & (H5F_ACC_CREAT | H5F_ACC_TRUNC)) != 0 ||
      maxaddr == 0 || maxaddr > kMaxAddress) {
    errno = EINVAL;
    push_error(__func__, H5E_BADVALUE, "the buffered driver opens existing files only, with a session");
    return nullptr;
  }
  const int fd = ::open(name, O_RDONLY | O_CLOEXEC);  // never written through this descriptor
  struct stat status {};
  if (fd < 0 || ::fstat(fd, &status) != 0) {
    push_error(__func__, H5E_CANTOPENFILE, name);
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  auto* file = new (std::nothrow) BufferedFile{};
  if (file == nullptr) {
    ::close(fd);
    return nullptr;
  }
  DriverSession& session = *info->session;
  file->fd = fd;
  file->device = status.st_dev;
  file->inode = status.st_ino;
  file->disk_size = session.restore ? session.restore->original_size : static_cast<uint64_t>(status.st_size);
  file->eof = file->disk_size;
  file->session = &session;
  file->writes = &session.pending.writes;
  session.pending.writes.clear();
  session.closed = false;
  return &file->pub;
}

herr_t close_file(H5FD_t* handle) {
  BufferedFile* file = as_buffered(handle);
  file->session->pending.final_size = file->eof;
  file->session->closed = true;
  ::close(file->fd);
  delete file;
  return 0;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
  const BufferedFile* x = as_buffered(a);
  const BufferedFile* y = as_buffered(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t query(const H5FD_t*, unsigned long* flags) {
  // As sec2: let HDF5 gather small metadata and raw data into larger writes.
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
           H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t) { return as_buffered(file)->eoa; }
herr_t set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t address) {
  as_buffered(file)->eoa = address;
  return 0;
}
haddr_t get_eof(const H5FD_t* file, H5FD_mem_t) { return as_buffered(file)->eof; }

// Copies the part of `extent` that overlaps [address, address + size) into `out`.
void overlay(const Extent& extent, haddr_t address, size_t size, std::byte* out) {
  const uint64_t begin = std::max<uint64_t>(extent.offset, address);
  const uint64_t end = std::min<uint64_t>(extent.end(), address + size);
  if (begin < end) std::memcpy(out + (begin - address), extent.bytes.data() + (begin - extent.offset), end - begin);
}

herr_t read(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t address, size_t size, void* buffer) {
  const BufferedFile* file = as_buffered(handle);
  auto* out = static_cast<std::byte*>(buffer);
  const size_t from_disk = address < file->disk_size ? std::min<uint64_t>(size, file->disk_size - address) : 0;
  size_t done = 0;
  while (done < from_disk) {
    const ssize_t got = ::pread(file->fd, out + done, from_disk - done, static_cast<off_t>(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return push_error(__func__, H5E_READERROR, "pread");
    if (got == 0) break;  // shorter than it was when opened: the rest reads as zeros
    done += static_cast<size_t>(got);
  }
  std::memset(out + done, 0, size - done);
  if (file->session->restore)
    for (const Extent& extent : file->session->restore->originals) overlay(extent, address, size, out);
  for (const Extent& extent : *file->writes) overlay(extent, address, size, out);
  return 0;
}

herr_t write(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t address, size_t size, const void* buffer) {
  BufferedFile* file = as_buffered(handle);
  const auto* bytes = static_cast<const std::byte*>(buffer);
  file->writes->push_back(Extent{address, std::vector<std::byte>(bytes, bytes + size)});
  file->eof = std::max<haddr_t>(file->eof, address + size);
  return 0;
}

herr_t truncate(H5FD_t* handle, hid_t, hbool_t) {
  BufferedFile* file = as_buffered(handle);
  file->eof = file->eoa;  // as sec2, which truncates (or extends) the file to the allocated end
  return 0;
}

const H5FD_class_t kBufferedClass = {
    .name = "ringbench_buffered",
    .maxaddr = kMaxAddress,
    .fc_degree = H5F_CLOSE_WEAK,
    .terminate = nullptr,
    .sb_size = nullptr,
    .sb_encode = nullptr,
    .sb_decode = nullptr,
    .fapl_size = sizeof(DriverInfo),
    .fapl_get = get_info,
    .fapl_copy = copy_info,
    .fapl_free = free_info,
    .dxpl_size = 0,
    .dxpl_copy = nullptr,
    .dxpl_free = nullptr,
    .open = open_file,
    .close = close_file,
    .cmp = compare,
    .query = query,
    .get_type_map = nullptr,
    .alloc = nullptr,
    .free = nullptr,
    .get_eoa = get_eoa,
    .set_eoa = set_eoa,
    .get_eof = get_eof,
    .get_handle = nullptr,
    .read = read,
    .write = write,
    .flush = nullptr,
    .truncate = truncate,
    .lock = nullptr,
    .unlock = nullptr,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

// Registered once per HDF5 library lifetime (H5close would invalidate the id).
hid_t driver_id() {
  static hid_t id = H5I_INVALID_HID;
  if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&kBufferedClass);
  return id;
}

}  // namespace

herr_t use_buffered_driver(hid_t fapl, DriverSession* session) {
  const DriverInfo info{session};
  const hid_t id = driver_id();
  return id < 0 ? -1 : H5Pset_driver(fapl, id, &info);
}

DriverSession reader_session(const std::filesystem::path& file) {
  DriverSession session;
  session.restore = read_sealed_undo(file);
  return session;
}

}  // namespace ringbench::results
