// The undo log of in-place commits (undo_log.h). Its layout, all integers little-endian u64:
//   "RBUNDO01"  original_size  count  { offset  length  bytes[length] } x count  checksum  "SEALED01"
// The checksum is FNV-1a over everything before it; a log is sealed only when the trailer is there,
// the length adds up and the checksum matches, so a log cut short by a kill is never trusted.

#include "results/undo_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "results/hdf5_file.h"
#include "results/results_file.h"
#include "transport/fd.h"

namespace ringbench::results {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeaderMagic = "RBUNDO01";
constexpr std::string_view kTrailerMagic = "SEALED01";

uint64_t fnv1a(std::span<const std::byte> bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (std::byte b : bytes) hash = (hash ^ static_cast<uint64_t>(b)) * 1099511628211ull;
  return hash;
}

void put(std::vector<std::byte>& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

void put(std::vector<std::byte>& out, std::string_view text) {
  for (char c : text) out.push_back(static_cast<std::byte>(c));
}

std::vector<std::byte> encode(const UndoImage& image) {
  std::vector<std::byte> out;
  put(out, kHeaderMagic);
  put(out, image.original_size);
  put(out, uint64_t{image.originals.size()});
  for (const Extent& extent : image.originals) {
    put(out, extent.offset);
    put(out, uint64_t{extent.bytes.size()});
    out.insert(out.end(), extent.bytes.begin(), extent.bytes.end());
  }
  put(out, fnv1a(out));
  put(out, kTrailerMagic);
  return out;
}

// Reads the log's fields in order; every read is bounds-checked, so a truncated log is refused.
class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  bool u64(uint64_t& value) {
    if (bytes_.size() - at_ < 8) return false;
    value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(bytes_[at_ + i]) << (8 * i);
    at_ += 8;
    return true;
  }
  bool magic(std::string_view text) {
    if (bytes_.size() - at_ < text.size()) return false;
    const bool same = std::memcmp(bytes_.data() + at_, text.data(), text.size()) == 0;
    at_ += text.size();
    return same;
  }
  bool take(uint64_t length, std::vector<std::byte>& out) {
    if (bytes_.size() - at_ < length) return false;
    out.assign(bytes_.begin() + static_cast<ptrdiff_t>(at_), bytes_.begin() + static_cast<ptrdiff_t>(at_ + length));
    at_ += length;
    return true;
  }
  size_t at() const { return at_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
  size_t at_ = 0;
};

std::optional<UndoImage> decode(std::span<const std::byte> bytes) {
  Reader reader(bytes);
  UndoImage image;
  uint64_t count = 0, checksum = 0;
  if (!reader.magic(kHeaderMagic) || !reader.u64(image.original_size) || !reader.u64(count)) return std::nullopt;
  for (uint64_t i = 0; i < count; ++i) {
    Extent extent;
    uint64_t length = 0;
    if (!reader.u64(extent.offset) || !reader.u64(length) || !reader.take(length, extent.bytes)) return std::nullopt;
    image.originals.push_back(std::move(extent));
  }
  const size_t summed = reader.at();
  if (!reader.u64(checksum) || !reader.magic(kTrailerMagic) || !reader.done()) return std::nullopt;
  if (checksum != fnv1a(bytes.first(summed))) return std::nullopt;
  return image;
}

[[noreturn]] void fail(const fs::path& file, std::string_view action, int error, std::string_view state) {
  throw ResultsError(fmt::format("{}: cannot {}: {}{}", file_context(file), action, std::strerror(error), state));
}

// 0, or the errno of the first failed call.
int write_all(int fd, uint64_t offset, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t put_now = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (put_now < 0 && errno == EINTR) continue;
    if (put_now < 0) return errno;
    if (put_now == 0) return ENOSPC;
    bytes = bytes.subspan(static_cast<size_t>(put_now));
    offset += static_cast<uint64_t>(put_now);
  }
  return 0;
}

int read_all(int fd, uint64_t offset, std::span<std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t got = ::pread(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got == 0 ? EIO : errno;
    bytes = bytes.subspan(static_cast<size_t>(got));
    offset += static_cast<uint64_t>(got);
  }
  return 0;
}

// The regions below original_size that the commit overwrites or truncates away, merged.
std::vector<std::pair<uint64_t, uint64_t>> touched_regions(const PendingWrites& pending, uint64_t original_size) {
  std::vector<std::pair<uint64_t, uint64_t>> regions;
  for (const Extent& write : pending.writes)
    if (write.offset < original_size) regions.emplace_back(write.offset, std::min(write.end(), original_size));
  if (pending.final_size < original_size) regions.emplace_back(pending.final_size, original_size);
  std::sort(regions.begin(), regions.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& region : regions) {
    if (!merged.empty() && region.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, region.second);
    else
      merged.push_back(region);
  }
  return merged;
}

UndoImage capture_originals(int fd, const fs::path& file, const PendingWrites& pending, uint64_t original_size) {
  UndoImage image{original_size, {}};
  for (const auto& [begin, end] : touched_regions(pending, original_size)) {
    Extent extent{begin, std::vector<std::byte>(end - begin)};
    if (const int error = read_all(fd, begin, extent.bytes)) fail(file, "read it before changing it", error, "");
    image.originals.push_back(std::move(extent));
  }
  return image;
}

void fsync_directory_of(const fs::path& file) {
  const fs::path parent = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  Fd directory(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  // Some filesystems cannot fsync a directory (EINVAL); the removal is still done.
  if (directory && ::fsync(directory.get()) != 0 && errno != EINVAL)
    fail(file, fmt::format("fsync directory '{}'", parent.string()), errno, "");
}

void remove_undo(const fs::path& file) {
  if (::unlink(undo_path(file).c_str()) != 0 && errno != ENOENT)
    fail(file, fmt::format("remove '{}'", undo_path(file).string()), errno, "");
  fsync_directory_of(file);
}

}  // namespace

void write_sealed_undo(const fs::path& file, const UndoImage& image) {
  const fs::path path = undo_path(file);
  const std::vector<std::byte> bytes = encode(image);
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  int error = fd ? write_all(fd.get(), 0, bytes) : errno;
  if (error == 0 && ::fsync(fd.get()) != 0) error = errno;
  if (error == 0) return;
  ::unlink(path.c_str());
  fail(file, fmt::format("write its undo log '{}'", path.string()), error, "; the file is unchanged");
}

namespace {

// 0, or the errno of the first failed write, truncate or fsync.
int write_changes(int fd, const PendingWrites& pending, uint64_t size_now) {
  for (const Extent& write : pending.writes)
    if (const int error = write_all(fd, write.offset, write.bytes)) return error;
  uint64_t end = size_now;
  for (const Extent& write : pending.writes) end = std::max(end, write.end());
  if (end != pending.final_size && ::ftruncate(fd, static_cast<off_t>(pending.final_size)) != 0) return errno;
  return ::fsync(fd) == 0 ? 0 : errno;
}

// 0, or the errno of the first failed call. Writing back original bytes needs no new space.
int restore(int fd, const UndoImage& image) {
  for (const Extent& extent : image.originals)
    if (const int error = write_all(fd, extent.offset, extent.bytes)) return error;
  if (::ftruncate(fd, static_cast<off_t>(image.original_size)) != 0) return errno;
  return ::fsync(fd) == 0 ? 0 : errno;
}

std::vector<std::byte> read_whole(const fs::path& path, const fs::path& file) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return {};
    fail(file, fmt::format("read its undo log '{}'", path.string()), errno, "");
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail(file, fmt::format("stat '{}'", path.string()), errno, "");
  std::vector<std::byte> bytes(static_cast<size_t>(info.st_size));
  if (const int error = read_all(fd.get(), 0, bytes))
    fail(file, fmt::format("read its undo log '{}'", path.string()), error, "");
  return bytes;
}

}  // namespace

fs::path undo_path(const fs::path& file) {
  fs::path path = file;
  path += ".undo";
  return path;
}

std::optional<UndoImage> read_sealed_undo(const fs::path& file) {
  const std::vector<std::byte> bytes = read_whole(undo_path(file), file);
  return bytes.empty() ? std::nullopt : decode(bytes);
}

void apply_in_place(const fs::path& file, const PendingWrites& pending) {
  Fd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0) fail(file, "open it for writing", errno, "");
  const uint64_t original_size = static_cast<uint64_t>(info.st_size);
  const UndoImage image = capture_originals(fd.get(), file, pending, original_size);
  CommitMarker marker;
  write_sealed_undo(file, image);
  if (const int error = write_changes(fd.get(), pending, original_size)) {
    // Put the old bytes back now rather than leave that to the next writer: readers then find the
    // file as it was. If even that fails, the sealed log stays and the next writer restores it.
    if (const int restore_error = restore(fd.get(), image))
      fail(file, "append in place", error,
           fmt::format("; restoring the previous contents also failed ({}), so '{}' is kept and the next commit "
                       "restores the file from it",
                       std::strerror(restore_error), undo_path(file).string()));
    remove_undo(file);
    fail(file, "append in place", error, "; the file is as it was before this commit");
  }
  remove_undo(file);
}

void recover_interrupted_commit(const fs::path& file) {
  const std::optional<UndoImage> image = read_sealed_undo(file);
  if (image) {
    Fd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
    const int error = fd ? restore(fd.get(), *image) : errno;
    if (error != 0)
      fail(file, fmt::format("restore the commit a killed writer left half done from '{}'", undo_path(file).string()),
           error, "");
  }
  if (image || fs::exists(undo_path(file))) remove_undo(file);
}

CommitMarker::CommitMarker() : path_(std::getenv("RINGBENCH_COMMIT_MARKER")) {
  if (path_ == nullptr || *path_ == '\0') return;
  Fd marker(::open(path_, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (marker) {
    const std::string pid = std::to_string(::getpid()) + "\n";
    [[maybe_unused]] const ssize_t written = ::write(marker.get(), pid.data(), pid.size());
  }
}

CommitMarker::~CommitMarker() {
  if (path_ != nullptr && *path_ != '\0') ::unlink(path_);
}

}  // namespace ringbench::results
