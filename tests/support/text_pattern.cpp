#include "text_pattern.h"

#include <regex>

namespace ringbench::testing {
namespace {

std::vector<std::string> groups_of(const std::smatch& m) {
  std::vector<std::string> groups;
  groups.reserve(m.size());
  for (const auto& group : m) groups.push_back(group.matched ? group.str() : std::string());
  return groups;
}

}  // namespace

std::optional<std::vector<std::string>> search(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return std::nullopt;
  return groups_of(m);
}

std::optional<std::vector<std::string>> match_whole(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(pattern))) return std::nullopt;
  return groups_of(m);
}

std::string escaped_for_pattern(const std::string& literal) {
  static const std::string kSpecial = R"(.^$|()[]{}*+?\)";
  std::string out;
  for (const char c : literal) {
    if (kSpecial.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace ringbench::testing
