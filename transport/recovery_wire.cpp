#include "recovery_wire.h"

#include <cstring>

namespace ringbench::recovery {
namespace {

template <typename T>
void put(std::byte* at, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) at[i] = static_cast<std::byte>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
}

template <typename T>
T get(const std::byte* at) {
  uint64_t value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<uint64_t>(at[i]) << (8 * i);
  return static_cast<T>(value);
}

}  // namespace

std::array<std::byte, kHelloBytes> encode(const Hello& hello) {
  std::array<std::byte, kHelloBytes> bytes{};
  put<uint32_t>(&bytes[0], kHelloMagic);
  put<uint16_t>(&bytes[4], kVersion);
  put<uint16_t>(&bytes[6], static_cast<uint16_t>(hello.role));
  put<uint64_t>(&bytes[8], hello.secret);
  put<uint32_t>(&bytes[16], hello.from_rank);
  put<uint32_t>(&bytes[20], hello.to_rank);
  put<uint32_t>(&bytes[24], hello.to_epoch);
  return bytes;
}

bool is_recovery_hello(const std::byte* bytes) { return get<uint32_t>(bytes) == kHelloMagic; }

std::optional<Hello> decode_hello(const std::byte* bytes) {
  if (!is_recovery_hello(bytes) || get<uint16_t>(bytes + 4) != kVersion) return std::nullopt;
  const auto role = get<uint16_t>(bytes + 6);
  if (role < static_cast<uint16_t>(Role::Request) || role > static_cast<uint16_t>(Role::Fenced)) return std::nullopt;
  Hello hello;
  hello.role = static_cast<Role>(role);
  hello.secret = get<uint64_t>(bytes + 8);
  hello.from_rank = get<uint32_t>(bytes + 16);
  hello.to_rank = get<uint32_t>(bytes + 20);
  hello.to_epoch = get<uint32_t>(bytes + 24);
  return hello;
}

std::vector<std::byte> encode(const Round& round) {
  std::vector<std::byte> bytes(kRoundFixedBytes + 4 * round.suspects.size());
  put<uint32_t>(&bytes[0], kRoundMagic);
  put<uint32_t>(&bytes[4], round.round);
  put<uint64_t>(&bytes[8], round.sequence);
  put<uint32_t>(&bytes[16], static_cast<uint32_t>(round.suspects.size()));
  for (size_t i = 0; i < round.suspects.size(); ++i) put<uint32_t>(&bytes[kRoundFixedBytes + 4 * i], round.suspects[i]);
  return bytes;
}

std::optional<uint32_t> round_count(const std::byte* fixed, uint32_t max_count) {
  if (get<uint32_t>(fixed) != kRoundMagic) return std::nullopt;
  const auto count = get<uint32_t>(fixed + 16);
  if (count > max_count) return std::nullopt;
  return count;
}

Round decode_round(const std::byte* bytes, uint32_t count) {
  Round round;
  round.round = get<uint32_t>(bytes + 4);
  round.sequence = get<uint64_t>(bytes + 8);
  round.suspects.resize(count);
  for (uint32_t i = 0; i < count; ++i) round.suspects[i] = get<uint32_t>(bytes + kRoundFixedBytes + 4 * i);
  return round;
}

}  // namespace ringbench::recovery
