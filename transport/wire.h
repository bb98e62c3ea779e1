#pragma once
// The wire protocol: what our TCP connections carry, byte for byte (little-endian integers).
//
// Handshake, once per connection, 32 bytes each way. The connecting (higher) rank sends a Hello
// with role=Request; the accepting rank checks it and answers with role=Reply carrying its own
// rank, so both sides prove they know the job's secret before any collective traffic:
//   u32 magic "RNGH" | u16 version | u16 role | u64 job secret | u32 from rank | u32 to rank |
//   u32 world size | u16 stream | u16 streams
// With --streams K every pair of ranks has K connections, each with its own handshake naming its
// index (0..K-1) and K; a peer with another K is refused (stripe.h says how bytes are spread).
//
// Frames, for everything after the handshake, a 32-byte header then `length` payload bytes:
//   u32 magic "RNGF" | u16 kind | u16 reserved (0) | u64 collective sequence | u32 step |
//   u32 reserved (0) | u64 payload length
// The receiver knows which sequence, step and length it expects and checks all three, so a
// desynchronised or corrupted stream is an error, never numbers reduced into the wrong place.
// Header bytes are counted as protocol overhead, payload bytes as payload.
//
// Control frames share the header and go only between whole frames (never inside one), so a
// receiver always finds them at a frame boundary:
//   Heartbeat (length 0): "I am alive", sent while a rank waits to every peer it has sent nothing
//     to for a heartbeat interval (see progress.cpp).
//   Abort (length = the notice below): a rank detected a failure; carries the failed rank and how
//     it was detected, so every survivor names the same culprit. Receivers relay it once.
//   Bye (length 0): the last frame a rank sends before it closes the connection after a clean run,
//     so the peer tells a finished rank from a dead one.
// Sequence and step of control frames are 0 and ignored.
// Abort notice payload: u32 failed rank (0xffffffff none) | u32 detected by | u16 error kind |
//   u16 format | u32 cause length | cause (UTF-8, at most kMaxAbortCauseBytes) [| heard view]
// format 0 (the first notices): nothing follows the cause. format 1 (added with heard views,
// heard_views.h): the sender's heard view follows: u32 rank | u32 count | count x (u32 peer |
// u32 milliseconds since heard | u8 alive 0, silent 1, unknown 2 | 3 bytes reserved). Additive: a
// format-0 notice still decodes, with no view.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heard_views.h"

namespace ringbench::wire {

inline constexpr uint32_t kHandshakeMagic = 0x48474e52;  // "RNGH" in memory order
inline constexpr uint32_t kFrameMagic = 0x46474e52;      // "RNGF"
inline constexpr uint16_t kProtocolVersion = 3;  // 2: Heartbeat, Abort notice, Bye; 3: streams
inline constexpr size_t kHelloBytes = 32;
inline constexpr size_t kFrameHeaderBytes = 32;

enum class HelloRole : uint16_t { Request = 1, Reply = 2 };

struct Hello {
  uint32_t magic = kHandshakeMagic;
  uint16_t version = kProtocolVersion;
  HelloRole role = HelloRole::Request;
  uint64_t secret = 0;
  uint32_t from_rank = 0;
  uint32_t to_rank = 0;
  uint32_t world_size = 0;
  uint16_t stream = 0;   // which of the pair's connections this is
  uint16_t streams = 1;  // connections per pair of ranks (--streams)
};

std::array<std::byte, kHelloBytes> encode(const Hello& hello);
Hello decode_hello(const std::byte* bytes);

// Why a received hello is unacceptable, or nullopt when it is the one expected: right magic,
// version, role and secret, addressed to `my_rank` in a world of `world_size`, from a rank in
// range other than my own, on a stream index below its stream count. (Whether that count is this
// rank's is the caller's check: a job member with another count is an error, not a stranger.)
std::optional<std::string> check_hello(const Hello& hello, HelloRole expected_role, uint64_t secret,
                                       uint32_t my_rank, uint32_t world_size);

enum class FrameKind : uint16_t { Data = 1, Abort = 2, Heartbeat = 3, Bye = 4 };

struct FrameHeader {
  uint32_t magic = kFrameMagic;
  FrameKind kind = FrameKind::Data;
  uint64_t sequence = 0;
  uint32_t step = 0;
  uint64_t length = 0;
};

std::array<std::byte, kFrameHeaderBytes> encode(const FrameHeader& header);
FrameHeader decode_frame_header(const std::byte* bytes);

// Why `got` is not the frame `expected`, or nullopt when magic, kind, sequence, step and length
// all match.
std::optional<std::string> check_frame(const FrameHeader& got, const FrameHeader& expected);

// A control frame's header (Heartbeat, Bye; Abort with its notice length).
std::array<std::byte, kFrameHeaderBytes> control_header(FrameKind kind, uint64_t length = 0);

inline constexpr size_t kAbortNoticeFixedBytes = 16;
inline constexpr size_t kMaxAbortCauseBytes = 2048;
// A view of more peers than this is not sent (the notice stays small): no link verdict beyond.
inline constexpr size_t kMaxHeardViewPeers = 1024;
inline constexpr size_t kHeardViewFixedBytes = 8, kHeardPeerBytes = 12;
inline constexpr size_t kMaxAbortNoticeBytes =
    kAbortNoticeFixedBytes + kMaxAbortCauseBytes + kHeardViewFixedBytes + kHeardPeerBytes * kMaxHeardViewPeers;

struct AbortNotice {
  int32_t failed_rank = -1;  // -1: no single rank is to blame
  int32_t detected_by = -1;
  uint16_t kind = 0;         // a TransportErrorKind
  std::string cause;         // "closed its connection (...)", without the receiver's context
  std::optional<HeardView> view;  // the sender's heard view when it aborted (format 1)
};

// The whole Abort frame: header then notice. The cause is cut to kMaxAbortCauseBytes.
std::vector<std::byte> encode_abort(const AbortNotice& notice);
// Decodes a notice of `length` bytes; nullopt (with `why`) when malformed.
std::optional<AbortNotice> decode_abort(const std::byte* bytes, size_t length, std::string* why = nullptr);

}  // namespace ringbench::wire
