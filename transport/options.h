#pragma once
// Every transport tunable, with its default beside its name.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "host_identity.h"

namespace ringbench {

struct TransportOptions {
  // Interface filter in NCCL_SOCKET_IFNAME's syntax ("ib", "=eth0", "^docker,lo"); empty chooses
  // automatically (see interfaces.h). iface_origin names where it came from, for messages.
  std::string iface_spec;
  std::string iface_origin = "--iface";
  // No-progress deadline for every blocking operation: it fails when no byte has moved for this
  // long. Zero waits forever. A slow but moving transfer is never cut off.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  // How long to keep retrying connects and waiting for handshakes once every rank's address is
  // known (ringbench sets it from --timeout).
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(60);
  // SO_SNDBUF/SO_RCVBUF request in bytes; 0 keeps the kernel's autotuning. Tiny values (4096) make
  // tests exercise the partial-send paths that large messages hit, without large messages.
  size_t socket_buffer_bytes = 0;
  // How long a stalled progress loop keeps retrying before it sleeps in poll(). Spinning saves the
  // 25-30 us a wake-up costs per hop; each retry yields the core to whatever else needs it (a
  // peer sharing it, the kernel's network work) instead of holding it. Zero sleeps at once. Unset (--spin auto, the default),
  // Communicator::spin() chooses by whether the rank has a core to itself:
  //  - yes, in a blocking call: kOwnCoreSpin. A ring's wake-ups add up along its 2(N-1) steps,
  //    each hop waiting on the one before: at N = 16 on 16 cores (Intel Xeon VM, 2026-12-04) a
  //    50 us spin slept 29-52 times per call and made 512 KiB-2 MiB 2.0-2.9x slower than 1 ms
  //    did, for the same CPU per GB (docs/performance.md, "The N = 16 cliff");
  //  - no, or on the progress thread (whose owner computes on the same core): kSharedCoreSpin.
  std::optional<std::chrono::microseconds> spin;
  static constexpr std::chrono::microseconds kOwnCoreSpin{1000};
  static constexpr std::chrono::microseconds kSharedCoreSpin{50};
  // Received bytes are handed to a reduction in pieces of at least this many bytes, so reducing
  // one piece overlaps receiving the next.
  size_t pipeline_bytes = 256 * 1024;
  // Most bytes one send() may take. The best value is the machine's, not the code's: on one
  // machine type 128 KiB slices made the N=2 ring 1.3-1.7x faster at 2-8 MiB, on another they
  // made it 1.6-2x slower than 2 MiB at 1-64 MiB. So ringbench measures it at start-up
  // (bench/ringbench/slice_probe.h) and sets it (Communicator::set_write_slice_bytes). 0, where
  // nothing measured it, chooses by whether this host has a core for every rank:
  //  - yes: kOwnCoreSlice, so a rank soon returns from each send to read and reduce what its left
  //    neighbour sent;
  //  - no: kSharedCoreSlice.
  // Either way, with more ranks than cores the rank yields its core after each slice of a longer
  // frame, so the rank sharing it (often the one about to read those bytes) runs while they are
  // still in cache (N=4 on 2 cores, 4-64 MiB: 1.45-1.54 -> 1.70-2.11 GB/s busbw; without the
  // yield no gain).
  size_t write_slice_bytes = 0;
  static constexpr size_t kOwnCoreSlice = 128 * 1024;
  static constexpr size_t kSharedCoreSlice = 512 * 1024;
  // TCP connections ("streams") to each peer, 1 to kMaxStreams. Each connection's byte stream is
  // striped over them in kStripeBytes pieces, round robin (stripe.h), so K flows carry one
  // peer's traffic: what a NIC needs when one flow is capped below the link (issue 18 §3). Every
  // rank must use the same K: a peer with another K is refused at set-up.
  int streams = 1;
  static constexpr int kMaxStreams = 8;
  // Threads that move the K streams' bytes at once, this rank's own included (stream_helpers.h):
  // 1 to `streams`. 1 (no helpers) where one core's copying fills the link, as on loopback, where
  // every core is already busy with a rank.
  int threads = 1;
  // Publish this identity instead of HostIdentity::local(). Tests only: ranks that are threads of
  // one process then look like ranks on different hosts to host-aware algorithms (hierarchical).
  // Every rank still listens on and connects over its real interfaces.
  std::optional<HostIdentity> host_override;
  // While a call makes no progress, a watchdog line names what it waits on every this often
  // ("rank 1 waiting 10 s on rank 2 in ring allreduce step 3/6"); zero for none.
  std::chrono::milliseconds watchdog_interval = std::chrono::seconds(5);
  // Fault injection (bench/ringbench/fault_injection.*, tests): called by rank `rank` on entering the
  // progress loop for collective call `sequence` and again the first time that call has to wait for
  // a peer, so a fault can strike mid-collective. Empty: no faults.
  std::function<void(int rank, uint64_t sequence, bool waiting)> fault_hook;
  // Fault injection, a silent link: called by rank `rank` as collective call `sequence` begins; a
  // peer returned (not -1) has its connection silenced from then on (Connection::silence). Empty: none.
  std::function<int(int rank, uint64_t sequence)> silenced_peer;
  // After set-up the listener stays open: strangers that connect are read for at most this long,
  // then closed and logged (strangers.cpp). At most kMaxStrangers are held at once.
  std::chrono::milliseconds stranger_grace = std::chrono::seconds(2);
  // Where the transport's log lines go (interface choice, rejected strangers). Default: stderr.
  std::function<void(std::string_view)> log;
};

}  // namespace ringbench
