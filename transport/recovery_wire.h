#pragma once
// The wire format of a shrink (failure_agreement.h), kept apart from the frames of wire.h: the
// survivors of a failure open fresh connections to each other, so nothing here ever shares a
// stream with a half-written data frame. Little-endian, like wire.h.
//
// Recovery hello, 32 bytes each way, once per new connection. The connecting (higher) rank sends a
// Request; the other answers Accept, or Fenced when it holds the caller to be one of the failed
// (the caller then exits, saying so):
//   u32 magic "RNGR" | u16 version | u16 role | u64 job secret | u32 from rank | u32 to rank |
//   u32 to epoch | u32 reserved (0)
// Ranks are those of the epoch being left; `to epoch` is the one being built (a job starts in epoch
// 0; each shrink adds one), so a rank that slept through a shrink knocks for an epoch that is gone.
//
// Round message, then, on every new connection, one per agreement round and a last one (round
// kCommitRound) that commits to the decided set:
//   u32 magic "RNGA" | u32 round | u64 highest collective sequence seen | u32 count | count x u32 rank
// (the sender's suspects, in ascending order).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringbench::recovery {

inline constexpr uint32_t kHelloMagic = 0x52474e52;    // "RNGR"
inline constexpr uint32_t kRoundMagic = 0x41474e52;    // "RNGA"
inline constexpr uint16_t kVersion = 1;
inline constexpr size_t kHelloBytes = 32;
inline constexpr size_t kRoundFixedBytes = 20;
inline constexpr uint32_t kCommitRound = 0xffffffffu;

enum class Role : uint16_t { Request = 1, Accept = 2, Fenced = 3 };

struct Hello {
  Role role = Role::Request;
  uint64_t secret = 0;
  uint32_t from_rank = 0;
  uint32_t to_rank = 0;
  uint32_t to_epoch = 0;
};

std::array<std::byte, kHelloBytes> encode(const Hello& hello);
// The hello in `bytes`, or nullopt when its magic or version is not ours.
std::optional<Hello> decode_hello(const std::byte* bytes);
// True when `bytes` (kHelloBytes) start with the recovery magic: a survivor knocking.
bool is_recovery_hello(const std::byte* bytes);

struct Round {
  uint32_t round = 0;
  uint64_t sequence = 0;
  std::vector<uint32_t> suspects;  // ascending
};

std::vector<std::byte> encode(const Round& round);
// The count field of a round message's fixed part, or nullopt when the magic is wrong or the
// count exceeds `max_count` (the world size: a corrupted stream, not a set).
std::optional<uint32_t> round_count(const std::byte* fixed, uint32_t max_count);
// Decodes a whole message (fixed part plus 4 x count bytes, as round_count said).
Round decode_round(const std::byte* bytes, uint32_t count);

}  // namespace ringbench::recovery
