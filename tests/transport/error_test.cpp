// TransportError: every fact a field, and the message formatted from the fields in one place.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "transport/error.h"

namespace ringbench {
namespace {

TEST(TransportError, TheMessageCarriesEveryFactAndTheFieldsStayReadable) {
  ErrorFacts facts(TransportErrorKind::Timeout, 3, 2, "sent nothing, not even a heartbeat, for 1.0 s");
  facts.peer_address = "127.0.0.1:43111";
  facts.detected_by = 1;
  facts.reported_by = 0;
  facts.collective = "allreduce";
  facts.algorithm = "ring";
  facts.step = 5;
  facts.steps = 6;
  facts.seconds_into_call = 1.6;
  facts.unfinished.push_back({false, 2, "127.0.0.1:43111", 32, 36});
  const TransportError error(facts);
  const std::string text = error.what();
  for (const char* part : {"rank 3", "rank 2", "sent nothing", "detected by rank 1", "reported by rank 0",
                           "step 6/6", "1.6 s into the call", "recv from rank 2 (127.0.0.1:43111)", "32 of 36 bytes"})
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in: " << text;
  EXPECT_EQ(error.kind(), TransportErrorKind::Timeout);
  EXPECT_EQ(error.peer_rank(), 2);
  EXPECT_EQ(error.detected_by(), 1);
  EXPECT_EQ(error.facts().step, 5u);
  EXPECT_EQ(error.facts().unfinished.at(0).bytes_done, 32u);
}

TEST(TransportError, ASystemCallFailureNamesTheCallAndErrno) {
  ErrorFacts facts(TransportErrorKind::System, 0, 1, "connection to rank 1 failed");
  facts.syscall = "connect";
  facts.error_number = ECONNREFUSED;
  const TransportError error(facts);
  const std::string text = error.what();
  EXPECT_NE(text.find("connect"), std::string::npos) << text;
  EXPECT_NE(text.find("(errno " + std::to_string(ECONNREFUSED) + ")"), std::string::npos) << text;
  EXPECT_EQ(error.facts().error_number, ECONNREFUSED);
  // Unknown facts are left out, not printed as placeholders.
  EXPECT_EQ(text.find("step"), std::string::npos) << text;
  EXPECT_EQ(text.find("detected by"), std::string::npos) << text;
}

}  // namespace
}  // namespace ringbench
