#include "file_bootstrap.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "error.h"

namespace ringbench {

namespace fs = std::filesystem;

FileBootstrap::FileBootstrap(std::string directory, int rank, int size, std::chrono::milliseconds timeout)
    : directory_(std::move(directory)), rank_(rank), size_(size), timeout_(timeout) {}

std::optional<FileBootstrap> FileBootstrap::from_environment() {
  const char* dir = std::getenv("RINGBENCH_BOOTSTRAP_DIR");
  if (!dir || !*dir) return std::nullopt;
  const char* rank = std::getenv("RINGBENCH_RANK");
  const char* size = std::getenv("RINGBENCH_SIZE");
  int r = rank ? std::atoi(rank) : -1, n = size ? std::atoi(size) : 0;
  if (n < 1 || r < 0 || r >= n)
    throw TransportError({TransportErrorKind::Config, -1, -1,
                          fmt::format("RINGBENCH_BOOTSTRAP_DIR is set but RINGBENCH_RANK={} RINGBENCH_SIZE={} are "
                                      "not a rank and a world size",
                                      rank ? rank : "(unset)", size ? size : "(unset)")});
  return FileBootstrap(dir, r, n, std::chrono::seconds(60));
}

std::vector<std::string> FileBootstrap::allgather(const std::string& mine) {
  const fs::path dir(directory_);
  const fs::path card = dir / fmt::format("card.{}", rank_), temporary = dir / fmt::format(".card.{}.tmp", rank_);
  {
    std::ofstream out(temporary, std::ios::binary);
    out << mine;
    if (!out.flush())
      throw TransportError({TransportErrorKind::Config, rank_, -1,
                            fmt::format("cannot write the bootstrap card {}", temporary.string())});
  }
  fs::rename(temporary, card);
  const auto give_up = std::chrono::steady_clock::now() + timeout_;
  for (;;) {
    std::string missing;
    for (int r = 0; r < size_; ++r)
      if (!fs::exists(dir / fmt::format("card.{}", r))) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    if (missing.empty()) break;
    if (std::chrono::steady_clock::now() >= give_up)
      throw TransportError({TransportErrorKind::Handshake, rank_, -1,
                            fmt::format("rank(s) {} did not publish a card in {} within {} s", missing, directory_,
                                        timeout_.count() / 1000)});
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::vector<std::string> all;
  for (int r = 0; r < size_; ++r) {
    std::ifstream in(dir / fmt::format("card.{}", r), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    all.push_back(text.str());
  }
  return all;
}

}  // namespace ringbench
