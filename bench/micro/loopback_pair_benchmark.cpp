// One loopback send/receive pair through our transport: two ranks as two threads of this
// process (Communicator over InMemoryBootstrap, real TCP sockets on 127.0.0.1), the benchmark's
// own thread being rank 0 and a helper thread rank 1.
//
//   pair/exchange/<bytes>  both ranks send <bytes> to each other at once (the ring send/receive
//                          of the link test at N=2); bytes_per_second is one direction's rate
//   pair/stream/<bytes>    rank 0 sends, rank 1 receives; one direction's rate
//   pair/pingpong/<bytes>  rank 0 sends, rank 1 answers; the time is one round trip
//
// Real time is reported (the other thread's work counts). In `stream` the sender can run ahead of
// the receiver by at most the socket buffers (a few MiB), which is noise against many iterations.

#include <benchmark/benchmark.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/communicator.h"
#include "transport/in_memory_bootstrap.h"

namespace {

using namespace ringbench;

enum class Pattern { Exchange, Stream, PingPong, Stop };

struct Job {
  Pattern pattern = Pattern::Stop;
  size_t bytes = 0;
  int64_t iterations = 0;
};

TransportOptions pair_options() {
  TransportOptions options;
  options.iface_spec = "lo";
  options.log = [](std::string_view) {};
  return options;
}

// One call of `pattern` as rank `rank` (0 or 1) of the pair; both ranks advance the sequence.
void one_call(Communicator& comm, Pattern pattern, std::span<std::byte> out, std::span<std::byte> in) {
  const int other = 1 - comm.rank();
  comm.begin_collective();
  SendSpec send{other, 0, out};
  RecvSpec recv{other, 0, in};
  const StepContext where{"pair", "micro", 0, 1};
  switch (pattern) {
    case Pattern::Exchange: comm.exchange({&send, 1}, {&recv, 1}, where); break;
    case Pattern::Stream:
      if (comm.rank() == 0) comm.exchange({&send, 1}, {}, where);
      else comm.exchange({}, {&recv, 1}, where);
      break;
    case Pattern::PingPong: {
      SendSpec reply{other, 1, out};
      RecvSpec answer{other, 1, in};
      if (comm.rank() == 0) {
        comm.exchange({&send, 1}, {}, where);
        comm.exchange({}, {&answer, 1}, where);
      } else {
        comm.exchange({}, {&recv, 1}, where);
        comm.exchange({&reply, 1}, {}, where);
      }
      break;
    }
    case Pattern::Stop: break;
  }
}

// Rank 1 lives on its own thread for the whole program and runs whatever job rank 0 posts.
class Pair {
 public:
  static Pair& get() {
    static Pair pair;
    return pair;
  }
  Communicator& rank0() { return *rank0_; }

  void start(Job job) {
    std::lock_guard lock(mutex_);
    job_ = job;
    posted_ = true;
    changed_.notify_all();
  }
  void wait_done() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !posted_; });
  }
  ~Pair() {
    start({Pattern::Stop, 0, 0});
    peer_.join();
  }

 private:
  Pair() {
    auto exchange = std::make_shared<InMemoryExchange>(2);
    peer_ = std::thread([this, exchange] {
      InMemoryBootstrap bootstrap(exchange, 1, 2);
      auto comm = Communicator::connect(bootstrap, pair_options());
      std::vector<std::byte> out, in;
      for (;;) {
        Job job;
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return posted_; });
          job = job_;
        }
        if (job.pattern == Pattern::Stop) return;
        out.resize(job.bytes);
        in.resize(job.bytes);
        for (int64_t i = 0; i < job.iterations; ++i) one_call(*comm, job.pattern, out, in);
        std::lock_guard lock(mutex_);
        posted_ = false;
        changed_.notify_all();
      }
    });
    InMemoryBootstrap bootstrap(exchange, 0, 2);
    rank0_ = Communicator::connect(bootstrap, pair_options());
  }

  std::unique_ptr<Communicator> rank0_;
  std::thread peer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Job job_;
  bool posted_ = false;
};

void BM_Pair(benchmark::State& state, Pattern pattern) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  Pair& pair = Pair::get();
  std::vector<std::byte> out(bytes, std::byte{7}), in(bytes);
  pair.start({pattern, bytes, static_cast<int64_t>(state.max_iterations)});
  for (auto _ : state) one_call(pair.rank0(), pattern, out, in);
  pair.wait_done();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

int register_all() {
  benchmark::RegisterBenchmark("pair/exchange", BM_Pair, Pattern::Exchange)
      ->RangeMultiplier(16)->Range(64 << 10, 16 << 20)->UseRealTime();
  benchmark::RegisterBenchmark("pair/stream", BM_Pair, Pattern::Stream)
      ->RangeMultiplier(16)->Range(64 << 10, 16 << 20)->UseRealTime();
  benchmark::RegisterBenchmark("pair/pingpong", BM_Pair, Pattern::PingPong)->Arg(8)->Arg(4096)->UseRealTime();
  return 0;
}

const int registered = register_all();

}  // namespace
