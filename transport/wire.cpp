#include "wire.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace ringbench::wire {
namespace {

// Explicit little-endian packing, so the format does not depend on struct layout or host order.
class Writer {
 public:
  explicit Writer(std::byte* out) : out_(out) {}
  template <typename T>
  void put(T value) {
    auto v = static_cast<uint64_t>(value);
    for (size_t i = 0; i < sizeof(T); ++i) *out_++ = static_cast<std::byte>((v >> (8 * i)) & 0xff);
  }

 private:
  std::byte* out_;
};

class Reader {
 public:
  explicit Reader(const std::byte* in) : in_(in) {}
  template <typename T>
  T get() {
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(*in_++) << (8 * i);
    return static_cast<T>(v);
  }

 private:
  const std::byte* in_;
};

}  // namespace

std::array<std::byte, kHelloBytes> encode(const Hello& hello) {
  std::array<std::byte, kHelloBytes> bytes{};
  Writer w(bytes.data());
  w.put(hello.magic);
  w.put(hello.version);
  w.put(static_cast<uint16_t>(hello.role));
  w.put(hello.secret);
  w.put(hello.from_rank);
  w.put(hello.to_rank);
  w.put(hello.world_size);
  w.put(hello.stream);
  w.put(hello.streams);
  return bytes;
}

Hello decode_hello(const std::byte* bytes) {
  Reader r(bytes);
  Hello hello;
  hello.magic = r.get<uint32_t>();
  hello.version = r.get<uint16_t>();
  hello.role = static_cast<HelloRole>(r.get<uint16_t>());
  hello.secret = r.get<uint64_t>();
  hello.from_rank = r.get<uint32_t>();
  hello.to_rank = r.get<uint32_t>();
  hello.world_size = r.get<uint32_t>();
  hello.stream = r.get<uint16_t>();
  hello.streams = r.get<uint16_t>();
  return hello;
}

std::optional<std::string> check_hello(const Hello& hello, HelloRole expected_role, uint64_t secret,
                                       uint32_t my_rank, uint32_t world_size) {
  if (hello.magic != kHandshakeMagic)
    return fmt::format("bad magic 0x{:08x} (not a ringbench peer)", hello.magic);
  if (hello.version != kProtocolVersion)
    return fmt::format("protocol version {} (this build speaks {})", hello.version, kProtocolVersion);
  if (hello.role != expected_role)
    return fmt::format("unexpected handshake role {}", static_cast<unsigned>(hello.role));
  if (hello.secret != secret) return std::string("wrong job secret (a peer from another job?)");
  if (hello.world_size != world_size)
    return fmt::format("world size {} (this job has {})", hello.world_size, world_size);
  if (hello.to_rank != my_rank)
    return fmt::format("addressed to rank {} (this is rank {})", hello.to_rank, my_rank);
  if (hello.from_rank >= world_size || hello.from_rank == my_rank)
    return fmt::format("claims to be rank {}, out of range or this rank itself", hello.from_rank);
  if (hello.streams == 0 || hello.stream >= hello.streams)
    return fmt::format("stream {} of {} (out of range)", hello.stream, hello.streams);
  return std::nullopt;
}

std::array<std::byte, kFrameHeaderBytes> encode(const FrameHeader& header) {
  std::array<std::byte, kFrameHeaderBytes> bytes{};
  Writer w(bytes.data());
  w.put(header.magic);
  w.put(static_cast<uint16_t>(header.kind));
  w.put(uint16_t{0});
  w.put(header.sequence);
  w.put(header.step);
  w.put(uint32_t{0});
  w.put(header.length);
  return bytes;
}

FrameHeader decode_frame_header(const std::byte* bytes) {
  Reader r(bytes);
  FrameHeader header;
  header.magic = r.get<uint32_t>();
  header.kind = static_cast<FrameKind>(r.get<uint16_t>());
  r.get<uint16_t>();
  header.sequence = r.get<uint64_t>();
  header.step = r.get<uint32_t>();
  r.get<uint32_t>();
  header.length = r.get<uint64_t>();
  return header;
}

std::optional<std::string> check_frame(const FrameHeader& got, const FrameHeader& expected) {
  if (got.magic != kFrameMagic) return fmt::format("bad frame magic 0x{:08x} (stream corrupted)", got.magic);
  if (got.kind != expected.kind) return fmt::format("frame kind {} where {} was expected",
                                                    static_cast<unsigned>(got.kind),
                                                    static_cast<unsigned>(expected.kind));
  if (got.sequence != expected.sequence || got.step != expected.step)
    return fmt::format("frame for collective #{} step {} where #{} step {} was expected (ranks out of step)",
                       got.sequence, got.step, expected.sequence, expected.step);
  if (got.length != expected.length)
    return fmt::format("frame of {} bytes where {} were expected (ranks disagree on the message size)",
                       got.length, expected.length);
  return std::nullopt;
}

std::array<std::byte, kFrameHeaderBytes> control_header(FrameKind kind, uint64_t length) {
  return encode(FrameHeader{kFrameMagic, kind, 0, 0, length});
}

std::vector<std::byte> encode_abort(const AbortNotice& notice) {
  const size_t cause = std::min(notice.cause.size(), kMaxAbortCauseBytes);
  const bool with_view = notice.view && notice.view->peers.size() <= kMaxHeardViewPeers;
  const size_t view = with_view ? kHeardViewFixedBytes + kHeardPeerBytes * notice.view->peers.size() : 0;
  const size_t length = kAbortNoticeFixedBytes + cause + view;
  std::vector<std::byte> frame(kFrameHeaderBytes + length);
  auto header = control_header(FrameKind::Abort, length);
  std::copy(header.begin(), header.end(), frame.begin());
  Writer w(frame.data() + kFrameHeaderBytes);
  w.put(static_cast<uint32_t>(notice.failed_rank));
  w.put(static_cast<uint32_t>(notice.detected_by));
  w.put(notice.kind);
  w.put(static_cast<uint16_t>(with_view ? 1 : 0));
  w.put(static_cast<uint32_t>(cause));
  std::memcpy(frame.data() + kFrameHeaderBytes + kAbortNoticeFixedBytes, notice.cause.data(), cause);
  if (with_view) {
    Writer v(frame.data() + kFrameHeaderBytes + kAbortNoticeFixedBytes + cause);
    v.put(static_cast<uint32_t>(notice.view->rank));
    v.put(static_cast<uint32_t>(notice.view->peers.size()));
    for (const auto& p : notice.view->peers) {
      v.put(static_cast<uint32_t>(p.peer));
      v.put(p.age_ms);
      v.put(static_cast<uint8_t>(p.heard));
      v.put(uint8_t{0}), v.put(uint16_t{0});
    }
  }
  return frame;
}

namespace {

// The heard view of `length` bytes at `bytes`; nullopt when its size does not add up.
std::optional<HeardView> decode_view(const std::byte* bytes, size_t length) {
  if (length < kHeardViewFixedBytes) return std::nullopt;
  Reader r(bytes);
  HeardView view;
  view.rank = static_cast<int>(r.get<uint32_t>());
  const uint32_t count = r.get<uint32_t>();
  if (count > kMaxHeardViewPeers || length != kHeardViewFixedBytes + kHeardPeerBytes * count) return std::nullopt;
  for (uint32_t i = 0; i < count; ++i) {
    PeerHeardState p;
    p.peer = static_cast<int>(r.get<uint32_t>());
    p.age_ms = r.get<uint32_t>();
    const auto heard = r.get<uint8_t>();
    r.get<uint8_t>(), r.get<uint16_t>();
    p.heard = heard <= 2 ? static_cast<PeerHeardState::Heard>(heard) : PeerHeardState::Heard::Unknown;
    view.peers.push_back(p);
  }
  return view;
}

}  // namespace

std::optional<AbortNotice> decode_abort(const std::byte* bytes, size_t length, std::string* why) {
  auto bad = [&](std::string text) -> std::optional<AbortNotice> {
    if (why) *why = std::move(text);
    return std::nullopt;
  };
  if (length < kAbortNoticeFixedBytes || length > kMaxAbortNoticeBytes)
    return bad(fmt::format("abort notice of {} bytes", length));
  Reader r(bytes);
  AbortNotice notice;
  notice.failed_rank = static_cast<int32_t>(r.get<uint32_t>());
  notice.detected_by = static_cast<int32_t>(r.get<uint32_t>());
  notice.kind = r.get<uint16_t>();
  const uint16_t format = r.get<uint16_t>();
  const uint32_t cause = r.get<uint32_t>();
  const size_t after_fixed = length - kAbortNoticeFixedBytes;
  if (cause > kMaxAbortCauseBytes || (format == 0 ? cause != after_fixed : cause > after_fixed))
    return bad(fmt::format("abort notice says {} cause bytes but carries {}", cause, after_fixed));
  if (format == 1) {
    notice.view = decode_view(bytes + kAbortNoticeFixedBytes + cause, after_fixed - cause);
    if (!notice.view) return bad(fmt::format("abort notice with a heard view of {} bytes", after_fixed - cause));
  }
  notice.cause.assign(reinterpret_cast<const char*>(bytes) + kAbortNoticeFixedBytes, cause);
  // The cause is printed: keep it to printable ASCII so a hostile peer cannot drive the terminal.
  for (char& c : notice.cause)
    if (c < 0x20 || c > 0x7e) c = '?';
  return notice;
}

}  // namespace ringbench::wire
