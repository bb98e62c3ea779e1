// Non-blocking collectives (Communicator::start, the progress thread) with ranks as threads over
// real loopback sockets: several all-reduces in flight at once complete in issue order with exact
// results; a caller that computes sees test() turn true without calling wait(); a blocking call
// is ordered after the started ones; byte counts and the kernel's counts stay exact; and a peer
// that dies mid-flight (a real process, SIGKILLed) makes every survivor's wait() throw naming it.

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "collective_inputs.h"
#include "thread_ranks.h"
#include "transport/algorithm.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"
#include "transport/file_bootstrap.h"
#include "transport/progress_thread.h"

namespace ringbench {
namespace {

using namespace std::chrono_literals;
using testing::reduce_input;
using testing::reduced;

// One all-reduce's buffer, filled so that its exact sum is known; `salt` makes each call's
// inputs differ, so a result landing in the wrong buffer is caught.
struct SumBuffer {
  SumBuffer(int rank, size_t count, size_t salt) : data(count), salt(salt) {
    for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(reduce_input(ReduceOp::Sum, rank, i + salt));
  }
  CollectiveCall call() { return {DataType::Float32, ReduceOp::Sum, std::as_writable_bytes(std::span(data)), data.size(), 0}; }
  // The index of the first wrong element, or -1.
  long first_wrong(int n) const {
    for (size_t i = 0; i < data.size(); ++i)
      if (data[i] != static_cast<float>(reduced(ReduceOp::Sum, n, i + salt))) return static_cast<long>(i);
    return -1;
  }
  std::vector<float> data;
  size_t salt;
};

std::vector<const Algorithm*> allreduce_algorithms() {
  std::vector<const Algorithm*> found;
  for (const Algorithm* a : all_algorithms())
    if (a->collective() == Collective::AllReduce) found.push_back(a);
  return found;
}

TEST(NonBlocking, ManyCallsInFlightCompleteInIssueOrderWithExactResultsAndBytes) {
  const auto algorithms = allreduce_algorithms();
  ASSERT_FALSE(algorithms.empty());
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE(fmt::format("N = {}", n));
    testing::run_ranks(n, testing::quiet_options(), [&](Communicator& comm) {
      // Every all-reduce algorithm twice, sizes from one element to 256 KiB, all started at once.
      std::vector<std::unique_ptr<SumBuffer>> buffers;
      std::vector<CountedRequest> requests;
      for (size_t k = 0; k < 2 * algorithms.size(); ++k) {
        const Algorithm& algorithm = *algorithms[k % algorithms.size()];
        buffers.push_back(std::make_unique<SumBuffer>(comm.rank(), size_t{1} << (2 * k % 17), 7 * k));
        const CollectiveCall call = buffers.back()->call();
        requests.push_back(start_counted(comm, algorithm, call, expected_payload(comm, algorithm, call)));
      }
      EXPECT_TRUE(comm.calls_in_flight() || requests.back().test());
      uint64_t expected_total = 0;
      for (size_t k = 0; k < requests.size(); ++k) {
        const CountedRun run = requests[k].wait();
        // Issue order: when call k is done, every call started before it is done too.
        for (size_t j = 0; j < k; ++j) EXPECT_TRUE(requests[j].test()) << "call " << j << " after call " << k;
        EXPECT_TRUE(run.bytes_ok()) << "call " << k << ": sent " << run.moved.payload_sent << ", formula "
                                    << run.expected_payload;
        EXPECT_EQ(buffers[k]->first_wrong(n), -1) << "rank " << comm.rank() << " call " << k;
        expected_total += run.expected_payload;
      }
      EXPECT_FALSE(comm.calls_in_flight());
      comm.barrier();  // header-only frames: no payload
      EXPECT_EQ(comm.counters().payload_sent, expected_total);
      for (const KernelCheck& check : comm.check_kernel_counts())
        EXPECT_TRUE(check.ok()) << "rank " << comm.rank() << " to rank " << check.peer_rank << ": ours "
                                << check.ours_sent << "/" << check.ours_received << ", kernel " << check.kernel_sent
                                << "/" << check.kernel_received;
      comm.barrier();  // nobody leaves while a peer still reads its kernel counters
    });
  }
}

TEST(NonBlocking, TheCallProgressesWhileTheCallerComputes) {
  testing::run_ranks(3, testing::quiet_options(), [&](Communicator& comm) {
    SumBuffer buffer(comm.rank(), 1 << 20, 3);
    const Request request = comm.start([call = buffer.call()](Communicator& c) { ring_allreduce().run(c, call); });
    // "Compute" in 1 ms naps, never entering the communicator, until the call reports done: only
    // the progress thread can have moved its bytes. Bounded by the liveness timeout (20 s).
    int naps = 0;
    while (!request.test() && naps < 20000) {
      std::this_thread::sleep_for(1ms);
      ++naps;
    }
    ASSERT_TRUE(request.test()) << "rank " << comm.rank() << ": not done after " << naps << " naps";
    request.wait();
    EXPECT_EQ(buffer.first_wrong(comm.size()), -1);
  });
}

TEST(NonBlocking, ABlockingCallIsOrderedAfterTheStartedOnes) {
  testing::run_ranks(4, testing::quiet_options(), [&](Communicator& comm) {
    SumBuffer first(comm.rank(), 100000, 1), second(comm.rank(), 3, 2), blocking(comm.rank(), 50000, 3);
    const Request a = comm.start([call = first.call()](Communicator& c) { ring_allreduce().run(c, call); });
    const Request b = comm.start([call = second.call()](Communicator& c) { ring_allreduce().run(c, call); });
    ring_allreduce().run(comm, blocking.call());  // waits for a and b, then runs here
    EXPECT_TRUE(a.test() && b.test());
    a.wait();
    b.wait();
    EXPECT_EQ(first.first_wrong(4), -1);
    EXPECT_EQ(second.first_wrong(4), -1);
    EXPECT_EQ(blocking.first_wrong(4), -1);
  });
}

// The victim rank, in a forked process of its own: it starts two all-reduces, waits for the
// first, and SIGKILLs itself while the second is in flight. The survivors start three, so the
// third can never finish whatever the timing: their wait() must throw, naming the victim.
[[noreturn]] void run_victim(const std::string& dir, int victim, int n) {
  try {
    FileBootstrap bootstrap(dir, victim, n, 20s);
    auto comm = Communicator::connect(bootstrap, testing::quiet_options());
    SumBuffer one(victim, 1 << 16, 1), two(victim, 1 << 20, 2);
    const Request a = comm->start([call = one.call()](Communicator& c) { ring_allreduce().run(c, call); });
    const Request b = comm->start([call = two.call()](Communicator& c) { ring_allreduce().run(c, call); });
    a.wait();
    ::raise(SIGKILL);
  } catch (...) {
  }
  ::_exit(1);
}

TEST(NonBlocking, APeerDyingMidFlightMakesWaitThrowNamingIt) {
  const int n = 4, victim = 2;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench-nonblocking-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Forked before any thread of this test exists, so the child is a whole, single-threaded copy.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) run_victim(dir.string(), victim, n);
  std::atomic<int> named{0};
  std::vector<std::thread> survivors;
  for (int r = 0; r < n; ++r) {
    if (r == victim) continue;
    survivors.emplace_back([&, r] {
      FileBootstrap bootstrap(dir.string(), r, n, 20s);
      auto comm = Communicator::connect(bootstrap, testing::quiet_options());
      std::vector<std::unique_ptr<SumBuffer>> buffers;
      std::vector<Request> requests;
      for (size_t k = 0; k < 3; ++k) {
        buffers.push_back(std::make_unique<SumBuffer>(r, k == 0 ? 1 << 16 : 1 << 20, k + 1));
        requests.push_back(comm->start([call = buffers.back()->call()](Communicator& c) { ring_allreduce().run(c, call); }));
      }
      try {
        for (const Request& request : requests) request.wait();
        ADD_FAILURE() << "rank " << r << ": every call finished although rank " << victim << " died";
      } catch (const TransportError& e) {
        EXPECT_EQ(e.peer_rank(), victim) << "rank " << r << ": " << e.what();
        named += e.peer_rank() == victim;
        // Every later start and wait fails with the same error, at once.
        try {
          comm->start([](Communicator&) {}).wait();
          ADD_FAILURE() << "rank " << r << ": a start after the failure succeeded";
        } catch (const TransportError& again) {
          EXPECT_STREQ(again.what(), e.what());
        }
      }
    });
  }
  for (auto& t : survivors) t.join();
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the victim did not die as planned";
  EXPECT_EQ(named.load(), n - 1);
  fs::remove_all(dir);
}

// A caller waiting for the last of many started calls sleeps until that one is done: the calls
// finishing before it must not wake it. They did while a request's done flag was an
// atomic<bool>: libstdc++ waits on such a flag through one futex shared by every address in
// its hash bucket, so each finished call woke the waiter (at 64 KiB DDP buckets, N = 4: about
// 9,000 needless wake-ups per rank in 40 passes, each taking a core from a progress thread).
// Counted, not timed: the waiting thread's voluntary context switches.
TEST(NonBlocking, WaitingForTheLastCallSleepsThroughTheOthers) {
  constexpr int kCalls = 200;
  ProgressThread progress(0);
  std::vector<Request> requests;
  for (int k = 0; k < kCalls; ++k) requests.push_back(progress.start([] { std::this_thread::sleep_for(200us); }));
  rusage before{}, after{};
  getrusage(RUSAGE_THREAD, &before);
  requests.back().wait();
  getrusage(RUSAGE_THREAD, &after);
  const long sleeps = after.ru_nvcsw - before.ru_nvcsw;
  EXPECT_LE(sleeps, kCalls / 20) << "the waiter slept " << sleeps << " times through " << kCalls << " calls";
  for (const Request& request : requests) EXPECT_TRUE(request.test());
}

}  // namespace
}  // namespace ringbench
