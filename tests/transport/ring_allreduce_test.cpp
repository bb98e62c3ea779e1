// Ring all-reduce over real loopback sockets, ranks as threads: exact results and exact byte
// counts for every dtype and op, N in {1,2,3,4,5,7,8}, awkward counts, and socket buffers and
// pipeline pieces far smaller than the messages. The full cross-product does not fit the CI
// budget; the cases below cover every pair of (N, count kind, dtype, op, tiny buffers) values.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "collective_inputs.h"
#include "thread_ranks.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"

namespace ringbench {
namespace {

using testing::count_for;
using testing::CountKind;
using testing::kCountNames;

// Inputs whose reduction is exact in every dtype, shared with the other collectives' tests.
using testing::reduce_input;
using testing::reduced;

template <typename T>
void fill(std::vector<std::byte>& buffer, ReduceOp op, int rank, size_t count) {
  T* data = reinterpret_cast<T*>(buffer.data());
  for (size_t i = 0; i < count; ++i) data[i] = static_cast<T>(reduce_input(op, rank, i));
}

template <typename T>
void expect_reduced(const std::vector<std::byte>& buffer, ReduceOp op, int n, int rank, size_t count) {
  const T* data = reinterpret_cast<const T*>(buffer.data());
  for (size_t i = 0; i < count; ++i) {
    T expected = static_cast<T>(reduced(op, n, i));
    if (data[i] != expected) {
      ADD_FAILURE() << "rank " << rank << " element " << i << ": expected " << expected << ", got " << data[i];
      return;
    }
  }
}

struct Case {
  int n;
  CountKind count;
  DataType dtype;
  ReduceOp op;
  size_t socket_buffer;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  // append() only: g++ 12 warns falsely (-Wrestrict) on `"_" + std::string` (its bug 105329).
  std::string name = "n";
  name.append(std::to_string(c.n)).append("_").append(kCountNames[static_cast<int>(c.count)]);
  name.append("_").append(to_string(c.dtype)).append("_").append(to_string(c.op));
  if (c.socket_buffer) name.append("_tinybuf");
  return name;
}

class RingAllReduceTest : public ::testing::TestWithParam<Case> {};

TEST_P(RingAllReduceTest, ExactResultAndExactBytes) {
  const Case c = GetParam();
  const size_t count = count_for(c.count, c.n);
  TransportOptions options = testing::quiet_options(c.socket_buffer);
  // With tiny socket buffers, tiny pipeline pieces and write slices too: the reduce-scatter's
  // staging ring (4 pieces, 4 KiB) then wraps around hundreds of times within one frame, an odd
  // count leaves a short last piece, and sends stop at slice boundaries inside frames.
  if (c.socket_buffer) {
    options.pipeline_bytes = 1024;
    options.write_slice_bytes = 1000;
  }
  testing::run_ranks(c.n, options, [&](Communicator& comm) {
    const size_t esize = element_size(c.dtype);
    std::vector<std::byte> buffer(count * esize);
    switch (c.dtype) {
      case DataType::Float32: fill<float>(buffer, c.op, comm.rank(), count); break;
      case DataType::Float64: fill<double>(buffer, c.op, comm.rank(), count); break;
      case DataType::Int32: fill<int32_t>(buffer, c.op, comm.rank(), count); break;
      case DataType::Int64: fill<int64_t>(buffer, c.op, comm.rank(), count); break;
      default: FAIL() << "rows here use the first four dtypes; dtype_collectives_test.cpp covers the rest";
    }
    CollectiveCall call{c.dtype, c.op, buffer, count, 0};
    CountedRun run = run_counted(comm, ring_allreduce(), call);
    EXPECT_EQ(run.moved.payload_sent, run.expected_payload) << "rank " << comm.rank();
    // Everything a rank receives comes from its left neighbour, whose formula says how much.
    const int left = (comm.rank() - 1 + c.n) % c.n;
    EXPECT_EQ(run.moved.payload_received,
              c.n == 1 ? 0 : ring_allreduce().payload_bytes_sent(left, c.n, count, esize, 0))
        << "rank " << comm.rank();
    switch (c.dtype) {
      case DataType::Float32: expect_reduced<float>(buffer, c.op, c.n, comm.rank(), count); break;
      case DataType::Float64: expect_reduced<double>(buffer, c.op, c.n, comm.rank(), count); break;
      case DataType::Int32: expect_reduced<int32_t>(buffer, c.op, c.n, comm.rank(), count); break;
      case DataType::Int64: expect_reduced<int64_t>(buffer, c.op, c.n, comm.rank(), count); break;
      default: FAIL() << "rows here use the first four dtypes; dtype_collectives_test.cpp covers the rest";
    }
    comm.barrier();
    for (const auto& check : comm.check_kernel_counts()) {
      EXPECT_TRUE(check.ok()) << "rank " << comm.rank() << " peer " << check.peer_rank << ": sent " << check.ours_sent
                              << " vs kernel " << check.kernel_sent << ", received " << check.ours_received
                              << " vs kernel " << check.kernel_received;
    }
    // Nobody leaves (Bye, then close) while a peer still reads its kernel counters: the FIN would
    // count in the kernel's bytes received (seen under TSan, whose slowness widens the window).
    comm.barrier();
  });
}

constexpr size_t kTiny = 4096;
using D = DataType;
using O = ReduceOp;
using K = CountKind;

// Pairwise cover of n x count x dtype x op x buffer (generated by hand, checked: every pair of
// values of any two parameters occurs in at least one row).
INSTANTIATE_TEST_SUITE_P(
    Pairwise, RingAllReduceTest,
    ::testing::Values(
        Case{1, K::Zero, D::Float32, O::Sum, 0}, Case{1, K::One, D::Float64, O::Prod, kTiny},
        Case{1, K::NPlus1, D::Int32, O::Min, 0}, Case{1, K::Prime, D::Int64, O::Max, kTiny},
        Case{1, K::Large, D::Float32, O::Max, 0}, Case{1, K::NMinus1, D::Float32, O::Sum, kTiny},
        Case{2, K::Zero, D::Float64, O::Min, kTiny}, Case{2, K::One, D::Int32, O::Max, 0},
        Case{2, K::NMinus1, D::Int64, O::Sum, 0}, Case{2, K::NPlus1, D::Float32, O::Prod, kTiny},
        Case{2, K::Prime, D::Float64, O::Sum, 0}, Case{2, K::Large, D::Int32, O::Sum, kTiny},
        Case{3, K::Zero, D::Int32, O::Prod, 0}, Case{3, K::One, D::Int64, O::Min, kTiny},
        Case{3, K::NMinus1, D::Float32, O::Max, kTiny}, Case{3, K::NPlus1, D::Float64, O::Sum, 0},
        Case{3, K::Prime, D::Int32, O::Prod, kTiny}, Case{3, K::Large, D::Int64, O::Prod, 0},
        Case{4, K::Zero, D::Int64, O::Max, kTiny}, Case{4, K::One, D::Float32, O::Sum, 0},
        Case{4, K::NMinus1, D::Float64, O::Prod, 0}, Case{4, K::NPlus1, D::Int32, O::Sum, kTiny},
        Case{4, K::Prime, D::Float32, O::Min, 0}, Case{4, K::Large, D::Float64, O::Max, kTiny},
        Case{4, K::Large, D::Float32, O::Sum, kTiny},
        Case{5, K::Zero, D::Float32, O::Prod, kTiny}, Case{5, K::One, D::Float64, O::Max, 0},
        Case{5, K::NMinus1, D::Int32, O::Min, 0}, Case{5, K::NPlus1, D::Int64, O::Prod, kTiny},
        Case{5, K::Prime, D::Int64, O::Sum, 0}, Case{5, K::Large, D::Float32, O::Min, kTiny},
        Case{7, K::Zero, D::Int32, O::Sum, 0}, Case{7, K::One, D::Int32, O::Prod, kTiny},
        Case{7, K::NMinus1, D::Int64, O::Max, kTiny}, Case{7, K::NPlus1, D::Float32, O::Min, 0},
        Case{7, K::Prime, D::Float64, O::Max, kTiny}, Case{7, K::Large, D::Float64, O::Min, 0},
        Case{8, K::Zero, D::Float64, O::Sum, 0}, Case{8, K::One, D::Int64, O::Sum, kTiny},
        Case{8, K::NMinus1, D::Float32, O::Prod, 0}, Case{8, K::NPlus1, D::Float64, O::Max, kTiny},
        Case{8, K::Prime, D::Int32, O::Max, 0}, Case{8, K::Large, D::Int64, O::Min, kTiny}),
    case_name);

}  // namespace
}  // namespace ringbench
