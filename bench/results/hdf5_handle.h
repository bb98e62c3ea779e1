#pragma once
// The one layer between the results library and the HDF5 C API:
//   Handle<Close>      owns an hid_t and calls the matching H5?close exactly once;
//   ReclaimVlenOnExit  frees the strings HDF5 allocated for a read;
//   check_id/status    turn a failed HDF5 call into a ResultsError that names the file;
//   SilenceHdf5Errors  keeps HDF5 from printing its own error stack while we report ours.
// Nothing outside bench/results/ includes this header.

#include <hdf5.h>

#include <string_view>
#include <utility>

namespace ringbench::results {

template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }

  // Closes now and returns HDF5's status. Only a file's close can meaningfully fail (it flushes
  // metadata), so commit() closes its file this way and checks; everything else closes in the
  // destructor, where a failure has nowhere to go.
  herr_t close() { return id_ >= 0 ? Close(std::exchange(id_, H5I_INVALID_HID)) : 0; }

 private:
  void reset() {
    if (id_ >= 0) Close(std::exchange(id_, H5I_INVALID_HID));
  }

  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Datatype = Handle<H5Tclose>;
using Dataspace = Handle<H5Sclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

// Frees the strings HDF5 allocated when it read variable-length data into `buffer`, even if
// converting them throws. `type` and `space` are those the read used. (H5Dvlen_reclaim: Debian's
// 1.10.8 headers declare its successor H5Treclaim, but the library does not export it.)
class ReclaimVlenOnExit {
 public:
  ReclaimVlenOnExit(hid_t type, hid_t space, void* buffer) : type_(type), space_(space), buffer_(buffer) {}
  ~ReclaimVlenOnExit() { H5Dvlen_reclaim(type_, space_, H5P_DEFAULT, buffer_); }
  ReclaimVlenOnExit(const ReclaimVlenOnExit&) = delete;
  ReclaimVlenOnExit& operator=(const ReclaimVlenOnExit&) = delete;

 private:
  hid_t type_;
  hid_t space_;
  void* buffer_;
};

// `context` says what was being worked on ("results file 'x.h5'", "table /runs in 'x.h5'"),
// `action` what failed ("extend the dataset"). The ResultsError reads
// "<context>: cannot <action> (HDF5: <innermost HDF5 error>)".
[[noreturn]] void throw_hdf5_error(std::string_view context, std::string_view action);

inline hid_t check_id(hid_t id, std::string_view context, std::string_view action) {
  if (id < 0) throw_hdf5_error(context, action);
  return id;
}

inline void check_status(herr_t status, std::string_view context, std::string_view action) {
  if (status < 0) throw_hdf5_error(context, action);
}

// For the H5?exists family, which return a tri-state (negative on error).
inline bool check_bool(htri_t result, std::string_view context, std::string_view action) {
  if (result < 0) throw_hdf5_error(context, action);
  return result > 0;
}

// While alive, HDF5 prints nothing on failure; the previous handler comes back afterwards. Each
// public entry point holds one, declared before any Handle so that it outlives them.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors();
  ~SilenceHdf5Errors();
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t previous_function_ = nullptr;
  void* previous_data_ = nullptr;
};

}  // namespace ringbench::results
