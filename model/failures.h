#pragma once
// Failure domains and goodput for a placement on a cluster.
//
// Blast radius: which GPUs stall when one component fails.
//   synchronous job  every failure stalls all N GPUs (a collective waits for the dead rank until
//                    the watchdog kills the job; restart from the last checkpoint)
//   elastic job      drops the DP replicas that contain an affected GPU and continues: a replica
//                    is the N/dp GPUs sharing one DP coordinate (tp x pp x cp x ep of them)
//   components       GPU (itself); NIC (the GPUs on its rail of that node); node, including its
//                    NVSwitches (its GPUs); leaf switch (every node's GPU on that leaf: with
//                    rail-optimised leaves, rail r of nodes_per_leaf nodes); spine link (none:
//                    traffic reroutes over the leaf's other uplinks, which lose 1/uplinks of
//                    their capacity)
//
// Goodput of a synchronous job (Young 1974; Daly 2006, first order): with job MTBF M (1 / sum of
// per-component rates x counts), checkpoint write time delta, restart time R and checkpoint
// interval tau,
//     goodput(tau) = 1 - delta / tau - (R + (tau + delta) / 2) / M
// (checkpoint overhead, and per failure the restart plus on average half an interval of lost
// work), maximised near the Young/Daly interval tau* = sqrt(2 delta M).
//
// Failure rates come from Llama 3's 54-day snapshot on 16,384 H100 (kLlama3 below), by
// component, per component-day, so they scale with the job.

#include <string>
#include <vector>

#include "cluster.h"
#include "placement.h"

namespace ringbench::model {

enum class Component { GPU, NIC, Node, Leaf, SpineLink, Software };
const char* to_string(Component c);

struct FailureRates {
  // Failures per component per day (Software: per GPU per day, a job-wide interruption).
  double gpu = 0, nic = 0, node = 0, leaf = 0, spine_link = 0, software = 0;
  std::string source;
};

// Llama 3 (arXiv:2407.21783, Table 5): 419 unexpected interruptions in 54 days on 16,384 H100
// (2,048 nodes, 8 NICs each) mapped to components; see failures.cpp for the mapping.
FailureRates llama3_rates();

struct BlastRadius {
  Component component;
  int count = 0;                // such components the job uses
  double failures_per_day = 0;  // count x rate
  int stalled_sync = 0;         // GPUs stalled, synchronous job
  int stalled_elastic = 0;      // GPUs lost, elastic job (whole DP replicas)
  int replicas_lost = 0;
  std::string note;
};

// One row per component. The job fills the cluster from GPU 0 (cluster.gpus() == p.gpus()).
std::vector<BlastRadius> blast_radius(const Cluster& cluster, const Placement& p, const FailureRates& rates);

struct CheckpointModel {
  double checkpoint_s = 60;  // delta: time the job pauses to write a checkpoint
  double restart_s = 600;    // R: detect, reschedule, reload, warm up
};

double job_mtbf_hours(const std::vector<BlastRadius>& rows);
// Young/Daly first-order optimum sqrt(2 delta M), seconds.
double young_daly_interval_s(double checkpoint_s, double mtbf_s);
// The fraction of wall time doing useful work (0 if the overheads exceed the time).
double goodput(double interval_s, const CheckpointModel& c, double mtbf_s);

}  // namespace ringbench::model
