#pragma once
// Regular-expression checks on the text a test captured (stdout, stderr, a log or a file name).
// Compiled once here: <regex> costs a translation unit about 9 s of g++ -O2 and 23 s under ASan
// (2-core AMD EPYC VM, 2026-12-07), so test files include this instead of <regex>.
// Patterns are ECMAScript, as std::regex's default.

#include <optional>
#include <string>
#include <vector>

namespace ringbench::testing {

// The first match of `pattern` anywhere in `text`: [0] the whole match, then each capture group
// ("" for a group that took no part); nullopt when there is none.
std::optional<std::vector<std::string>> search(const std::string& text, const std::string& pattern);

// The same where `pattern` must match the whole of `text`.
std::optional<std::vector<std::string>> match_whole(const std::string& text, const std::string& pattern);

inline bool contains_match(const std::string& text, const std::string& pattern) {
  return search(text, pattern).has_value();
}
inline bool matches_whole(const std::string& text, const std::string& pattern) {
  return match_whole(text, pattern).has_value();
}

// `literal` with every character that means something in a pattern escaped.
std::string escaped_for_pattern(const std::string& literal);

}  // namespace ringbench::testing
