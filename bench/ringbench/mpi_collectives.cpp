#include "mpi_collectives.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "transport/collectives/chunk_layout.h"
#include "transport/communicator.h"
#include "transport/copy_distance.h"

namespace ringbench {
namespace {

// Open MPI 4.1 has no float16 or bfloat16 datatype: both travel as MPI_UINT16_T (their bits)
// and reduce through user ops that call our own kernels (reduce_into), so the `mpi` rows round
// exactly as ours do. The built-in ops serve float32, float64, int32 and int64 (see mpi_op for
// int8 and uint8).
MPI_Datatype mpi_type(DataType type) {
  switch (type) {
    case DataType::Float32: return MPI_FLOAT;
    case DataType::Float64: return MPI_DOUBLE;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::Int64: return MPI_INT64_T;
    case DataType::Float16:
    case DataType::BFloat16: return MPI_UINT16_T;
    case DataType::Int8: return MPI_INT8_T;
    case DataType::UInt8: return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

// MPI's user-op contract: inout[i] = in[i] op inout[i]; every op here is commutative.
template <DataType Type, ReduceOp Op>
void user_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  reduce_into(Type, Op, static_cast<std::byte*>(inout), static_cast<const std::byte*>(in), static_cast<size_t>(*len));
}

template <DataType Type>
MPI_Op user_op(ReduceOp op) {
  // Created on first use (after MPI_Init), one per op, and kept until MPI_Finalize frees them.
  static const auto create = [](MPI_User_function* function) {
    MPI_Op handle = MPI_OP_NULL;
    MPI_Op_create(function, /*commute=*/1, &handle);
    return handle;
  };
  static const MPI_Op sum = create(&user_reduce<Type, ReduceOp::Sum>), prod = create(&user_reduce<Type, ReduceOp::Prod>),
                      min = create(&user_reduce<Type, ReduceOp::Min>), max = create(&user_reduce<Type, ReduceOp::Max>);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return sum;
    case ReduceOp::Prod: return prod;
    case ReduceOp::Min: return min;
    case ReduceOp::Max: return max;
  }
  return sum;
}

// avg reduces as MPI_SUM; run_counted then divides this rank's result once (finish_average), the
// same single division as for our algorithms.
//
// int8 and uint8 also reduce through our kernels: Open MPI 4.1's op/avx component (picked on any
// AVX2/AVX-512 CPU) sums 8- and 16-bit integers with saturating instructions, so an int8 sum of
// -100, -100, -61 comes back -128 instead of wrapping to -5 (open-mpi/ompi#8045, closed
// "wontfix"); ringbench's verification caught it on every size. Wrapping is what every other
// type, ours, NCCL's and MPI's own non-AVX loops do.
MPI_Op mpi_op(ReduceOp op, DataType type) {
  if (type == DataType::Float16) return user_op<DataType::Float16>(op);
  if (type == DataType::BFloat16) return user_op<DataType::BFloat16>(op);
  if (type == DataType::Int8) return user_op<DataType::Int8>(op);
  if (type == DataType::UInt8) return user_op<DataType::UInt8>(op);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return MPI_SUM;
    case ReduceOp::Prod: return MPI_PROD;
    case ReduceOp::Min: return MPI_MIN;
    case ReduceOp::Max: return MPI_MAX;
  }
  return MPI_SUM;
}

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

// Element counts and displacements of ChunkLayout's chunks: the MPI "v" collectives take uneven
// chunks, so `mpi` rows use the same buffer convention as ours for every count.
struct Layout {
  std::vector<int> counts, displs;
  Layout(size_t count, int n) {
    ChunkLayout chunks(count, n);
    for (int r = 0; r < n; ++r) {
      counts.push_back(static_cast<int>(chunks.size(r)));
      displs.push_back(static_cast<int>(chunks.offset(r)));
    }
  }
};

class MpiCollective final : public Algorithm {
 public:
  explicit MpiCollective(Collective collective) : collective_(collective) {}
  Collective collective() const override { return collective_; }
  std::string_view name() const override { return "mpi"; }
  uint32_t steps(int) const override { return 0; }
  uint64_t payload_bytes_sent(int, int, size_t, size_t, int) const override { return 0; }
  bool bytes_counted() const override { return false; }
  std::string_view when_it_wins() const override { return "the MPI library's own choice (baseline, not ours)"; }
  void settle() const override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

  void run(Communicator& comm, const CollectiveCall& call) const override {
    const int n = comm.size(), r = comm.rank();
    void* buffer = call.buffer.data();
    const MPI_Datatype type = mpi_type(call.dtype);
    const int count = static_cast<int>(call.count);
    const size_t esize = element_size(call.dtype);
    switch (collective_) {
      case Collective::AllReduce:
        check(MPI_Allreduce(MPI_IN_PLACE, buffer, count, type, mpi_op(call.op, call.dtype), MPI_COMM_WORLD), "MPI_Allreduce");
        break;
      case Collective::AllGather: {
        Layout layout(call.count, n);
        check(MPI_Allgatherv(MPI_IN_PLACE, 0, type, buffer, layout.counts.data(), layout.displs.data(), type,
                             MPI_COMM_WORLD),
              "MPI_Allgatherv");
        break;
      }
      case Collective::ReduceScatter: {
        // MPI_Reduce_scatter (the uneven-chunk form of MPI_Reduce_scatter_block) puts this rank's
        // result at the start of the receive buffer; ours lives at chunk r, so receive into
        // scratch and copy it there.
        // The scratch lies half a page from its target, as ours do (transport/copy_distance.h).
        Layout layout(call.count, n);
        const size_t bytes = static_cast<size_t>(layout.counts[r]) * esize;
        std::byte* const target = call.buffer.data() + static_cast<size_t>(layout.displs[r]) * esize;
        std::byte* const scratch = half_page_from(comm.scratch(with_copy_slack(bytes)).data(), target);
        check(MPI_Reduce_scatter(buffer, scratch, layout.counts.data(), type, mpi_op(call.op, call.dtype), MPI_COMM_WORLD),
              "MPI_Reduce_scatter");
        std::memcpy(target, scratch, bytes);
        break;
      }
      case Collective::Broadcast:
        check(MPI_Bcast(buffer, count, type, call.root, MPI_COMM_WORLD), "MPI_Bcast");
        break;
      case Collective::Reduce:
        check(MPI_Reduce(r == call.root ? MPI_IN_PLACE : buffer, r == call.root ? buffer : nullptr, count, type,
                         mpi_op(call.op, call.dtype), call.root, MPI_COMM_WORLD),
              "MPI_Reduce");
        break;
      case Collective::AllToAll: {
        const int block = static_cast<int>(call.count / static_cast<size_t>(n));
        check(MPI_Alltoall(MPI_IN_PLACE, block, type, buffer, block, type, MPI_COMM_WORLD), "MPI_Alltoall");
        break;
      }
    }
  }

 private:
  Collective collective_;
};

}  // namespace

const std::vector<const Algorithm*>& mpi_algorithms() {
  static const MpiCollective allreduce(Collective::AllReduce), allgather(Collective::AllGather),
      reducescatter(Collective::ReduceScatter), broadcast(Collective::Broadcast), reduce(Collective::Reduce),
      alltoall(Collective::AllToAll);
  static const std::vector<const Algorithm*> all = {&allreduce, &allgather, &reducescatter,
                                                    &broadcast, &reduce,    &alltoall};
  return all;
}

std::vector<const Algorithm*> harness_algorithms() {
  std::vector<const Algorithm*> all = all_algorithms();
  all.insert(all.end(), mpi_algorithms().begin(), mpi_algorithms().end());
  return all;
}

const Algorithm* find_harness_algorithm(Collective collective, std::string_view name) {
  for (const Algorithm* a : harness_algorithms())
    if (a->collective() == collective && a->name() == name) return a;
  return nullptr;
}

}  // namespace ringbench
