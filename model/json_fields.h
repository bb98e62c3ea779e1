#pragma once
// Strict reading of one JSON object for the model's input files (clusters, workloads): typed
// getters that name the field on a type error, and reject_unknown() so a misspelt key is an error
// naming it rather than silently ignored.

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "error.h"

namespace ringbench::model::json_fields {

using nlohmann::json;

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

  void number(const std::string& key, double& out) {
    if (const json* v = find(key)) {
      if (!v->is_number()) throw bad_type(key, "a number", *v);
      out = v->get<double>();
    }
  }
  void integer(const std::string& key, int& out) {
    if (const json* v = find(key)) {
      if (!v->is_number_integer()) throw bad_type(key, "an integer", *v);
      out = v->get<int>();
    }
  }
  void boolean(const std::string& key, bool& out) {
    if (const json* v = find(key)) {
      if (!v->is_boolean()) throw bad_type(key, "true or false", *v);
      out = v->get<bool>();
    }
  }
  void string(const std::string& key, std::string& out) {
    if (const json* v = find(key)) {
      if (!v->is_string()) throw bad_type(key, "a string", *v);
      out = v->get<std::string>();
    }
  }
  void require(const std::string& key) {
    if (!object_.contains(key)) throw InputError(fmt::format("{} is required", field(key)));
  }
  void reject_unknown() const {
    for (const auto& [key, value] : object_.items()) {
      if (!seen_.count(key)) throw InputError(fmt::format("{} is not a known field", field(key)));
    }
  }
  std::string field(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

 private:
  std::string where() const { return prefix_.empty() ? "the top level" : prefix_; }
  InputError bad_type(const std::string& key, const char* expected, const json& got) const {
    return InputError(fmt::format("{} must be {}, got {}", field(key), expected, got.type_name()));
  }

  const json& object_;
  std::string prefix_;
  std::set<std::string> seen_;
};

}  // namespace ringbench::model::json_fields
