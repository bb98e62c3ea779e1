#pragma once
// The text each rank publishes through the bootstrap: "key=value" lines, so that a launcher log
// or a debugger shows it readably. Decoding throws TransportError (Handshake) naming the rank.

#include <string>

#include "communicator.h"

namespace ringbench {

std::string encode_card(const PeerCard& card);
PeerCard decode_card(const std::string& text, int expected_rank);

}  // namespace ringbench
