#pragma once
// The model's one error type for bad input (a cluster file with a bad field, a placement that does
// not divide the GPU count, a group larger than the cluster). what() is one line that names the
// field or flag; the CLI prints it and exits 2. Programming errors are not InputErrors: they are
// assertions (see RB_MODEL_CHECK) because no user input can cause them.

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ringbench::model {

class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace ringbench::model

// CHECK-style abort with file and line, for invariants the model itself must keep.
#define RB_MODEL_CHECK(cond)                                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "%s:%d: model invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
