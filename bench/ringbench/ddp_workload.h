#pragma once
// --workload ddp: a data-parallel training step's backward pass, with its gradient all-reduces
// overlapped as PyTorch DDP does, measured at each bucket size.
//
// One step: the layers' backward passes run in reverse order, each a timed wait during which the
// CPU is free (as while a GPU computes). Each layer's float32 gradients land in a gradient buffer
// laid out in backward order, cut into buckets of --bucket-bytes; a bucket's all-reduce starts
// (Communicator::start) as soon as the layer holding its last element is done, and the step waits
// for every bucket at its end. The same buckets are also all-reduced back to back with no
// compute: the communication alone. Then
//   compute_us       = layers x compute_us_per_layer
//   exposed_comm_us  = max(0, step_us - compute_us): the communication the backward pass did not hide
//   overlap_fraction = 1 - exposed_comm_us / comm_alone_us, within [0, 1]: the share hidden
// A step's time is the slowest rank's, from the barrier before it to its last bucket's end.
// Bucket sizes take turns, one step and one communication-alone pass each per round, in a fresh
// random order each round that every rank draws alike (statistics/turn_order.h). Every call is
// byte-checked against its algorithm's formula; each size's last step is verified element by
// element.
//
// With the link test on, each turn also times the ring send/receive (link_test.h) at the size's
// chunk, a bucket over N: the exchange `topomodel calibrate` fits the copy rate on, taken in the
// same minutes as the steps it is to predict. Calibrated from a separate run instead, the model
// priced a machine that was not the one the steps ran on: on the 2-core AMD EPYC VM
// (2026-12-06) a calibration run right after a ddp run timed the same-host ping-pong 11-23%
// shorter (64 B-4 MiB) than the ddp run had, and every bucket size's step was predicted 4-51% fast.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_options.h"
#include "exchange_ladder.h"
#include "results/results_file.h"
#include "transport/algorithm.h"
#include "transport/communicator.h"

namespace ringbench {

// One bucket size's figures, alike on every rank.
struct DdpRow {
  std::string algorithm;
  uint64_t bucket_bytes = 0;
  size_t buckets = 0;
  double compute_us_per_layer = 0;
  size_t steps = 0;
  double step_us = 0, step_ci_pct = 0, step_p05_us = 0, step_p95_us = 0;
  double comm_alone_us = 0, compute_us = 0, exposed_comm_us = 0, overlap_fraction = 0;
  uint64_t bytes_mismatches = 0;  // calls, over every rank, whose payload differed from the formula
  uint64_t wrong = 0;             // wrong elements over every rank, in each size's last step
  bool ok() const { return bytes_mismatches == 0 && wrong == 0; }
};

// The bucket sizes of a run: MIN doubling up to MAX (bytes), whole float32 elements.
std::vector<uint64_t> ddp_bucket_sizes(const DdpOptions& ddp);

// The one formula of the exposed communication and the overlap fraction (see above).
double exposed_comm_us(double step_us, double compute_us);
double overlap_fraction(double exposed_comm_us, double comm_alone_us);

// What a ddp run measured: its rows, and its exchanges (one per algorithm and bucket size: the
// chunk, this rank's median over the turns; rank 0's go to /exchanges). No exchanges without the
// link test or with one rank.
struct DdpResult {
  std::vector<DdpRow> rows;
  std::vector<ExchangePoint> exchanges;
};

// --algo's algorithms for ddp (checked by the command line): `default` is ring.
std::vector<const Algorithm*> ddp_algorithms(const BenchOptions& options);

// Runs the workload with each of `algorithms` (all-reduce algorithms of ours); every rank calls it
// alike. `seed` is the job's shared seed (inputs, turn order).
DdpResult run_ddp_workload(Communicator& comm, const BenchOptions& options,
                           const std::vector<const Algorithm*>& algorithms, uint64_t seed);

// The osu-style table of the rows, with its '#' header lines (rank 0).
void print_ddp_table(std::FILE* out, const BenchOptions& options, int world_size, const std::vector<DdpRow>& rows);

// /workloads (schema 5): one row per (run, workload, algorithm, bucket size).
const results::Table& workloads_table();
std::vector<results::Row> workload_rows(const std::string& run_id, const BenchOptions& options, int world_size,
                                        const std::string& hosts, const std::vector<DdpRow>& rows);

}  // namespace ringbench
