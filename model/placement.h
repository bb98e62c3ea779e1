#pragma once
// A placement: N GPUs factorised as TP x CP x EP x DP x PP, and a rank order saying which
// dimension varies fastest, in Megatron-LM's notation: "tp-cp-ep-dp-pp" means TP is innermost
// (adjacent ranks share a TP group), then CP, EP, DP, and PP outermost. Rank r runs on GPU r of
// the cluster (the job is packed from GPU 0), so the order decides which groups stay inside an
// NVLink island, which share a NIC and which cross the spine.
//
// Every group of a dimension is derived from the order: the ranks that differ only in that
// dimension's coordinate. EP is its own factor here (N = tp x cp x ep x dp x pp); the gradient
// all-reduce of dense parameters spans cp x ep x dp, as in Megatron, where the expert-parallel
// and context-parallel ranks also hold replicas of the dense weights.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace ringbench::model {

enum class Dim { TP = 0, CP = 1, EP = 2, DP = 3, PP = 4 };
inline constexpr int kDims = 5;
const char* to_string(Dim dim);

struct Placement {
  std::array<int, kDims> size{1, 1, 1, 1, 1};  // indexed by Dim
  std::array<Dim, kDims> order{Dim::TP, Dim::CP, Dim::EP, Dim::DP, Dim::PP};  // innermost first

  int operator[](Dim d) const { return size[static_cast<size_t>(d)]; }
  int& operator[](Dim d) { return size[static_cast<size_t>(d)]; }
  int gpus() const;
  // Ranks between consecutive members of one group of `dim`.
  int stride(Dim dim) const;
  std::string order_string() const;  // "tp-cp-ep-dp-pp"
  std::string shape() const;         // "tp8 pp4 dp32" (dimensions of size 1 left out)
};

// "tp=8,pp=4,dp=32" (any subset, any order; missing dimensions are 1). InputError naming `flag`.
Placement parse_placement(std::string_view text, std::string_view flag = "--placement");
// "tp-dp-pp": dimensions innermost first; dimensions left out are appended in the default order.
std::array<Dim, kDims> parse_order(std::string_view text, std::string_view flag = "--order");
// Checks that the factors multiply to `gpus` (InputError naming the factors and `gpus`).
void check_divides(const Placement& p, int gpus);

// Every group of `dim`: N / size(dim) groups of size(dim) ranks (= GPU ids), ascending.
std::vector<std::vector<int>> groups(const Placement& p, Dim dim);
// Every pipeline stage boundary: pairs (rank in stage s, same rank in stage s+1).
std::vector<std::vector<int>> stage_pairs(const Placement& p);

}  // namespace ringbench::model
