#pragma once
// The algorithm table of docs/algorithms.md, generated from the same formulas the code runs and
// the byte check uses (Algorithm::steps, payload_bytes_sent, when_it_wins; lower_bound_bytes), so
// the document cannot drift from the code: a test compares the page with this output.

#include <cstdint>
#include <string>

namespace ringbench {

// The parameters the documented table is printed for.
inline constexpr int kDocsTableWorldSize = 4;
inline constexpr uint64_t kDocsTableBytes = uint64_t{16} << 20;  // 16 MiB of float32

// A markdown table with one row per algorithm: collective, algorithm, steps at N, payload bytes
// sent per rank for a `bytes`-byte float32 buffer at N (max over ranks, and min when ranks
// differ), the collective's lower bound, and when it wins. Hierarchical is shown for one host,
// where it is the ring. Preceded by a one-line caption naming N and the size.
std::string algorithm_table_markdown(int world_size, uint64_t bytes);

// The table docs/algorithms.md carries between the marker lines below.
inline std::string documented_algorithm_table() {
  return algorithm_table_markdown(kDocsTableWorldSize, kDocsTableBytes);
}
inline constexpr const char* kTableBeginMarker = "<!-- algorithm-table:begin -->";
inline constexpr const char* kTableEndMarker = "<!-- algorithm-table:end -->";

}  // namespace ringbench
