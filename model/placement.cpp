#include "placement.h"

#include <fmt/format.h>

#include <charconv>

#include "error.h"

namespace ringbench::model {
namespace {

constexpr std::array<Dim, kDims> kDefaultOrder{Dim::TP, Dim::CP, Dim::EP, Dim::DP, Dim::PP};

bool parse_dim(std::string_view name, Dim& out) {
  for (Dim d : kDefaultOrder) {
    if (name == to_string(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

const char* to_string(Dim dim) {
  switch (dim) {
    case Dim::TP: return "tp";
    case Dim::CP: return "cp";
    case Dim::EP: return "ep";
    case Dim::DP: return "dp";
    case Dim::PP: return "pp";
  }
  return "?";
}

int Placement::gpus() const {
  int n = 1;
  for (int s : size) n *= s;
  return n;
}

int Placement::stride(Dim dim) const {
  int stride = 1;
  for (Dim d : order) {
    if (d == dim) return stride;
    stride *= (*this)[d];
  }
  return stride;
}

std::string Placement::order_string() const {
  std::string out;
  for (Dim d : order) out += fmt::format("{}{}", out.empty() ? "" : "-", to_string(d));
  return out;
}

std::string Placement::shape() const {
  std::string out;
  for (Dim d : kDefaultOrder) {
    if ((*this)[d] > 1) out += fmt::format("{}{}{}", out.empty() ? "" : " ", to_string(d), (*this)[d]);
  }
  return out.empty() ? "single GPU" : out;
}

Placement parse_placement(std::string_view text, std::string_view flag) {
  Placement p;
  std::array<bool, kDims> seen{};
  for (std::string_view item : split(text, ',')) {
    const size_t eq = item.find('=');
    Dim d{};
    if (eq == std::string_view::npos || !parse_dim(item.substr(0, eq), d)) {
      throw InputError(fmt::format("{}: '{}' is not DIM=SIZE with DIM one of tp, cp, ep, dp, pp", flag, item));
    }
    const std::string_view number = item.substr(eq + 1);
    int value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size() || value < 1) {
      throw InputError(fmt::format("{}: {} must be a positive integer, got '{}'", flag, to_string(d), number));
    }
    if (seen[static_cast<size_t>(d)]) throw InputError(fmt::format("{}: {} given twice", flag, to_string(d)));
    seen[static_cast<size_t>(d)] = true;
    p[d] = value;
  }
  return p;
}

std::array<Dim, kDims> parse_order(std::string_view text, std::string_view flag) {
  std::array<Dim, kDims> order{};
  std::array<bool, kDims> seen{};
  size_t count = 0;
  for (std::string_view name : split(text, '-')) {
    Dim d{};
    if (!parse_dim(name, d)) {
      throw InputError(fmt::format("{}: '{}' is not one of tp, cp, ep, dp, pp (e.g. tp-cp-ep-dp-pp)", flag, name));
    }
    if (seen[static_cast<size_t>(d)]) throw InputError(fmt::format("{}: {} given twice", flag, name));
    seen[static_cast<size_t>(d)] = true;
    order[count++] = d;
  }
  for (Dim d : kDefaultOrder) {
    if (!seen[static_cast<size_t>(d)]) order[count++] = d;
  }
  return order;
}

void check_divides(const Placement& p, int gpus) {
  if (p.gpus() != gpus) {
    throw InputError(fmt::format("placement tp={} cp={} ep={} dp={} pp={} covers {} GPUs, not the {} asked for",
                                 p[Dim::TP], p[Dim::CP], p[Dim::EP], p[Dim::DP], p[Dim::PP], p.gpus(), gpus));
  }
}

std::vector<std::vector<int>> groups(const Placement& p, Dim dim) {
  const int n = p.gpus();
  const int size = p[dim];
  const int stride = p.stride(dim);
  std::vector<std::vector<int>> out;
  out.reserve(static_cast<size_t>(n / size));
  for (int r = 0; r < n; ++r) {
    if ((r / stride) % size != 0) continue;  // not the first member of its group
    std::vector<int> group(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i) group[static_cast<size_t>(i)] = r + i * stride;
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<std::vector<int>> stage_pairs(const Placement& p) {
  const int n = p.gpus();
  const int stages = p[Dim::PP];
  const int stride = p.stride(Dim::PP);
  std::vector<std::vector<int>> out;
  for (int r = 0; r < n; ++r) {
    if ((r / stride) % stages != stages - 1) out.push_back({r, r + stride});
  }
  return out;
}

}  // namespace ringbench::model
