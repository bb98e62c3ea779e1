#include "workload.h"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "error.h"
#include "input_limits.h"
#include "json_fields.h"
#include "units.h"

namespace ringbench::model {
namespace {

// GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288, 96 heads, context 2048,
// GPT-2 BPE vocabulary padded to 51,200 as in Megatron-LM. Parameters by Narayanan et al. 2021,
// eq. 2: 174.6e9.
Transformer gpt3_175b() {
  Transformer m;
  m.name = "gpt3-175b";
  m.description = "GPT-3 175B: 96 layers, hidden 12288, 96 heads, seq 2048, vocab 51200";
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.vocab = 51200;
  m.sequence = 2048;
  m.flash_attention = false;  // as trained in 2020-2021; Megatron-LM 2021 stores the softmax
  return m;
}

// Megatron-LM 2021 Figure 13's model (examples/academic_paper_scripts/sc21/run_figure_13.sh):
// 32 layers, hidden 20480, 128 heads, seq 2048, vocab 51200 (162.2e9 parameters).
Transformer megatron_162b() {
  Transformer m = gpt3_175b();
  m.name = "megatron-162b";
  m.description = "Megatron-LM 2021 Fig. 13 GPT: 32 layers, hidden 20480, 128 heads, seq 2048";
  m.layers = 32;
  m.hidden = 20480;
  m.heads = 128;
  return m;
}

// Llama 2 70B (Touvron et al. 2023; HF config): 80 layers, hidden 8192, 64 heads, 8 KV heads,
// SwiGLU ffn 28672, vocab 32000, seq 4096, untied output, RoPE, RMSNorm, no biases.
Transformer llama2_70b() {
  Transformer m;
  m.name = "llama2-70b";
  m.description = "Llama 2 70B: 80 layers, hidden 8192, 64 heads (8 KV), SwiGLU 28672, seq 4096, vocab 32000";
  m.layers = 80;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.ffn_hidden = 28672;
  m.gated_mlp = true;
  m.biases = false;
  m.learned_positions = false;
  m.tied_embeddings = false;
  m.vocab = 32000;
  m.sequence = 4096;
  m.grad_reduce_bytes = 4;
  m.dropout = false;  // Llama trains without dropout
  return m;
}

// Llama 3 405B (Llama 3 Herd of Models, 2024, Table 3): 126 layers, hidden 16384, ffn 53248,
// 128 heads, 8 KV heads, vocab 128,000, pre-training sequence 8192.
Transformer llama3_405b() {
  Transformer m = llama2_70b();
  m.name = "llama3-405b";
  m.description = "Llama 3 405B: 126 layers, hidden 16384, 128 heads (8 KV), SwiGLU 53248, seq 8192, vocab 128000";
  m.layers = 126;
  m.hidden = 16384;
  m.heads = 128;
  m.kv_heads = 8;
  m.ffn_hidden = 53248;
  m.vocab = 128000;
  m.sequence = 8192;
  return m;
}

// Mixtral-8x7B-like MoE (Jiang et al. 2024): 32 layers, hidden 4096, 32 heads (8 KV), 8 experts
// of SwiGLU 14336, top-2, vocab 32000, seq 4096. For EP sweeps.
Transformer mixtral_8x7b() {
  Transformer m = llama2_70b();
  m.name = "mixtral-8x7b";
  m.description = "Mixtral-8x7B-like MoE: 32 layers, hidden 4096, 8 experts top-2, SwiGLU 14336, seq 4096";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn_hidden = 14336;
  m.experts = 8;
  m.top_k = 2;
  m.sequence = 4096;
  return m;
}

const std::vector<std::pair<std::string, std::function<Transformer()>>>& table() {
  static const std::vector<std::pair<std::string, std::function<Transformer()>>> t = {
      {"gpt3-175b", gpt3_175b},     {"llama2-70b", llama2_70b}, {"llama3-405b", llama3_405b},
      {"mixtral-8x7b", mixtral_8x7b}, {"megatron-162b", megatron_162b},
  };
  return t;
}

using json_fields::Fields;
using nlohmann::json;

void read_fields(Fields& f, Transformer& m) {
  f.string("name", m.name);
  f.string("description", m.description);
  f.count("layers", m.layers, limits::kMaxLayers);
  f.count("hidden", m.hidden, limits::kMaxHidden);
  f.count("heads", m.heads, limits::kMaxHidden);
  f.integer("kv_heads", m.kv_heads, 0, limits::kMaxHidden);         // 0: = heads
  f.integer("ffn_hidden", m.ffn_hidden, 0, limits::kMaxFfnHidden);  // 0: 4 x hidden
  f.boolean("gated_mlp", m.gated_mlp);
  f.boolean("biases", m.biases);
  f.boolean("learned_positions", m.learned_positions);
  f.boolean("tied_embeddings", m.tied_embeddings);
  f.count("vocab", m.vocab, limits::kMaxVocab);
  f.count("sequence", m.sequence, limits::kMaxSequence);
  f.count("experts", m.experts, limits::kMaxExperts);
  f.count("top_k", m.top_k, limits::kMaxExperts);
  f.positive("bytes_per_activation", m.bytes_per_activation, limits::kMaxBytesPerValue);
  f.positive("grad_reduce_bytes", m.grad_reduce_bytes, limits::kMaxBytesPerValue);
  f.boolean("flash_attention", m.flash_attention);
  f.boolean("dropout", m.dropout);
}

// Each field is in range; these bound what the fields make together, so that no byte count the
// step model forms from them overflows (input_limits.h).
void check_products(const Transformer& m) {
  if (!(m.params() <= limits::kMaxParams)) {
    throw InputError(fmt::format("the model has {:.3g} parameters, more than the limit of {:.0e}", m.params(), limits::kMaxParams));
  }
  const double sequence_bytes = static_cast<double>(m.sequence) * m.hidden * m.bytes_per_activation * m.top_k;
  if (sequence_bytes > limits::kMaxSequenceBytes) {
    throw InputError(fmt::format("sequence x hidden x bytes_per_activation x top_k = {:.3g} bytes, more than the limit of {:.0e}",
                                 sequence_bytes, limits::kMaxSequenceBytes));
  }
}

Transformer parse(const json& doc) {
  Fields f(doc, "");
  std::string base;
  f.string("base", base);
  Transformer m = base.empty() ? Transformer{} : workload_preset(base);
  read_fields(f, m);
  f.reject_unknown();
  if (m.name.empty()) m.name = "custom";
  validate(m);
  check_products(m);
  return m;
}

}  // namespace

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "?";
}

Recompute parse_recompute(std::string_view text, std::string_view flag) {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
    if (text == to_string(r)) return r;
  }
  throw InputError(fmt::format("{}: '{}' is not none, selective or full", flag, text));
}

double Transformer::attention_params() const {
  const double h = hidden;
  const double w = 2 * h * h + 2 * h * kv_dim();  // Q, O and K, V
  return w + (biases ? 2 * h + 2 * kv_dim() : 0.0);
}

double Transformer::expert_params() const {
  if (experts <= 1) return 0.0;
  return mlp_params() - static_cast<double>(hidden) * experts;  // everything but the router
}

double Transformer::mlp_params() const {
  const double h = hidden, f = ffn();
  const double one = (gated_mlp ? 3.0 : 2.0) * h * f + (biases ? f + h : 0.0);
  return experts > 1 ? experts * one + h * experts : one;
}

double Transformer::layer_params() const {
  const double norms = 2.0 * hidden * (biases ? 2 : 1);
  return attention_params() + mlp_params() + norms;
}

double Transformer::embedding_params() const {
  const double v = static_cast<double>(vocab) * hidden;
  return v * (tied_embeddings ? 1 : 2) + (learned_positions ? static_cast<double>(sequence) * hidden : 0.0);
}

double Transformer::params() const { return layers * layer_params() + embedding_params(); }

double Transformer::layer_matmul_flops_per_token() const {
  const double h = hidden, f = ffn();
  const double attention = 2 * h * h + 2 * h * kv_dim();
  const double mlp = (gated_mlp ? 3.0 : 2.0) * h * f * (experts > 1 ? top_k : 1);
  return 2 * (attention + mlp);
}

double Transformer::attention_flops_per_token() const { return 4.0 * sequence * hidden; }

double Transformer::logits_flops_per_token() const { return 2.0 * hidden * vocab; }

double Transformer::model_flops_per_token() const {
  return 3 * (layers * (layer_matmul_flops_per_token() + attention_flops_per_token()) + logits_flops_per_token());
}

double Transformer::hardware_flops_per_token(Recompute r) const {
  const double layer = layer_matmul_flops_per_token() + attention_flops_per_token();
  switch (r) {
    case Recompute::None: return model_flops_per_token();
    case Recompute::Selective: return model_flops_per_token() + layers * attention_flops_per_token();
    case Recompute::Full: return model_flops_per_token() + layers * layer;
  }
  return model_flops_per_token();
}

void validate(const Transformer& m) {
  auto positive = [](const char* field, double v) {
    if (!(v > 0)) throw InputError(fmt::format("{} must be > 0, got {}", field, v));
  };
  positive("layers", m.layers);
  positive("hidden", m.hidden);
  positive("heads", m.heads);
  positive("vocab", m.vocab);
  positive("sequence", m.sequence);
  positive("experts", m.experts);
  positive("top_k", m.top_k);
  positive("bytes_per_activation", m.bytes_per_activation);
  positive("grad_reduce_bytes", m.grad_reduce_bytes);
  if (m.kv_heads < 0 || m.ffn_hidden < 0) throw InputError("kv_heads and ffn_hidden must be >= 0 (0 = default)");
  if (m.hidden % m.heads != 0) throw InputError(fmt::format("heads {} must divide hidden {}", m.heads, m.hidden));
  if (m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    throw InputError(fmt::format("kv_heads {} must divide heads {}", m.kv_heads, m.heads));
  }
  if (m.top_k > m.experts) throw InputError(fmt::format("top_k {} exceeds experts {}", m.top_k, m.experts));
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : table()) names.push_back(name);
  return names;
}

Transformer workload_preset(std::string_view name) {
  if (name == "llama-70b") name = "llama2-70b";
  for (const auto& [n, make] : table()) {
    if (n == name) return make();
  }
  throw InputError(fmt::format("--model: unknown workload '{}' (known: {}; or a path to a .json file)", name,
                               fmt::join(workload_names(), ", ")));
}

Transformer resolve_workload(std::string_view name_or_path) {
  if (name_or_path.find('/') == std::string_view::npos && !name_or_path.ends_with(".json")) {
    return workload_preset(name_or_path);
  }
  const std::string path(name_or_path);
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("--model: cannot open {}", path));
  std::stringstream text;
  text << in.rdbuf();
  return workload_from_json(text.str(), path);
}

Transformer workload_from_json(const std::string& text, const std::string& source) {
  const std::string where = fmt::format("--model {}", source);
  const json doc = json_fields::parse_document(text, where);
  try {
    return parse(doc);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where, e.what()));
  }
}

std::string workload_to_json(const Transformer& m) {
  json j = {{"name", m.name},
            {"layers", m.layers},
            {"hidden", m.hidden},
            {"heads", m.heads},
            {"kv_heads", m.kv_heads},
            {"ffn_hidden", m.ffn_hidden},
            {"gated_mlp", m.gated_mlp},
            {"biases", m.biases},
            {"learned_positions", m.learned_positions},
            {"tied_embeddings", m.tied_embeddings},
            {"vocab", m.vocab},
            {"sequence", m.sequence},
            {"experts", m.experts},
            {"top_k", m.top_k},
            {"bytes_per_activation", m.bytes_per_activation},
            {"grad_reduce_bytes", m.grad_reduce_bytes},
            {"flash_attention", m.flash_attention},
            {"dropout", m.dropout}};
  return j.dump();
}

namespace {
// nvidia-smi's total memory, MiB (2^20 bytes), in GB (1e9 bytes).
constexpr double mib_in_GB(double mib) { return mib * 1048576.0 / kBytesPerGB; }
}  // namespace

GpuSpec gpu_spec(std::string_view gpu) {
  // Dense (no sparsity) 16-bit tensor-core peaks from NVIDIA's datasheets: A100 SXM 312 TFLOP/s,
  // H100 SXM 989, H200 989, B200 2,250, L40S 362 TFLOP/s.
  // Memory: what the driver reports as the device's total, since that is what a run can use. An
  // "80 GB" A100 or H100 holds 80 GiB-class memory, not 80e9 bytes: nvidia-smi shows 81,920 MiB
  // on an A100 80 GB (85.9 GB), 81,559 MiB on an H100 80 GB HBM3 (85.5 GB) and 46,068 MiB on an
  // L40S (48.3 GB) (modal-labs/modal-client#2797; the H100's 81,559 MiB also in NVIDIA/nccl#1264).
  // Reading "80 GB" as 80e9 bytes understated them by 7%. H200 (141 GB) and B200 (180 GB; DGX
  // B200: 1,440 GB for 8) keep the datasheet figure: no driver total for them is cited here, so
  // they are if anything understated. "test" is the hand-sized test GPU: 100 TFLOP/s, 80 GB.
  static const std::vector<GpuSpec> specs = {{"A100", 312, mib_in_GB(81920)}, {"H100", 989, mib_in_GB(81559)},
                                             {"H200", 989, 141},              {"B200", 2250, 180},
                                             {"L40S", 362, mib_in_GB(46068)}, {"test", 100, 80}};
  for (const auto& s : specs) {
    if (s.name == gpu) return s;
  }
  throw InputError(fmt::format("cluster gpu '{}' has no compute spec (known: A100, H100, H200, B200, L40S)", gpu));
}

}  // namespace ringbench::model
