#include <gtest/gtest.h>

#include "transport/wire.h"

namespace ringbench::wire {
namespace {

Hello valid_request() {
  Hello h;
  h.secret = 0x1234567890abcdefULL;
  h.from_rank = 3;
  h.to_rank = 1;
  h.world_size = 4;
  return h;
}

TEST(Wire, HelloRoundTrips) {
  Hello h = valid_request();
  auto bytes = encode(h);
  Hello back = decode_hello(bytes.data());
  EXPECT_EQ(back.magic, kHandshakeMagic);
  EXPECT_EQ(back.secret, h.secret);
  EXPECT_EQ(back.from_rank, 3u);
  EXPECT_EQ(back.to_rank, 1u);
  EXPECT_EQ(back.world_size, 4u);
  EXPECT_FALSE(check_hello(back, HelloRole::Request, h.secret, 1, 4));
  h.stream = 2;
  h.streams = 4;
  back = decode_hello(encode(h).data());
  EXPECT_EQ(back.stream, 2u);
  EXPECT_EQ(back.streams, 4u);
}

TEST(Wire, HelloRejectsEachKindOfStranger) {
  const uint64_t secret = valid_request().secret;
  auto rejected = [&](Hello h) { return check_hello(h, HelloRole::Request, secret, 1, 4).value_or(""); };
  Hello h = valid_request();
  h.magic = 0xdeadbeef;
  EXPECT_NE(rejected(h).find("magic"), std::string::npos);
  h = valid_request();
  h.version = 99;
  EXPECT_NE(rejected(h).find("version"), std::string::npos);
  h = valid_request();
  h.secret ^= 1;
  EXPECT_NE(rejected(h).find("secret"), std::string::npos);
  h = valid_request();
  h.from_rank = 4;
  EXPECT_NE(rejected(h).find("out of range"), std::string::npos);
  h = valid_request();
  h.from_rank = 1;
  EXPECT_NE(rejected(h).find("out of range"), std::string::npos);
  h = valid_request();
  h.world_size = 5;
  EXPECT_NE(rejected(h).find("world size"), std::string::npos);
  h = valid_request();
  h.role = HelloRole::Reply;
  EXPECT_NE(rejected(h).find("role"), std::string::npos);
  h = valid_request();
  h.stream = 2;
  h.streams = 2;
  EXPECT_NE(rejected(h).find("stream 2 of 2"), std::string::npos);
}

TEST(Wire, FrameHeaderRoundTripsAndChecksEveryField) {
  FrameHeader h{kFrameMagic, FrameKind::Data, 77, 5, 1 << 20};
  auto bytes = encode(h);
  FrameHeader back = decode_frame_header(bytes.data());
  EXPECT_FALSE(check_frame(back, h));
  FrameHeader other = h;
  other.sequence = 78;
  EXPECT_TRUE(check_frame(back, other));
  other = h;
  other.step = 4;
  EXPECT_TRUE(check_frame(back, other));
  other = h;
  other.length = 1;
  EXPECT_NE(check_frame(back, other).value_or("").find("size"), std::string::npos);
  bytes[0] = std::byte{0};
  EXPECT_NE(check_frame(decode_frame_header(bytes.data()), h).value_or("").find("magic"), std::string::npos);
}

// Abort notices carry the sender's heard view (format 1); a notice without one (format 0, as the
// first notices were) still decodes, with no view.
TEST(Wire, AbortNoticeCarriesTheHeardViewAndOldNoticesStillDecode) {
  AbortNotice notice{2, 1, 1, "sent nothing", HeardView{1, {{0, PeerHeardState::Heard::Alive, 120},
                                                            {2, PeerHeardState::Heard::Silent, 2200},
                                                            {3, PeerHeardState::Heard::Unknown, 4100}}}};
  auto frame = encode_abort(notice);
  auto header = decode_frame_header(frame.data());
  ASSERT_EQ(header.kind, FrameKind::Abort);
  ASSERT_EQ(header.length, frame.size() - kFrameHeaderBytes);
  std::string why;
  auto back = decode_abort(frame.data() + kFrameHeaderBytes, header.length, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->failed_rank, 2);
  EXPECT_EQ(back->cause, "sent nothing");
  ASSERT_TRUE(back->view);
  EXPECT_EQ(back->view->rank, 1);
  ASSERT_EQ(back->view->peers.size(), 3u);
  EXPECT_EQ(back->view->peers[1].peer, 2);
  EXPECT_EQ(back->view->peers[1].heard, PeerHeardState::Heard::Silent);
  EXPECT_EQ(back->view->peers[1].age_ms, 2200u);
  EXPECT_EQ(back->view->peers[2].heard, PeerHeardState::Heard::Unknown);
  // Cut short inside the view: malformed, never a view of garbage.
  EXPECT_FALSE(decode_abort(frame.data() + kFrameHeaderBytes, header.length - 1, &why));
  EXPECT_NE(why.find("heard view"), std::string::npos) << why;

  notice.view.reset();
  frame = encode_abort(notice);
  header = decode_frame_header(frame.data());
  EXPECT_EQ(header.length, kAbortNoticeFixedBytes + notice.cause.size());  // byte for byte the old notice
  back = decode_abort(frame.data() + kFrameHeaderBytes, header.length, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->cause, "sent nothing");
  EXPECT_FALSE(back->view);
}

}  // namespace
}  // namespace ringbench::wire
