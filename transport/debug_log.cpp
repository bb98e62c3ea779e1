#include "debug_log.h"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "error.h"

namespace ringbench::debug {

namespace detail {
std::atomic<uint32_t> enabled_subsystems[4] = {};
}  // namespace detail

namespace {

constexpr std::array<std::pair<Level, const char*>, 3> kLevels{{
    {Level::Warn, "WARN"}, {Level::Info, "INFO"}, {Level::Trace, "TRACE"}}};
constexpr std::array<std::pair<Subsys, const char*>, 5> kSubsystems{{
    {Subsys::Init, "INIT"},
    {Subsys::Net, "NET"},
    {Subsys::Coll, "COLL"},
    {Subsys::Live, "LIVE"},
    {Subsys::Res, "RES"},
}};

// Where lines go and what every line starts with; guarded by the mutex once threads log.
struct Sink {
  std::mutex mutex;
  int fd = STDERR_FILENO;
  std::string host;
  long pid = 0;
};

Sink& sink() {
  static Sink instance;
  return instance;
}

[[noreturn]] void bad_value(const char* variable, std::string_view value, std::string_view expected) {
  throw TransportError({TransportErrorKind::Config, -1, -1,
                        fmt::format("{}={}: expected {}", variable, value, expected)});
}

Level parse_level(std::string_view text) {
  for (const auto& [level, name] : kLevels)
    if (text.size() == std::string_view(name).size() && ::strncasecmp(text.data(), name, text.size()) == 0)
      return level;
  bad_value(kLevelVariable, text, "WARN, INFO or TRACE (unset: no diagnostics)");
}

// One name of RINGBENCH_DEBUG_SUBSYS's list as its bits; ALL is every subsystem.
uint32_t subsystem_bits(std::string_view name, std::string_view whole) {
  auto is = [&](const char* candidate) {
    return name.size() == std::string_view(candidate).size() &&
           ::strncasecmp(name.data(), candidate, name.size()) == 0;
  };
  if (is("ALL")) return kAllSubsystems;
  for (const auto& [subsys, text] : kSubsystems)
    if (is(text)) return static_cast<uint32_t>(subsys);
  bad_value(kSubsysVariable, whole,
            fmt::format("a comma-separated list of INIT, NET, COLL, LIVE, RES or ALL, '^' first to exclude them "
                        "('{}' is none of these)", name));
}

uint32_t parse_subsystems(std::string_view whole) {
  std::string_view list = whole;
  const bool exclude = list.starts_with('^');
  if (exclude) list.remove_prefix(1);
  uint32_t named = 0;
  for (size_t start = 0;;) {
    const size_t comma = std::min(list.find(',', start), list.size());
    named |= subsystem_bits(list.substr(start, comma - start), whole);
    if (comma == list.size()) break;
    start = comma + 1;
  }
  return exclude ? kAllSubsystems & ~named : named;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "?";
  return name.data();
}

}  // namespace

const char* to_string(Level level) {
  for (const auto& [candidate, name] : kLevels)
    if (candidate == level) return name;
  return "OFF";
}

const char* to_string(Subsys subsys) {
  for (const auto& [candidate, name] : kSubsystems)
    if (candidate == subsys) return name;
  return "?";
}

Config parse_config(const char* level, const char* subsys, const char* file) {
  Config config;
  if (level != nullptr && *level != '\0') config.level = parse_level(level);
  if (subsys != nullptr && *subsys != '\0') config.subsystems = parse_subsystems(subsys);
  if (file != nullptr) config.file_pattern = file;
  return config;
}

std::string expand_file_pattern(std::string_view pattern, std::string_view host, long pid) {
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (pattern[i] != '%' || (next != 'h' && next != 'p' && next != '%')) {
      path += pattern[i];
      continue;
    }
    if (next == 'h') path += host;
    else if (next == 'p') path += std::to_string(pid);
    else path += '%';
    ++i;
  }
  return path;
}

std::string describe(const Config& config) {
  std::string names;
  for (const auto& [subsys, name] : kSubsystems)
    if ((config.subsystems & static_cast<uint32_t>(subsys)) != 0)
      names += (names.empty() ? "" : ",") + std::string(name);
  return fmt::format("{}: {} to {}", to_string(config.level), names.empty() ? "no subsystem" : names,
                     config.file_pattern.empty() ? "stderr" : config.file_pattern);
}

void configure(const Config& config) {
  Sink& out = sink();
  std::lock_guard lock(out.mutex);
  out.host = host_name();
  out.pid = static_cast<long>(::getpid());
  int fd = STDERR_FILENO;
  // No file is created while diagnostics are off: setting the name alone leaves no trace.
  if (config.level != Level::Off && !config.file_pattern.empty()) {
    const std::string path = expand_file_pattern(config.file_pattern, out.host, out.pid);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
      throw TransportError({TransportErrorKind::Config, -1, -1,
                            fmt::format("{}={}: cannot open {}: {}", kFileVariable, config.file_pattern, path,
                                        system_error_text("open", errno))});
  }
  if (out.fd != STDERR_FILENO) ::close(out.fd);
  out.fd = fd;
  for (Level level : {Level::Off, Level::Warn, Level::Info, Level::Trace})
    detail::enabled_subsystems[static_cast<int>(level)].store(
        level != Level::Off && level <= config.level ? config.subsystems : 0, std::memory_order_relaxed);
}

Config config_from_environment() {
  return parse_config(std::getenv(kLevelVariable), std::getenv(kSubsysVariable), std::getenv(kFileVariable));
}

namespace detail {

void write_line(Level level, Subsys subsys, int rank, std::string_view message) {
  Sink& out = sink();
  std::lock_guard lock(out.mutex);
  fmt::memory_buffer line;
  fmt::format_to(std::back_inserter(line), "{}:{}:{} ringbench {} {} {}\n", out.host, out.pid,
                 rank >= 0 ? std::to_string(rank) : "?", to_string(level), to_string(subsys), message);
  // One write() per line: appends from several processes sharing the file stay whole lines.
  // A diagnostic that cannot be written is dropped; it must never stop the run.
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(out.fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

}  // namespace detail

}  // namespace ringbench::debug
