#pragma once
// The time of one call of a ringbench collective on a measured machine (a cluster whose "GPUs" are
// CPU ranks: measured_machine.h), priced from the specification's own plans (spec/): the same
// steps, peers and bytes the transport runs. topomodel predict compares it with measured rows.
//
// A call is its plan's steps in order, as a dataflow: a rank starts step t once it has finished
// step t-1 and each rank it receives from in step t had finished step t-1 a latency ago (so a
// pipeline pays each hop's latency once, not once per segment: the root of a chain sends segment
// after segment without waiting), then takes the step's duration:
//
//     finish_r(t) = max( finish_r(t-1), max over senders p of finish_p(t-1) + latency )
//                   + max( wire_r, cpu of r's host )
//     wire_r = sum over link classes c of  overhead_c x max(pieces sent, pieces received)
//                                        + max(bytes sent, bytes received) / bandwidth_c
//              where across hosts the bytes are at least what each NIC of r's host carries in
//              the step: its ranks' across-hosts bytes sent (or received, if more) over nics.per_node
//     cpu_h  = max( max over h's ranks of work_r / min(1, cores_h),
//                   sum over h's ranks of (work_r + pieces_r) / cores_h )
//     cores_h = host_cpu.cores x (1 - the share of the host's CPU other processes took meanwhile)
//     work_r = (bytes sent + bytes received) / kernel copy rate + bytes reduced / reduce rate
//     pieces_r = sum over link classes c of overhead_c x (pieces sent + pieces received),
//                when h has more ranks than host_cpu.cores; else 0
//
// wire_r is the rank's links (link_fit.h's terms; a link carries both directions at once). The link
// test timed one flow alone on the link between two hosts; ranks of one host crossing in the same
// step share it (two hosts x 2 ranks, 1 Gbit/s between them: rhd's and hierarchical's steps send
// from both ranks of a host at once, and took twice the one-flow time, while the ring crosses
// with one flow per host each way). cpu_h is
// the shared-cores rule: the kernel copies every byte a rank sends into its socket and every byte
// it receives out of one, and the rank reduces what it receives. A rank runs on one core at most;
// when a host has more ranks than cores (4 ranks on 2 cores), their work is divided over the cores
// it has, less what other processes took (ringbench records that share for every row,
// foreign_cpu_share; 0 on a quiet host). A piece's overhead is CPU time at both ends: on cores of
// their own the two ends overlap and wire_r prices it, but with more ranks than cores no core
// idles, so both ends' share queues with the copies (pieces_r). The kernel copy rate is what the same-host link test
// measured (on loopback a link is nothing but the kernel copying at both ends, one core each),
// capped by the memcpy probe: the kernel's copies through TCP run far below memcpy's rate (8
// against 35 GB/s on the 2-core Xeon VM), so pricing them at memcpy's would count a fifth of the
// work. Without host_cpu (a GPU cluster) cpu_h is 0. A call adds launch_overhead_us once. This is
// the one copy of the rule; docs/model.md#calibrate-and-predict-this-machine explains it.
//
// Where the machine holds exchange_copy_rates (a one-host run's ring send/receive link test,
// exchange_rate.h), the kernel copy rate of a rank's step is that curve at the step's message size
// (its largest single send or receive: a step to several peers copies each message through its own
// socket, so naive's N - 1 messages of a 1 MiB buffer copy at 1 MiB's rate, not at 3 MiB's), and
// the same-host link takes the same rate and no per-piece overhead. A step that moves a slice of its buffer copies no faster than a row whose
// chunks were that buffer's: min(curve at the message, curve at buffer / N), N the world size (the
// curve is keyed by a row's chunk, its buffer over N), where the buffer is the call's own or the
// larger one its data lies in (resident_bytes), and a slice is a message at least one element short
// of buffer / N. The curve's small chunks were measured on a buffer the caches held. A pipelined
// plan's segment is a slice of the call's whole buffer: on the 2-core AMD VM the chain broadcast of
// 4 MiB at N = 3, 256 KiB segments, took 2065 us, priced 1197 at the 256 KiB chunk's rate and 1690
// at the 1.4 MiB chunk's. A DDP bucket is a slice of gradients that outgrow the caches: a 1 MiB
// bucket inside the step took 2864 us at N = 4 against 1555 us as a plain 1 MiB row.
//
// Where the machine also holds exchange_reduce_rates (the reducing link test beside the plain one,
// exchange_rate.h), a rank's reduced bytes are priced at that curve's rate at the same message,
// with the same slice rule, instead of the one-core probe's reduce_GBps: the reduction's operands
// then stream from memory, on cores the copies share.
//
// Entry skew. ringbench times a call from the last rank's entry (max over ranks of the start) to
// the last rank's exit, and its ranks leave the barrier before each call entry_skew_us apart
// (measured per run). The ranks that enter first start the dataflow early: a broadcast's root and
// first links push segments into sockets before the last rank arrives, and at a chain's end the
// last rank may find its data waiting. Which rank is last changes from call to call; a row's time
// is the median over calls. So with a skew the call is priced once per rank entering last (that
// rank ready at entry_skew_us, the others at 0, the time counted from its entry) and the price is
// the median of those N prices: the median of a row whose last rank is drawn evenly. A symmetric
// collective waits for its last rank at its first exchange, so the skew moves it little.

#include <cstdint>
#include <vector>

#include "cluster.h"
#include "link_fit.h"
#include "spec/algorithm_spec.h"

namespace ringbench::model {

// The link class between two ranks' hosts: scale_up for the same host, nics across hosts.
LinkParameters link_class(const Cluster& machine, bool same_host);

struct PlanCall {
  const spec::AlgorithmSpec* algorithm = nullptr;
  size_t count = 0;          // elements per rank's buffer, as ringbench's /results count
  size_t element_bytes = 1;
  int root = 0;
  std::vector<int> host_of_rank;  // its size is the world size; host indices from 0
  uint64_t piece_bytes = 0;       // the transport's pipeline piece (ringbench --pipeline)
  double foreign_cpu_share = 0;   // of the hosts' CPU, taken by other processes meanwhile, in [0, 1)
  // Bytes per rank of the buffer the call's data lies in, where that is more than the call's own
  // (a DDP bucket of a gradient buffer: grad_bytes); 0 = the call's own buffer. See above.
  uint64_t resident_bytes = 0;
  // Pipelined plans' segment, as the call ran with it (ringbench --segment; /results
  // segment_bytes); 0: the specification's default (spec/segments.h).
  uint64_t segment_bytes = 0;
  // How far apart the ranks enter the call (a one-host run's barrier skew, ringbench's /runs); 0:
  // together.
  // See "Entry skew" above.
  double entry_skew_us = 0;
};

struct PlanCost {
  double time_us = 0;     // the last rank's finish, plus launch_overhead_us
  double wire_us = 0;     // the steps whose slowest duration was a rank's wire: those durations, summed
  double cpu_us = 0;      // the steps whose slowest duration was a host's CPU: those, summed
  double latency_us = 0;  // the rest of time_us: waiting for data in flight
  int steps = 0;          // non-empty steps
};

// The rate the kernel copies a socket's bytes at, per core (see above); 0 without host_cpu.
double kernel_copy_GBps(const Cluster& machine);

// InputError when the call has no algorithm or no ranks, or a negative host index.
PlanCost plan_cost(const Cluster& machine, const PlanCall& call);

// Block placement, mpirun's default by slot: rank r on host r x hosts / world_size.
std::vector<int> block_placement(int world_size, int hosts);

}  // namespace ringbench::model
