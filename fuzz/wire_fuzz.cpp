// libFuzzer target for everything a peer or a stranger can make ringbench parse: the handshake
// (decode_hello, check_hello), the frame header (decode_frame_header, check_frame) and the abort
// notice (decode_abort). The CMake target wire_fuzz (clang, -DRINGBENCH_FUZZ=ON); scripts/fuzz.sh
// builds it in its own tree and runs it for a bounded time (CTest label `fuzz`). Any crash,
// sanitizer report or broken invariant fails it.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "transport/wire.h"

using namespace ringbench::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  if (size >= kHelloBytes) {
    Hello hello = decode_hello(bytes);
    uint64_t secret = 0;
    if (size >= kHelloBytes + 8) std::memcpy(&secret, data + kHelloBytes, 8);
    auto problem = check_hello(hello, HelloRole::Request, secret, 1, 4);
    // Accepted only when every field is what it must be.
    if (!problem && (hello.magic != kHandshakeMagic || hello.secret != secret || hello.from_rank >= 4 ||
                     hello.from_rank == 1 || hello.to_rank != 1 || hello.world_size != 4))
      std::abort();
    // Round trip: what we encode decodes to the same fields.
    auto again = decode_hello(encode(hello).data());
    if (again.magic != hello.magic || again.secret != hello.secret || again.from_rank != hello.from_rank) std::abort();
  }
  if (size >= kFrameHeaderBytes) {
    FrameHeader header = decode_frame_header(bytes);
    FrameHeader expected{kFrameMagic, FrameKind::Data, 7, 3, 1024};
    auto problem = check_frame(header, expected);
    if (!problem && (header.sequence != 7 || header.step != 3 || header.length != 1024 || header.kind != FrameKind::Data))
      std::abort();
    // An abort notice following the header, of the length the header claims (bounded by what we have).
    size_t rest = size - kFrameHeaderBytes;
    size_t length = header.length < rest ? static_cast<size_t>(header.length) : rest;
    std::string why;
    auto notice = decode_abort(bytes + kFrameHeaderBytes, length, &why);
    if (notice) {
      for (char c : notice->cause)
        if (c < 0x20 || c > 0x7e) std::abort();  // printed: must be sanitized
      auto frame = encode_abort(*notice);
      auto back = decode_abort(frame.data() + kFrameHeaderBytes, frame.size() - kFrameHeaderBytes);
      if (!back || back->cause != notice->cause || back->failed_rank != notice->failed_rank) std::abort();
    } else if (why.empty()) {
      std::abort();  // a rejection always says why
    }
  }
  return 0;
}
