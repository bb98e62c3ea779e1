#include "measurement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>

#include "cpu_cost.h"
#include "input_data.h"
#include "link_test.h"
#include "statistics/turn_order.h"
#include "transport/collectives/ring_allreduce.h"
#include "transport/copy_distance.h"
#include "transport/counted_run.h"
#include "verification.h"

namespace ringbench {

size_t call_count(Collective collective, uint64_t bytes, size_t element_bytes, int world) {
  size_t count = bytes / element_bytes;
  const auto n = static_cast<size_t>(world);
  return collective == Collective::AllToAll ? count / n * n : count;
}

double from_rank0(Communicator& comm, double value) {
  if (comm.size() == 1) return value;
  if (comm.rank() != 0) value = 0;  // the others contribute 0 to a max
  CollectiveCall call{DataType::Float64, ReduceOp::Max, std::as_writable_bytes(std::span(&value, 1)), 1, 0};
  ring_allreduce().run(comm, call);
  return value;
}

bool on_one_host(const Communicator& comm) {
  const std::vector<int> hosts = host_placement(comm);
  return std::all_of(hosts.begin(), hosts.end(), [&](int host) { return host == hosts.front(); });
}

Measurement::Measurement(Communicator& comm, const BenchOptions& options, uint64_t seed,
                         std::optional<CpuMeter> cpu_since)
    : comm_(comm), options_(options), seed_(seed), shared_clock_(on_one_host(comm)),
      cpu_meter_(cpu_since ? *cpu_since : CpuMeter(host_placement(comm)[static_cast<size_t>(comm.rank())])) {}

bool Measurement::back_to_back() const { return options_.timing == TimingMode::BackToBack; }

stats::StoppingRule Measurement::stopping_rule() const {
  stats::StoppingRule rule;
  // Back to back, a sample is a batch of up to kCallsPerBlock calls, itself a block.
  if (back_to_back()) rule.samples_per_block = 1;
  const auto calls = static_cast<size_t>(options_.iterations.value_or(0));
  if (options_.iterations) rule.exact_samples = back_to_back() ? (calls + stats::kCallsPerBlock - 1) / stats::kCallsPerBlock : calls;
  rule.max_seconds = options_.max_seconds_per_size;
  return rule;
}

stats::StopReason Measurement::close_block(std::span<const stats::CallStamp> block, size_t calls_per_stamp,
                                           double elapsed_seconds, SizeResult& result) {
  const auto per_call = static_cast<double>(calls_per_stamp);
  const auto gathered = comm_.gather(std::as_bytes(block), 0);
  double decision = 0;
  if (comm_.rank() == 0) {
    std::vector<std::vector<stats::CallStamp>> by_rank(gathered.size(), std::vector<stats::CallStamp>(block.size()));
    result.rank_call_us.resize(gathered.size());
    for (size_t rank = 0; rank < gathered.size(); ++rank) {
      std::memcpy(by_rank[rank].data(), gathered[rank].data(), block.size_bytes());
      for (const stats::CallStamp& stamp : by_rank[rank])
        result.rank_call_us[rank].push_back(static_cast<double>(stamp.end_ns - stamp.start_ns) / 1e3 / per_call);
    }
    for (double us : stats::collective_call_times_us(by_rank, shared_clock_)) result.call_us.push_back(us / per_call);
    decision = static_cast<double>(stats::decide_stop(stopping_rule(), result.call_us, elapsed_seconds));
  }
  return static_cast<stats::StopReason>(static_cast<int>(from_rank0(comm_, decision)));
}

struct Measurement::Contender {
  const Algorithm* algorithm = nullptr;
  bool out_of_place = false;
  SizeResult result;
  RankSample sample;
  CollectiveCall call;            // its segment is the algorithm's own (segment_choice.h)
  uint64_t formula = 0;           // the algorithm's payload formula for this rank, worked out once
  double seconds_in_calls = 0;    // inside the timed calls: this rank's mean
  double seconds_spent = 0;       // its blocks, decisions included: what --max-time limits
  std::optional<RingExchange> link;  // its link test, timed a share before each block
  stats::StopReason last = stats::StopReason::keep_going;  // rank 0's decision after its latest block
  bool done = false;
};

SizeResult Measurement::measure(const Algorithm& algorithm, uint64_t bytes) {
  const Contestant one[] = {{&algorithm, options_.placement == Placement::OutOfPlace}};
  return std::move(measure_together(one, bytes).front());
}

std::vector<SizeResult> Measurement::measure_together(std::span<const Contestant> contestants, uint64_t bytes) {
  const SizeResult shape = describe_point(contestants.front(), bytes);
  if (inputs_.size() < shape.bytes) {
    inputs_.resize(shape.bytes);
    buffer_.resize(with_copy_slack(shape.bytes));
  }
  // Out of place, the inputs are copied into the buffer in every timed call: at a distance
  // chosen, not one malloc drew (transport/copy_distance.h).
  const std::span<std::byte> inputs(inputs_.data(), shape.bytes);
  const std::span<std::byte> buffer(half_page_from(buffer_.data(), inputs_.data()), shape.bytes);
  fill_inputs(inputs, options_.inputs, seed_, options_.op, options_.dtype, comm_.rank(), shape.count);
  std::vector<Contender> contenders(contestants.size());
  for (size_t i = 0; i < contestants.size(); ++i) {
    Contender& contender = contenders[i];
    contender.algorithm = contestants[i].algorithm;
    contender.out_of_place = contestants[i].out_of_place;
    contender.result = describe_point(contestants[i], bytes);
    contender.call = {options_.dtype, options_.op, buffer, shape.count, options_.root,
                      contender.result.tuning.segment_bytes};
    contender.formula = expected_payload(comm_, *contender.algorithm, contender.call);
    warm_up(contender, inputs);
  }
  // Turns: one block each, in a fresh order every round that every rank draws alike
  // (statistics/turn_order.h), until all stop together (stats::leaves_the_turns); one that leaves is
  // finished at once, while the buffer holds its result.
  for (size_t left = contenders.size(), round = 0; left > 0; ++round)
    for (size_t turn : stats::turn_order(contenders.size(), seed_ + 1000003 * bytes + round)) {
      Contender& contender = contenders[turn];
      if (contender.done) continue;
      contender.last = run_block(contender, inputs);
      if (!leaves_the_turns(contender, contenders)) continue;
      finish(contender, inputs);
      contender.done = true;
      --left;
    }
  std::vector<SizeResult> results;
  for (Contender& contender : contenders) results.push_back(std::move(contender.result));
  return results;
}

bool Measurement::leaves_the_turns(const Contender& contender, std::span<const Contender> all) {
  const bool another_needs_calls = std::any_of(all.begin(), all.end(), [&](const Contender& other) {
    return &other != &contender && !other.done && other.last == stats::StopReason::keep_going;
  });
  const bool leaves = stats::leaves_the_turns(contender.last, contender.seconds_spent, options_.max_seconds_per_size,
                                              another_needs_calls);
  if (contender.last != stats::StopReason::ci || !another_needs_calls) return leaves;
  // Only here does the answer turn on the time spent, which each rank clocks for itself: rank 0's
  // answer, as for the stop decision, or one rank would leave the turns alone and the others wait.
  return from_rank0(comm_, leaves ? 1.0 : 0.0) != 0;
}

SizeResult Measurement::describe_point(const Contestant& contestant, uint64_t bytes) const {
  const Algorithm& algorithm = *contestant.algorithm;
  const size_t element_bytes = element_size(options_.dtype);
  const int world = comm_.size();
  SizeResult result;
  result.in_place = !contestant.out_of_place;
  result.root = options_.root;
  result.collective = algorithm.collective();
  result.algorithm = std::string(algorithm.name());
  result.chosen = result.algorithm;
  result.bytes_counted = algorithm.bytes_counted();
  result.count = call_count(result.collective, bytes, element_bytes, world);
  result.bytes = result.count * element_bytes;
  if (result.bytes_counted) {
    result.tuning = transport_tuning(comm_);
    result.tuning.segment_bytes = segments_.bytes_for(algorithm, world, result.bytes);
  }
  return result;
}

void Measurement::prepare(const Contender& contender, std::span<const std::byte> inputs) {
  if (!contender.out_of_place) std::memcpy(contender.call.buffer.data(), inputs.data(), inputs.size());
  comm_.barrier();
}

CountedRun Measurement::counted_call(const Contender& contender, std::span<const std::byte> inputs) {
  const CollectiveCall& call = contender.call;
  // Out of place, copying the inputs from the input buffer to the output buffer is part of the
  // call, as with a separate receive buffer; in place they are restored outside the timed region.
  const auto copy_inputs = [&] { std::memcpy(call.buffer.data(), inputs.data(), inputs.size()); };
  const std::function<void()> timed_copy = contender.out_of_place ? std::function<void()>(copy_inputs) : nullptr;
  return run_counted(comm_, *contender.algorithm, call, contender.formula, timed_copy);
}

void Measurement::warm_up(Contender& contender, std::span<const std::byte> inputs) {
  for (int i = 0; i < options_.warmup; ++i) {
    prepare(contender, inputs);
    counted_call(contender, inputs);
  }
  contender.result.warmup = options_.warmup;
}

stats::StopReason Measurement::run_block(Contender& contender, std::span<const std::byte> inputs) {
  const size_t calls = calls_in_next_block(contender.result);
  time_link_share(contender, calls);
  const auto started = std::chrono::steady_clock::now();
  std::vector<stats::CallStamp> block;
  if (back_to_back()) prepare(contender, inputs);
  for (size_t i = 0; i < calls; ++i) {
    if (!back_to_back()) prepare(contender, inputs);
    const ProcessCpu cpu_before = read_process_cpu();
    const CountedRun counted = counted_call(contender, inputs);
    const ProcessCpu cpu = read_process_cpu() - cpu_before;
    contender.sample.call_cpu_seconds += cpu.cpu_seconds;
    contender.sample.call_context_switches += cpu.context_switches;
    if (back_to_back() && i > 0) block.back().end_ns = counted.end_ns;  // one stamp for the batch
    else block.push_back({counted.start_ns, counted.end_ns});
    contender.seconds_in_calls += counted.seconds;
    account_bytes(counted, contender.sample);
  }
  contender.result.iterations += static_cast<int>(calls);
  const auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  const stats::StopReason reason =
      close_block(block, back_to_back() ? calls : 1, contender.seconds_spent + since_start(), contender.result);
  contender.seconds_spent += since_start();
  contender.result.stop_reason = stats::stop_reason_name(reason);
  return reason;
}

void Measurement::finish(Contender& contender, std::span<const std::byte> inputs) {
  SizeResult& result = contender.result;
  RankSample& sample = contender.sample;
  sample.mean_us = contender.seconds_in_calls / result.iterations * 1e6;
  if (comm_.rank() == 0) result.time = stats::summarize_calls(result.call_us, stopping_rule().samples_per_block);
  // Back to back in place, each call reduced the last one's result: one more call from the inputs,
  // untimed, leaves the result verification expects.
  if (back_to_back() && !contender.out_of_place) {
    prepare(contender, inputs);
    account_bytes(counted_call(contender, inputs), sample);
  }
  if (options_.verify) record_verification(result, contender.call, &sample);
  if (contender.link) sample.link_us = contender.link->median_chunk_seconds() * 1e6;
  sample.cpu = cpu_meter_.read();
  result.ranks = gather_samples(sample);
  if (comm_.rank() == 0) withhold_interval_if_contended(result);
}

size_t Measurement::calls_in_next_block(const SizeResult& result) const {
  if (!options_.iterations) return stats::kCallsPerBlock;
  const auto done = static_cast<size_t>(result.iterations);
  return std::min(stats::kCallsPerBlock, static_cast<size_t>(*options_.iterations) - done);
}

void Measurement::account_bytes(const CountedRun& counted, RankSample& sample) {
  sample.payload_sent = counted.moved.payload_sent;
  sample.overhead_sent = counted.moved.overhead_sent;
  sample.expected_payload = counted.expected_payload;
  sample.bytes_mismatches += counted.bytes_ok() ? 0 : 1;
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

void Measurement::time_link_share(Contender& contender, size_t calls) {
  if (!options_.link_test || comm_.size() == 1) return;
  if (!contender.link) {
    const auto n = static_cast<size_t>(comm_.size());
    const uint64_t chunk = (contender.result.count + n - 1) / n * element_size(options_.dtype);
    // As many back-to-back exchanges as a ring all-reduce makes: 2(N-1). Its chunk slots reuse
    // the collective's buffer, which every call restores or overwrites: no extra 1x message of
    // memory, and the block that follows leaves the result verification reads.
    contender.link.emplace(comm_, chunk, 2 * (comm_.size() - 1), std::span<std::byte>(buffer_));
  }
  contender.link->time(link_repetitions_before_block(contender.link->timed(), calls));
}

int link_repetitions_before_block(int done, size_t calls) {
  const int block = static_cast<int>(std::min<size_t>(calls, kMaxLinkRepetitions));
  return std::max(1, std::min(block, kMaxLinkRepetitions - done));
}

void Measurement::withhold_interval_if_contended(SizeResult& result) {
  std::vector<CpuReading> readings;
  for (const RankSample& s : result.ranks) readings.push_back(s.cpu);
  result.foreign_cpu_share = contention_.add(std::move(readings));
  result.contended = result.foreign_cpu_share > kForeignCpuShareLimit;
  if (result.contended) result.time.ci95.reset();
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

TransportTuning transport_tuning(const Communicator& comm) {
  return {comm.pipeline_piece(1), comm.write_slice_bytes(), static_cast<double>(comm.spin().count()),
          int64_t{comm.streams()}, int64_t{comm.stream_threads()}};
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
double SizeResult::cpu_s_per_GB(int world) const {
  double cpu = 0;
  for (const auto& s : ranks) cpu += s.call_cpu_seconds;
  const double gigabytes = bound_bytes(world) * static_cast<double>(ranks.size()) * iterations / 1e9;
  return gigabytes > 0 ? cpu / gigabytes : std::nan("");
}
double SizeResult::ctx_switches_per_call() const {
  uint64_t switches = 0;
  for (const auto& s : ranks) switches += s.call_context_switches;
  return iterations > 0 ? static_cast<double>(switches) / iterations : std::nan("");
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
