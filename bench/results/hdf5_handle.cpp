#include "results/hdf5_handle.h"

#include <fmt/format.h>

#include <string>

#include "results/results_file.h"

namespace ringbench::results {
namespace {

// The innermost entry of HDF5's error stack is where the library noticed the problem ("unable to
// open file: ... errno = 2"); the outer ones only repeat which API call failed.
herr_t keep_innermost(unsigned depth, const H5E_error2_t* error, void* out) {
  if (depth == 0 && error->desc != nullptr) *static_cast<std::string*>(out) = error->desc;
  return 0;
}

}  // namespace

void throw_hdf5_error(std::string_view context, std::string_view action) {
  std::string innermost;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &innermost);
  if (innermost.empty()) throw ResultsError(fmt::format("{}: cannot {}", context, action));
  throw ResultsError(fmt::format("{}: cannot {} (HDF5: {})", context, action, innermost));
}

SilenceHdf5Errors::SilenceHdf5Errors() {
  H5Eget_auto2(H5E_DEFAULT, &previous_function_, &previous_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

SilenceHdf5Errors::~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, previous_function_, previous_data_); }

}  // namespace ringbench::results
