#pragma once
// Which wire carried the `mpi` rows: an inference from Open MPI's parameters, since MPI_T does not
// say which BTL carried each peer.
//
// The rule (Open MPI 4.1's selection, as documented in its FAQ "tuning the run-time
// characteristics of MPI communications" and seen with --mca pml_base_verbose / btl_base_verbose):
//  1. Parameters in force, later sources overriding earlier ones: the system file
//     (<prefix>/etc/openmpi-mca-params.conf; Debian: /etc/openmpi/), the user's
//     ~/.openmpi/mca-params.conf, then the environment (OMPI_MCA_*; mpirun's --mca arrives there).
//  2. PML: the first component of an include list (`pml = ucx`); otherwise ucx or cm would win
//     only on RDMA or PSM hardware (an entry in /sys/class/infiniband) and when not excluded
//     (Debian ships `pml = ^ucx`); otherwise ob1.
//  3. With ob1, per pair of peers: on one host, shared memory (vader, or sm) when the btl list
//     allows it, else TCP; across hosts, openib when allowed and RDMA hardware is present, else
//     TCP. The name joins what the job's pairs use: `ob1/vader`, `ob1/tcp`, `ob1/vader+tcp`.
// A rule, not an observation: a site's plugin or a newer Open MPI can choose otherwise, which is
// why the header prints the parameters it was inferred from.

#include <map>
#include <optional>
#include <span>
#include <string>

namespace ringbench {

using McaParameters = std::map<std::string, std::string>;  // name (without OMPI_MCA_) -> value

struct MpiTransport {
  std::string name;        // "ob1/vader", "ob1/tcp", "ob1/vader+tcp", "ucx", "cm", ...
  bool same_wire_as_ours;  // true when every pair of the job uses TCP, as ringbench's rows do
  std::string because;     // the parameters the inference rested on, for the header
};

struct JobShape {
  bool several_ranks_on_a_host = false;  // some pair shares a host
  bool several_hosts = false;            // some pair crosses hosts
  bool rdma_hardware = false;            // /sys/class/infiniband lists a device
};

MpiTransport infer_mpi_transport(const McaParameters& parameters, const JobShape& shape);

// `name = value` lines of an Open MPI parameter file; `#` comments and blank lines skipped.
// Missing file: no parameters.
McaParameters read_mca_parameter_file(const std::string& path);

// The parameters in force for this process, from the three sources above in order.
McaParameters mca_parameters_in_force();

// Whether this machine has RDMA hardware (an entry under /sys/class/infiniband).
bool rdma_hardware_present();

// The job's shape from each rank's host index (host_placement()) and this machine's hardware.
JobShape job_shape(std::span<const int> host_of_rank);

// The rule applied to this process's parameters and this job: what the `mpi` rows ran over.
MpiTransport mpi_transport_of_job(std::span<const int> host_of_rank);

}  // namespace ringbench
