#include "measurement.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "input_data.h"
#include "link_test.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/counted_run.h"
#include "verification.h"

namespace ringbench {

std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, size_t element_bytes) {
  std::vector<uint64_t> sizes;
  auto add = [&](uint64_t bytes) {
    bytes = bytes / element_bytes * element_bytes;
    if (bytes >= element_bytes && (sizes.empty() || sizes.back() != bytes)) sizes.push_back(bytes);
  };
  add(min_bytes);
  uint64_t power = 1;
  while (power <= min_bytes) power <<= 1;
  for (; power < max_bytes; power <<= 1) add(power);
  if (max_bytes > min_bytes) add(max_bytes);
  return sizes;
}

size_t call_count(Collective collective, uint64_t bytes, size_t element_bytes, int world) {
  size_t count = bytes / element_bytes;
  const auto n = static_cast<size_t>(world);
  return collective == Collective::AllToAll ? count / n * n : count;
}

Measurement::Measurement(Communicator& comm, const BenchOptions& options, uint64_t seed)
    : comm_(comm), options_(options), seed_(seed) {}

int Measurement::agree_iterations(double warmup_seconds_per_call) {
  int iterations = options_.iterations;
  double slowest = warmup_seconds_per_call;
  if (comm_.size() > 1) {
    CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(&slowest, 1)), 1, 0};
    ring_allreduce().run(comm_, call);
  }
  if (options_.max_seconds_per_size > 0 && slowest > 0) {
    double fit = options_.max_seconds_per_size / slowest;
    if (fit < iterations) iterations = std::max(1, static_cast<int>(fit));
  }
  return iterations;
}

SizeResult Measurement::measure(const Algorithm& algorithm, uint64_t bytes) {
  SizeResult result = describe_point(algorithm, bytes, comm_.size(), element_size(options_.dtype));
  if (inputs_.size() < result.bytes) {
    inputs_.resize(result.bytes);
    buffer_.resize(result.bytes);
  }
  const std::span<std::byte> inputs(inputs_.data(), result.bytes), buffer(buffer_.data(), result.bytes);
  fill_inputs(inputs, options_.inputs, seed_, options_.op, options_.dtype, comm_.rank(), result.count);
  const CollectiveCall call{options_.dtype, options_.op, buffer, result.count, 0};

  RankSample sample = time_calls(algorithm, call, inputs, result);
  if (options_.verify) record_verification(result, call, &sample);
  if (options_.link_test && comm_.size() > 1) sample.link_us = link_us(result);
  result.ranks = gather_samples(sample);
  return result;
}

SizeResult Measurement::describe_point(const Algorithm& algorithm, uint64_t bytes, int world, size_t element_bytes) {
  SizeResult result;
  result.collective = algorithm.collective();
  result.algorithm = std::string(algorithm.name());
  result.chosen = result.algorithm;
  result.bytes_counted = algorithm.bytes_counted();
  result.count = call_count(result.collective, bytes, element_bytes, world);
  result.bytes = result.count * element_bytes;
  return result;
}

RankSample Measurement::time_calls(const Algorithm& algorithm, const CollectiveCall& call,
                                   std::span<const std::byte> inputs, SizeResult& result) {
  // In place, the inputs are restored outside the timed region; out of place, copying them from
  // the input buffer to the output buffer is part of the call, as with a separate receive buffer.
  // Only the call is timed: the formula is worked out once, and the counters are read around it.
  const uint64_t formula = expected_payload(comm_, algorithm, call);
  const auto copy_inputs = [&] { std::memcpy(call.buffer.data(), inputs.data(), inputs.size()); };
  const std::function<void()> timed_copy = options_.out_of_place ? std::function<void()>(copy_inputs) : nullptr;
  auto one_call = [&] {
    if (!options_.out_of_place) copy_inputs();
    comm_.barrier();
    return run_counted(comm_, algorithm, call, formula, timed_copy);
  };

  double warm_total = 0;
  for (int i = 0; i < options_.warmup; ++i) warm_total += one_call().seconds;
  double warm_mean = options_.warmup > 0 ? warm_total / options_.warmup : 0.0;
  result.warmup = options_.warmup;
  result.iterations = agree_iterations(warm_mean);

  RankSample sample;
  double total = 0;
  for (int i = 0; i < result.iterations; ++i) {
    const CountedRun counted = one_call();
    total += counted.seconds;
    sample.payload_sent = counted.moved.payload_sent;
    sample.overhead_sent = counted.moved.overhead_sent;
    sample.expected_payload = counted.expected_payload;
    sample.bytes_mismatches += counted.bytes_ok() ? 0 : 1;
  }
  sample.mean_us = total / result.iterations * 1e6;
  return sample;
}

void Measurement::record_verification(const SizeResult& result, const CollectiveCall& call, RankSample* sample) const {
  const VerifyOutcome outcome = verify_result(result.collective, call.buffer, result.count, options_.dtype, options_.op,
                                              options_.inputs, seed_, comm_.rank(), comm_.size(), call.root);
  sample->checked = outcome.checked;
  sample->wrong = outcome.wrong;
  sample->first_wrong_index = outcome.first_wrong_index;
  sample->expected = outcome.expected;
  sample->got = outcome.got;
  sample->max_abs_error = outcome.max_abs_error;
  sample->hash = outcome.hash;
}

double Measurement::link_us(const SizeResult& result) {
  const auto n = static_cast<size_t>(comm_.size());
  const uint64_t chunk = (result.count + n - 1) / n * element_size(options_.dtype);
  // As many back-to-back exchanges as a ring all-reduce makes: 2(N-1).
  // Its chunk slots reuse the collective's buffer, already verified: no extra 1x message of memory.
  return ring_exchange_seconds(comm_, chunk, result.iterations, 2 * (comm_.size() - 1), buffer_) * 1e6;
}

std::vector<RankSample> Measurement::gather_samples(const RankSample& sample) {
  std::vector<RankSample> samples;
  for (const auto& bytes_of_rank : comm_.gather(std::as_bytes(std::span(&sample, 1)), 0)) {
    RankSample s;
    std::memcpy(&s, bytes_of_rank.data(), sizeof s);
    samples.push_back(s);
  }
  return samples;
}

double SizeResult::t_avg_us() const {
  double sum = 0;
  for (const auto& s : ranks) sum += s.mean_us;
  return ranks.empty() ? 0 : sum / static_cast<double>(ranks.size());
}
double SizeResult::t_min_us() const {
  double v = INFINITY;
  for (const auto& s : ranks) v = std::min(v, s.mean_us);
  return v;
}
double SizeResult::t_max_us() const {
  double v = 0;
  for (const auto& s : ranks) v = std::max(v, s.mean_us);
  return v;
}
uint64_t SizeResult::sent_min() const {
  uint64_t v = UINT64_MAX;
  for (const auto& s : ranks) v = std::min(v, s.payload_sent);
  return ranks.empty() ? 0 : v;
}
uint64_t SizeResult::sent_max() const {
  uint64_t v = 0;
  for (const auto& s : ranks) v = std::max(v, s.payload_sent);
  return v;
}
uint64_t SizeResult::overhead_max() const {
  uint64_t v = 0;
  for (const auto& s : ranks) v = std::max(v, s.overhead_sent);
  return v;
}
double SizeResult::bound_bytes(int world) const { return lower_bound_bytes(collective, world, bytes); }
double SizeResult::link_bound_us(int world) const {
  if (world <= 1 || ranks.empty()) return 0;
  double link_us = 0;
  for (const auto& s : ranks) link_us = std::max(link_us, s.link_us);  // the slowest link paces a ring
  if (link_us <= 0) return 0;
  const double chunk = static_cast<double>((count + static_cast<size_t>(world) - 1) / static_cast<size_t>(world) *
                                           (count ? bytes / count : 0));
  return chunk > 0 ? bound_bytes(world) / (chunk / link_us) : 0;
}
uint64_t SizeResult::wrong() const {
  uint64_t total = 0;
  for (const auto& s : ranks) total += s.wrong;
  if (result_is_replicated(collective))
    for (const auto& s : ranks) total += s.hash != ranks.front().hash ? 1 : 0;
  return total;
}
bool SizeResult::bytes_ok() const {
  if (!bytes_counted) return true;
  for (const auto& s : ranks)
    if (s.bytes_mismatches != 0 || s.payload_sent != s.expected_payload) return false;
  return true;
}
const RankSample* SizeResult::first_wrong_rank(int* rank) const {
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].wrong) {
      *rank = static_cast<int>(i);
      return &ranks[i];
    }
  return nullptr;
}

}  // namespace ringbench
