// Hierarchical all-reduce: reduce-scatter inside each host, all-reduce across hosts among the
// ranks that own the same part of the buffer, all-gather inside each host. Only the middle phase
// crosses the network between hosts, and it carries 1/n of the data per rank on n-rank hosts.
//
// Ownership, defined for any ranks-per-host (hosts.h numbers hosts by their lowest rank; local
// index = position among the host's ranks in rank order). With K = the largest host's rank count,
// the buffer is cut into K chunks (ChunkLayout(count, K)); on a host of n ranks, ChunkLayout(K, n)
// groups them into n contiguous parts and local rank j owns part j+1 (mod n): the part a ring
// reduce-scatter leaves it with, so that on one host every phase is exactly the ring all-reduce,
// rank for rank and byte for byte. With equal hosts local j owns chunk j+1; on a one-rank host
// that rank owns everything. E.g. 3+1: K = 3, ranks 0,1,2 own chunks 1,2,0 and rank 3 owns all
// three, so the cross-host all-reduce of chunk k runs between rank k-1 and rank 3.
//
//   phase 1  ring reduce-scatter inside each host over its parts         (K-1 steps)
//   phase 2  for each "piece" (maximal run of chunks with the same owner on every host), a ring
//            all-reduce over its owners, one per host, in host order     (W x 2(H-1) steps)
//   phase 3  ring all-gather inside each host over its parts             (K-1 steps)
// Pieces whose rings share a directed link go in different waves (W = number of waves, greedy,
// 1 whenever hosts are equal), so no exchange has two frames on one connection in one direction.
//
//   steps          2(K-1) + W x 2(H-1); one host: 2(N-1), exactly the ring all-reduce
//   bytes per rank inside, as the ring all-reduce does on its host's parts: phase 1 every part
//                    but its own, phase 3 every part but its right neighbour's;
//                  across: for each piece it owns, 2(H-1)/H x the piece (a ring over H hosts).
//                  Equal hosts of n ranks, n | count: 2(n-1)/n x data + 2(H-1)/(nH) x data.
//   wins           multi-host jobs with slow links between hosts: only 2(H-1)/(nH) x data per rank
//                  crosses hosts, in 2(H-1) cross-host steps, instead of the flat ring's
//                  2(N-1) steps over a ring that crosses hosts H times
//
// Each element's final value is computed by one rank (the phase 2 ring owner) and copied, so all
// ranks end bit-identical.

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "algorithm_spec.h"
#include "ring_phases.h"

namespace ringbench::spec {
namespace {

struct Hosts {
  std::vector<std::vector<int>> members;  // by host index: its ranks in rank order
  std::vector<int> host_of, local_of;     // by rank
  int widest = 1;                         // K: the largest host's rank count

  Hosts(std::span<const int> host_of_rank, int world_size) : host_of(world_size, 0), local_of(world_size, 0) {
    for (int r = 0; r < world_size; ++r) {
      const int h = host_of_rank.empty() ? 0 : host_of_rank[r];
      if (static_cast<int>(members.size()) <= h) members.resize(h + 1);
      host_of[r] = h;
      local_of[r] = static_cast<int>(members[h].size());
      members[h].push_back(r);
    }
    std::erase_if(members, [](const std::vector<int>& m) { return m.empty(); });
    // Renumber densely in case the caller's indices had gaps.
    for (int h = 0; h < static_cast<int>(members.size()); ++h)
      for (int r : members[h]) host_of[r] = h;
    for (const auto& m : members) widest = std::max(widest, static_cast<int>(m.size()));
  }
  int count() const { return static_cast<int>(members.size()); }
  // Local index on host h of the owner of chunk k: the owner of the part containing it.
  int owner(int h, int k) const {
    const int n = static_cast<int>(members[h].size());
    const ChunkLayout parts(static_cast<size_t>(widest), n);
    int part = 0;
    while (parts.offset(part) + parts.size(part) <= static_cast<size_t>(k)) ++part;
    return (part - 1 + n) % n;
  }
};

struct Piece {
  int first_chunk, last_chunk;  // [first, last)
  std::vector<int> owners;      // one rank per host, in host order
  int wave = 0;
};

std::vector<Piece> pieces_of(const Hosts& hosts) {
  std::vector<Piece> pieces;
  for (int k = 0; k < hosts.widest; ++k) {
    std::vector<int> owners;
    for (int h = 0; h < hosts.count(); ++h) owners.push_back(hosts.members[h][hosts.owner(h, k)]);
    if (!pieces.empty() && pieces.back().owners == owners) pieces.back().last_chunk = k + 1;
    else pieces.push_back({k, k + 1, std::move(owners)});
  }
  // Greedy waves: a piece joins the first wave none of whose rings uses any of its directed links.
  std::vector<std::set<std::pair<int, int>>> links;
  for (Piece& piece : pieces) {
    std::vector<std::pair<int, int>> mine;
    const int h = static_cast<int>(piece.owners.size());
    if (h > 1)
      for (int i = 0; i < h; ++i) mine.push_back({piece.owners[i], piece.owners[(i + 1) % h]});
    int w = 0;
    while (w < static_cast<int>(links.size()) &&
           std::any_of(mine.begin(), mine.end(), [&](const auto& l) { return links[w].count(l) > 0; }))
      ++w;
    if (w == static_cast<int>(links.size())) links.emplace_back();
    links[w].insert(mine.begin(), mine.end());
    piece.wave = w;
  }
  return pieces;
}

// Without a placement this is the one-host case: the intra-host ring.
uint32_t steps(int world_size) { return 2 * static_cast<uint32_t>(world_size - 1); }

Schedule plan(const PlanInput& in) {
  Schedule schedule;
  const Hosts hosts(in.host_of_rank, in.world_size);
  const int r = in.rank, h = hosts.host_of[r], me = hosts.local_of[r];
  const int n_here = static_cast<int>(hosts.members[h].size());
  const ChunkLayout chunks(in.count, hosts.widest);
  const ChunkLayout parts_here(static_cast<size_t>(hosts.widest), n_here);
  // Ring member j's part is the one local rank j owns: part j+1 of the host's grouping.
  const PartOf part = [&](int j) {
    const int first = static_cast<int>(parts_here.offset(j + 1));
    return chunks_range(chunks, first, first + static_cast<int>(parts_here.size(j + 1)));
  };
  const size_t inside = static_cast<size_t>(hosts.widest - 1);
  add_ring_reduce_scatter(schedule, 0, hosts.members[h], me, part);

  const std::vector<Piece> pieces = pieces_of(hosts);
  const int ring = hosts.count();
  const size_t wave_steps = 2 * static_cast<size_t>(ring - 1);
  int waves = 0;
  for (const Piece& piece : pieces) {
    waves = std::max(waves, piece.wave + 1);
    if (piece.owners[h] != r || ring == 1) continue;
    const Range span = chunks_range(chunks, piece.first_chunk, piece.last_chunk);
    const ChunkLayout sub(span.count, ring);
    const PartOf sub_part = [&](int i) { return Range{span.offset + sub.offset(i), sub.size(i)}; };
    const size_t first = inside + static_cast<size_t>(piece.wave) * wave_steps;
    add_ring_reduce_scatter(schedule, first, piece.owners, h, sub_part);
    add_ring_allgather(schedule, first + static_cast<size_t>(ring - 1), piece.owners, h, sub_part);
  }
  add_ring_allgather(schedule, inside + static_cast<size_t>(waves) * wave_steps, hosts.members[h], me, part);
  return schedule;
}

}  // namespace

const AlgorithmSpec& hierarchical_allreduce() {
  static const AlgorithmSpec spec{"allreduce", "hierarchical",
                                  "several ranks per host, slow links between hosts: "
                                  "only 2(H-1)/(nH) x data crosses hosts",
                                  steps, plan};
  return spec;
}

}  // namespace ringbench::spec
