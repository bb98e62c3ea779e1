// The rule that names the wire under the `mpi` rows (bench/ringbench/mpi_transport.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mpi_transport.h"

namespace ringbench {
namespace {

const JobShape one_host{.several_ranks_on_a_host = true, .several_hosts = false, .rdma_hardware = false};
const JobShape two_hosts_one_rank_each{.several_ranks_on_a_host = false, .several_hosts = true, .rdma_hardware = false};
const JobShape two_hosts_two_ranks_each{.several_ranks_on_a_host = true, .several_hosts = true, .rdma_hardware = false};

TEST(MpiTransport, DebianDefaultsOnOneHostUseSharedMemory) {
  // Debian's /etc/openmpi/openmpi-mca-params.conf: pml = ^ucx, btl = ^uct,openib,ofi.
  const McaParameters debian = {{"pml", "^ucx"}, {"btl", "^uct,openib,ofi"}};
  const MpiTransport t = infer_mpi_transport(debian, one_host);
  EXPECT_EQ(t.name, "ob1/vader");
  EXPECT_FALSE(t.same_wire_as_ours);
  EXPECT_EQ(infer_mpi_transport(debian, two_hosts_one_rank_each).name, "ob1/tcp");
  EXPECT_EQ(infer_mpi_transport(debian, two_hosts_two_ranks_each).name, "ob1/vader+tcp");
}

TEST(MpiTransport, ForcedTcpIsTheSameWireAsOurs) {
  const McaParameters forced = {{"pml", "ob1"}, {"btl", "tcp,self"}};
  for (const JobShape& shape : {one_host, two_hosts_one_rank_each, two_hosts_two_ranks_each}) {
    const MpiTransport t = infer_mpi_transport(forced, shape);
    EXPECT_EQ(t.name, "ob1/tcp");
    EXPECT_TRUE(t.same_wire_as_ours);
    EXPECT_EQ(t.because, "pml=ob1 btl=tcp,self");
  }
  // Excluding shared memory instead of listing TCP gets TCP too.
  EXPECT_EQ(infer_mpi_transport({{"btl", "^vader,sm"}}, one_host).name, "ob1/tcp");
}

TEST(MpiTransport, RdmaHardwareAndExplicitPmls) {
  JobShape rdma = two_hosts_one_rank_each;
  rdma.rdma_hardware = true;
  EXPECT_EQ(infer_mpi_transport({}, rdma).name, "ucx");
  EXPECT_EQ(infer_mpi_transport({{"pml", "^ucx"}}, rdma).name, "cm");
  EXPECT_EQ(infer_mpi_transport({{"pml", "^ucx,cm"}}, rdma).name, "ob1/openib");
  EXPECT_EQ(infer_mpi_transport({{"pml", "^ucx,cm"}, {"btl", "^openib"}}, rdma).name, "ob1/tcp");
  const MpiTransport ucx = infer_mpi_transport({{"pml", "ucx"}}, one_host);
  EXPECT_EQ(ucx.name, "ucx");
  EXPECT_FALSE(ucx.same_wire_as_ours);
  EXPECT_EQ(infer_mpi_transport({}, one_host).because, "pml=(default) btl=(default)");
}

TEST(MpiTransport, EnvironmentOverridesTheFiles) {
  const auto home = std::filesystem::temp_directory_path() / ("mpi_transport_test." + std::to_string(getpid()));
  std::filesystem::create_directories(home / ".openmpi");
  std::ofstream(home / ".openmpi/mca-params.conf") << "# a comment\n btl = self,vader \n\npml=ob1\n";
  EXPECT_EQ(read_mca_parameter_file(home / ".openmpi/mca-params.conf"),
            (McaParameters{{"btl", "self,vader"}, {"pml", "ob1"}}));
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home ? old_home : "";
  setenv("HOME", home.c_str(), 1);
  unsetenv("OMPI_MCA_btl");
  EXPECT_EQ(mca_parameters_in_force().at("btl"), "self,vader");
  setenv("OMPI_MCA_btl", "tcp,self", 1);
  EXPECT_EQ(mca_parameters_in_force().at("btl"), "tcp,self");
  EXPECT_EQ(mca_parameters_in_force().at("pml"), "ob1");
  unsetenv("OMPI_MCA_btl");
  if (old_home) setenv("HOME", saved_home.c_str(), 1);
  std::filesystem::remove_all(home);
  EXPECT_TRUE(read_mca_parameter_file("/nonexistent/mca-params.conf").empty());
}

}  // namespace
}  // namespace ringbench
