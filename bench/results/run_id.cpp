#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include "results/results_file.h"
#include "transport/fd.h"

namespace ringbench::results {

std::string new_run_id() {
  std::array<uint8_t, 16> bytes{};
  Fd urandom(::open("/dev/urandom", O_RDONLY | O_CLOEXEC));
  if (!urandom) throw std::system_error(errno, std::generic_category(), "cannot open /dev/urandom");
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t got = read(urandom.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw std::system_error(got < 0 ? errno : EIO, std::generic_category(), "cannot read /dev/urandom");
    done += static_cast<size_t>(got);
  }
  // RFC 4122 section 4.4: version 4 in the high nibble of byte 6, variant 10xx in byte 8.
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);

  std::string text;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += fmt::format("{:02x}", bytes[i]);
  }
  return text;
}

}  // namespace ringbench::results
