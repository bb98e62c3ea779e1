#pragma once
// A fixture for layering.spec_include_check_rejects_others: a "spec" file that reaches for a
// library header. spec_includes.cmake must reject it, or its pass on spec/ proves nothing.
#include <cstdint>
#include <fmt/format.h>
