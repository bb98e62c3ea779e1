// The reduction kernels (reduce_into: dst = dst op src) against memcpy, at a size that stays in
// cache (256 KiB) and one that does not (64 MiB).
//
// Throughput is in bytes touched per second, so the two are comparable as memory traffic: a
// reduction reads two buffers and writes one (3 x size per call), memcpy reads one and writes one
// (2 x size). The kernel runs at memory speed when its bytes_per_second matches memcpy's.

#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "transport/data_type.h"

namespace {

using ringbench::DataType;
using ringbench::ReduceOp;

constexpr int64_t kCacheBytes = 256 << 10;
constexpr int64_t kMemoryBytes = 64 << 20;

// Inputs whose reduction stays finite and normal under every op, however often it is repeated
// (1.0 is the identity of prod; 0 and 1 keep sum in range for the runs of a benchmark).
std::vector<std::byte> filled(DataType type, size_t bytes, int value) {
  std::vector<std::byte> buffer(bytes);
  const size_t count = bytes / ringbench::element_size(type);
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DataType::Float32: reinterpret_cast<float*>(buffer.data())[i] = static_cast<float>(value); break;
      case DataType::Float64: reinterpret_cast<double*>(buffer.data())[i] = value; break;
      case DataType::Int32: reinterpret_cast<int32_t*>(buffer.data())[i] = value; break;
      case DataType::Int64: reinterpret_cast<int64_t*>(buffer.data())[i] = value; break;
      case DataType::Float16:
        reinterpret_cast<uint16_t*>(buffer.data())[i] = ringbench::float_to_float16(static_cast<float>(value));
        break;
      case DataType::BFloat16:
        reinterpret_cast<uint16_t*>(buffer.data())[i] = ringbench::float_to_bfloat16(static_cast<float>(value));
        break;
      case DataType::Int8: reinterpret_cast<int8_t*>(buffer.data())[i] = static_cast<int8_t>(value); break;
      case DataType::UInt8: reinterpret_cast<uint8_t*>(buffer.data())[i] = static_cast<uint8_t>(value); break;
    }
  }
  return buffer;
}

void BM_Reduce(benchmark::State& state, DataType type, ReduceOp op) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t count = bytes / ringbench::element_size(type);
  // Sum adds 0 and prod multiplies by 1, so values never overflow into slow denormal/inf paths.
  auto dst = filled(type, bytes, 1);
  auto src = filled(type, bytes, op == ReduceOp::Sum || op == ReduceOp::Avg ? 0 : 1);
  for (auto _ : state) {
    ringbench::reduce_into(type, op, dst.data(), src.data(), count);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * static_cast<int64_t>(bytes));
  state.SetLabel("bytes touched = 2 reads + 1 write");
}

// avg's one division of a result by N (finish_average): 1 read + 1 write per byte.
void BM_Average(benchmark::State& state, DataType type) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  auto data = filled(type, bytes, 1);
  for (auto _ : state) {
    ringbench::finish_average(type, data.data(), bytes / ringbench::element_size(type), 1);
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
  state.SetLabel("bytes touched = 1 read + 1 write");
}

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<std::byte> dst(bytes, std::byte{1}), src(bytes, std::byte{2});
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
  state.SetLabel("bytes touched = 1 read + 1 write");
}

int register_all() {
  benchmark::RegisterBenchmark("memcpy", BM_Memcpy)->Arg(kCacheBytes)->Arg(kMemoryBytes);
  for (DataType type : ringbench::kAllDataTypes)
    for (ReduceOp op : ringbench::kAllReduceOps) {
      // avg reduces as sum (its kernel is sum's); its own cost is the division, benchmarked below.
      if (op == ReduceOp::Avg) continue;
      std::string name = "reduce/" + std::string(ringbench::to_string(type)) + "/" + std::string(ringbench::to_string(op));
      benchmark::RegisterBenchmark(name.c_str(), BM_Reduce, type, op)->Arg(kCacheBytes)->Arg(kMemoryBytes);
    }
  for (DataType type : ringbench::kAllDataTypes) {
    if (!ringbench::is_floating(type)) continue;
    std::string name = "average/" + std::string(ringbench::to_string(type));
    benchmark::RegisterBenchmark(name.c_str(), BM_Average, type)->Arg(kCacheBytes)->Arg(kMemoryBytes);
  }
  return 0;
}

const int registered = register_all();

}  // namespace
