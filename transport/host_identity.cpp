#include "host_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace ringbench {

HostIdentity HostIdentity::local() {
  HostIdentity id;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, id.boot_id);
  struct stat ns {};
  if (::stat("/proc/self/ns/net", &ns) == 0) id.netns_inode = ns.st_ino;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) id.hostname = name;
  return id;
}

}  // namespace ringbench
