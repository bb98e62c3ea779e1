#pragma once
// Diagnostics in NCCL's style (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE), read once from
// the environment:
//   RINGBENCH_DEBUG        WARN, INFO or TRACE (any case; each includes the ones before it).
//                          Unset or empty: no line at all, and every check below is one relaxed
//                          atomic load and a test, with no formatting and no allocation.
//   RINGBENCH_DEBUG_SUBSYS a comma-separated list of INIT, NET, COLL, LIVE, RES or ALL; a leading
//                          '^' turns every subsystem on and the list off (NCCL's syntax). Default:
//                          ALL (NCCL's default is INIT: ringbench has five subsystems, not twenty,
//                          so all of them is still readable).
//   RINGBENCH_DEBUG_FILE   a file name instead of stderr; %h becomes the host name, %p the process
//                          id, %% a '%' (as NCCL expands them). Opened for appending, so ranks
//                          that share one name interleave whole lines instead of truncating each
//                          other's (NCCL truncates).
// Every line: "host:pid:rank ringbench LEVEL SUBSYS message", NCCL's "host:pid:tid" with the rank
// in place of the thread, since a rank is what a user looks for ("?" before the rank is known).
//
// Thread safety: configure() runs once, before any thread logs (main, or a test). Lines may then
// be written from any thread: each goes out in one write() under a mutex, so lines never mix.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace ringbench::debug {

enum class Level : uint8_t { Off, Warn, Info, Trace };
enum class Subsys : uint32_t { Init = 1, Net = 2, Coll = 4, Live = 8, Res = 16 };
inline constexpr uint32_t kAllSubsystems = 31;

inline constexpr const char* kLevelVariable = "RINGBENCH_DEBUG";
inline constexpr const char* kSubsysVariable = "RINGBENCH_DEBUG_SUBSYS";
inline constexpr const char* kFileVariable = "RINGBENCH_DEBUG_FILE";

const char* to_string(Level level);
const char* to_string(Subsys subsys);

struct Config {
  Level level = Level::Off;
  uint32_t subsystems = kAllSubsystems;  // Subsys bits
  std::string file_pattern;              // empty: stderr
};

// The three variables' values (nullptr: unset). Throws TransportError (Config) with one line
// naming the variable, its value and what it accepts.
Config parse_config(const char* level, const char* subsys, const char* file);
// "%h.%p.log" -> "node1.4242.log"; a '%' before anything else stays as it is.
std::string expand_file_pattern(std::string_view pattern, std::string_view host, long pid);
// "INFO: INIT,NET to stderr": the configuration in words, for the first INIT line.
std::string describe(const Config& config);

// parse_config of this process's environment.
Config config_from_environment();
// Applies `config`: opens its file (throws TransportError (Config) naming RINGBENCH_DEBUG_FILE and
// the expanded path when it cannot) and enables the levels and subsystems it asks for. Call it
// before any socket opens, so a bad value costs no connection.
void configure(const Config& config);

namespace detail {
// By level: the subsystems on at that level (0: the level is off).
extern std::atomic<uint32_t> enabled_subsystems[4];
void write_line(Level level, Subsys subsys, int rank, std::string_view message);
}  // namespace detail

inline bool enabled(Level level, Subsys subsys) {
#ifdef RINGBENCH_NO_DEBUG_LOG
  // Compiled out (cmake -DRINGBENCH_DEBUG_LOG=OFF): the baseline scripts/debug-off-cost.sh measures
  // "free when off" against.
  (void)level, (void)subsys;
  return false;
#else
  return (detail::enabled_subsystems[static_cast<int>(level)].load(std::memory_order_relaxed) &
          static_cast<uint32_t>(subsys)) != 0;
#endif
}

// Formats and writes one line when `level` and `subsys` are on; otherwise only the check runs.
// Arguments are evaluated either way: pass cheap ones, or test enabled() first.
template <typename... Args>
void log(Level level, Subsys subsys, int rank, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(level, subsys)) return;
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text), format, std::forward<Args>(args)...);
  detail::write_line(level, subsys, rank, std::string_view(text.data(), text.size()));
}

template <typename... Args>
void warn(Subsys subsys, int rank, fmt::format_string<Args...> format, Args&&... args) {
  log(Level::Warn, subsys, rank, format, std::forward<Args>(args)...);
}
template <typename... Args>
void info(Subsys subsys, int rank, fmt::format_string<Args...> format, Args&&... args) {
  log(Level::Info, subsys, rank, format, std::forward<Args>(args)...);
}
template <typename... Args>
void trace(Subsys subsys, int rank, fmt::format_string<Args...> format, Args&&... args) {
  log(Level::Trace, subsys, rank, format, std::forward<Args>(args)...);
}

}  // namespace ringbench::debug
