#pragma once
// Collective operations, the algorithms that implement them, and the nccl-tests bandwidth
// definitions (nccl-tests doc/PERFORMANCE.md), so model output reads like nccl-tests output:
//
//   algbw = S / t, with S the message size: the buffer for all-reduce, broadcast, reduce and
//           send/recv; the whole gathered (all-gather) or scattered (reduce-scatter) buffer; the
//           whole send buffer for all-to-all.
//   busbw = algbw x bus_factor(op, n), the per-GPU link speed a bandwidth-optimal algorithm would
//           need, comparable across ops and group sizes:
//             all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
//             broadcast, reduce, send/recv 1.

#include <span>
#include <string>
#include <string_view>

namespace ringbench::model {

enum class Op { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv };
enum class Algorithm { Ring, Tree, HalvingDoubling, Hierarchical, InSwitch, Direct };

const char* to_string(Op op);
const char* to_string(Algorithm algorithm);
// InputError naming `flag` and the known names.
Op parse_op(std::string_view name, std::string_view flag = "--op");
Algorithm parse_algorithm(std::string_view name, std::string_view flag = "--algorithm");

double bus_factor(Op op, int n);
// bus_factor as text over `n` ("2(n-1)/n", "(n-1)/n", "1"), for the reports that explain it.
std::string bus_factor_formula(Op op, std::string_view n = "n");

// The algorithms that can implement `op` (each may still be inapplicable to a given group).
std::span<const Algorithm> algorithms_for(Op op);

}  // namespace ringbench::model
