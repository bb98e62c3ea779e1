#pragma once
// Strict reading of one JSON object for the model's input files (clusters, workloads): typed,
// range-checked getters that name the field on any error, and reject_unknown() so a misspelt key
// is an error naming it rather than silently ignored. parse_document() turns text into JSON with
// one-line errors, naming the field whose number overflows a double ("1e400").
//
// Use the ranged getters for every number; the limits live in input_limits.h:
//   f.count("nodes", c.nodes, limits::kMaxGpus);               integer in [1, max]
//   f.integer("nodes_per_pod", n, 0, limits::kMaxGpus);         integer in [min, max]
//   f.positive("bw_GBps", bw, limits::kMaxGBps);                finite double in (0, max]
//   f.number("latency_us", us, 0, limits::kMaxLatencyUs);      finite double in [min, max]
//   f.counts("stage_layers", layers, limits::kMaxLayers);      array of integers in [1, max]
// Errors read "nodes must be an integer from 1 to 1048576, got 4294967297".

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "error.h"

namespace ringbench::model::json_fields {

using nlohmann::json;

// `text` as JSON ("\n" escaped), to quote user text in a one-line error.
inline std::string quoted(const std::string& text) {
  return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

// A key as it appears in a field path: bare, or quoted when it holds characters that need escaping.
inline std::string shown_key(const std::string& key) {
  const std::string q = quoted(key);
  return q.size() == key.size() + 2 ? key : q;
}

// Reads one object's fields, remembering which keys it consumed so the rest can be rejected.
class Fields {
 public:
  Fields(const json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {
    if (!object_.is_object()) throw InputError(fmt::format("{} must be an object", where()));
  }

  const json* find(const std::string& key) {
    seen_.insert(key);
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  // Finite double in [min, max].
  void number(const std::string& key, double& out, double min, double max) {
    if (const json* v = find(key)) out = checked_number(key, *v, min, max, fmt::format("from {:g} to {:g}", min, max));
  }
  // Finite double in (0, max].
  void positive(const std::string& key, double& out, double max) {
    if (const json* v = find(key)) out = checked_number(key, *v, 0, max, fmt::format("> 0 and <= {:g}", max));
  }
  // Integer in [min, max] (never truncated: 4294967297 is an error, not 1).
  void integer(const std::string& key, int& out, int min, int max) {
    if (const json* v = find(key)) out = checked_integer(field(key), *v, min, max);
  }
  // Integer in [1, max]: a count, where 0 would mean nothing.
  void count(const std::string& key, int& out, int max) { integer(key, out, 1, max); }
  // Array of integers, each in [1, max]; at most max_items of them.
  void counts(const std::string& key, std::vector<int>& out, int max, size_t max_items = 1 << 16) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_array()) throw bad_type(key, "an array of integers", *v);
    if (v->size() > max_items) {
      throw InputError(fmt::format("{} must have at most {} entries, got {}", field(key), max_items, v->size()));
    }
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) out.push_back(checked_integer(fmt::format("{}[{}]", field(key), i), (*v)[i], 1, max));
  }
  void boolean(const std::string& key, bool& out) {
    if (const json* v = find(key)) {
      if (!v->is_boolean()) throw bad_type(key, "true or false", *v);
      out = v->get<bool>();
    }
  }
  // A string without control characters (so every message that quotes it stays one line).
  void string(const std::string& key, std::string& out) {
    if (const json* v = find(key)) {
      if (!v->is_string()) throw bad_type(key, "a string", *v);
      const auto& s = v->get_ref<const std::string&>();
      for (unsigned char ch : s) {
        if (ch < 0x20 || ch == 0x7f) throw InputError(fmt::format("{} must not contain control characters, got {}", field(key), quoted(s)));
      }
      out = s;
    }
  }
  void require(const std::string& key) {
    if (!object_.contains(key)) throw InputError(fmt::format("{} is required", field(key)));
  }
  void reject_unknown() const {
    for (const auto& [key, value] : object_.items()) {
      if (!seen_.count(key)) throw InputError(fmt::format("{} is not a known field", field(shown_key(key))));
    }
  }
  std::string field(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

 private:
  std::string where() const { return prefix_.empty() ? "the top level" : prefix_; }
  InputError bad_type(const std::string& key, const char* expected, const json& got) const {
    return InputError(fmt::format("{} must be {}, got {}", field(key), expected, got.type_name()));
  }
  double checked_number(const std::string& key, const json& v, double min, double max, const std::string& rule) const {
    if (!v.is_number()) throw bad_type(key, "a number", v);
    const double x = v.get<double>();
    // min == 0 with "> 0" in the rule: the bound itself is excluded.
    const bool above = rule.starts_with(">") ? x > min : x >= min;
    if (!(above && x <= max)) throw InputError(fmt::format("{} must be {}, got {}", field(key), rule, v.dump()));
    return x;
  }
  static int checked_integer(const std::string& name, const json& v, int min, int max) {
    if (!v.is_number_integer()) {
      throw InputError(fmt::format("{} must be an integer, got {}", name, v.is_number() ? v.dump() : v.type_name()));
    }
    // Compared as 64-bit (unsigned above INT64_MAX) before narrowing, so nothing wraps.
    const bool ok = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= static_cast<uint64_t>(max) && static_cast<int64_t>(v.get<uint64_t>()) >= min
                        : v.get<int64_t>() >= min && v.get<int64_t>() <= max;
    if (!ok) throw InputError(fmt::format("{} must be an integer from {} to {}, got {}", name, min, max, v.dump()));
    return static_cast<int>(v.get<int64_t>());
  }

  const json& object_;
  std::string prefix_;
  std::set<std::string> seen_;
};

// Follows the parser's position as a field path ("nics.bw_Gbps", "stages[2]"), so an error that
// nlohmann reports without one (a number that overflows a double) can name the field.
class PathTracker : public nlohmann::json_sax<json> {
 public:
  std::string path() const {
    std::string p;
    for (const Level& l : levels_) {
      p += l.array ? fmt::format("[{}]", l.index) : (p.empty() ? "" : ".") + shown_key(l.key);
    }
    return p.empty() ? "the top level" : p;
  }
  int error_id = 0;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    levels_.push_back({false, "", 0});
    return true;
  }
  bool key(string_t& k) override { levels_.back().key = k; return true; }
  bool end_object() override { levels_.pop_back(); return value(); }
  bool start_array(std::size_t) override {
    levels_.push_back({true, "", 0});
    return true;
  }
  bool end_array() override { levels_.pop_back(); return value(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_id = e.id;
    return false;
  }

 private:
  struct Level {
    bool array;
    std::string key;
    size_t index;
  };
  bool value() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  std::vector<Level> levels_;
};

// Parses `text`; InputError "SOURCE: parse error at line 3, column 5: ..." or, for a number no
// double holds, "SOURCE: nics.bw_Gbps: number 1e400 is out of range (overflows a double)".
inline json parse_document(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    PathTracker tracker;
    json::sax_parse(text, &tracker);
    // nlohmann's message starts with "[json.exception.parse_error.101] "; the rest is one line.
    std::string what = e.what();
    const auto at = what.find("] ");
    what = at == std::string::npos ? what : what.substr(at + 2);
    if (tracker.error_id == 406) {  // out_of_range: a number beyond a double's 1.8e308
      throw InputError(fmt::format("{}: {}: {} (beyond the range of a double)", source, tracker.path(), what));
    }
    throw InputError(fmt::format("{}: {}", source, what));
  }
}

}  // namespace ringbench::model::json_fields
