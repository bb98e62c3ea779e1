// Which ranks share loopback (one host) and which share cores (one kernel): namespace hosts and
// containers on one machine are different hosts on the same kernel.
#include "transport/host_identity.h"

#include <gtest/gtest.h>

namespace ringbench {
namespace {

TEST(HostIdentity, OtherNetworkNamespacesOfOneKernelAreOtherHostsSharingItsCores) {
  const HostIdentity h1{"boot-a", 4026531840, "h1"}, h2{"boot-a", 4026532999, "h2"};
  EXPECT_FALSE(h1.same_host(h2));
  EXPECT_TRUE(h1.same_kernel(h2));
  const HostIdentity other_machine{"boot-b", 4026531840, "h1"};
  EXPECT_FALSE(h1.same_host(other_machine)) << "a reused hostname and namespace inode are not the same host";
  EXPECT_FALSE(h1.same_kernel(other_machine));
}

TEST(HostIdentity, AnUnreadableBootIdSharesCoresOnlyWithItsOwnHost) {
  const HostIdentity a{"", 4026531840, "a"}, b{"", 4026532999, "b"}, a_again{"", 4026531840, "a"};
  EXPECT_FALSE(a.same_kernel(b));
  EXPECT_TRUE(a.same_kernel(a_again));
}

TEST(HostIdentity, ThisProcessIsItsOwnHostAndKernel) {
  const HostIdentity me = HostIdentity::local();
  EXPECT_FALSE(me.boot_id.empty()) << "/proc/sys/kernel/random/boot_id";
  EXPECT_TRUE(me.same_kernel(HostIdentity::local()));
}

}  // namespace
}  // namespace ringbench
