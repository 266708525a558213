// FlashAttention (Dao et al. 2022; the FlashAttention-2 loop order): exact softmax attention
// without the L_Q x L_K matrix, one tile of queries x keys at a time, with the online softmax.
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H_kv, E), v (B, L_K, H_kv, D) (H_kv divides H: GQA/MQA,
// s_j below with ALiBi's bias added when given); key blocks of block_k keys,
// T = ceil(L_K / block_k), block t = keys [t block_k, min((t+1) block_k, L_K)); query blocks of
// block_q queries (they change the order of the work, not one number of the result).
//
// For each (b, h) and query i, with s_j = scale * q_i . k_j (masked keys: the fill, or skipped
// when the fill is -inf, as `full` does), over the key blocks t = 0 .. T-1:
//   1. s_j                                          for j in block t
//   2. m_t = max(m_{t-1}, max_{j in t} s_j)         running max          (m_{-1} = -inf)
//   3. a_t = exp(m_{t-1} - m_t)                     how much the past shrinks (0 after m_{-1})
//   4. l_t = a_t l_{t-1} + sum_{j in t} exp(s_j - m_t)              running sum  (l_{-1} = 0)
//   5. O_t = a_t O_{t-1} + sum_{j in t} exp(s_j - m_t) v_j          unnormalised context (D)
//   6. context_i = O_{T-1} / l_{T-1}    = softmax(s) V exactly (full's context to 1e-12);
//      l = 0 (no allowed key under -inf) gives 0 and a warning, as `full` does.
// By induction l_t = sum_{j <= block t} exp(s_j - m_t) and O_t = sum_{j <= block t} exp(s_j - m_t) v_j.
//
// Trace (TraceLevel::full): running_max m, running_sum l (B, H, L_Q, T) and partial_context O
// (B, H, T, L_Q, D) after each key block, and context (B, L_Q, H, D). A running max of -inf (no
// allowed key yet) is shown as kNoKeyYet (JSON has no infinities). TraceLevel::context: the
// context only, the recorder absent (the fast path, with the caller's block sizes).
#include "flash_attention.hpp"

namespace attnplay {

namespace {

struct FlashRecorder : KeyBlockRecorder {
  Tensor running_max, running_sum, partial_context;
  void record(std::size_t b, std::size_t h, std::size_t i, std::size_t t, double m, double l, const double* O,
              std::size_t D) override {
    running_max(b, h, i, t) = std::isinf(m) && m < 0 ? kNoKeyYet : m;
    running_sum(b, h, i, t) = l;
    std::copy(O, O + D, &partial_context(b, h, t, i, 0));
  }
};

}  // namespace

Trace flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                      std::size_t block_q, std::size_t block_k, TraceLevel level, Dtype dtype,
                      const std::vector<double>& alibi_slopes) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const std::size_t T = (L_K + block_k - 1) / block_k;
  FlashRecorder recorder;
  AttentionOptions options;
  options.dtype = dtype;
  options.block_q = block_q;
  options.block_k = block_k;
  options.alibi_slopes = alibi_slopes;  // (k and v may have fewer heads: GQA, the kernel's index)
  if (level == TraceLevel::full) {
    recorder.running_max = xt::zeros<double>({B, H, L_Q, T});
    recorder.running_sum = xt::zeros<double>({B, H, L_Q, T});
    recorder.partial_context = xt::zeros<double>({B, H, T, L_Q, D});
    options.recorder = &recorder;
  }
  Tensor context;
  EmptyRowWarnings empty_rows;
  const std::uint64_t pairs = attend(q, k, v, scale, mask, options, context, empty_rows);

  Trace trace;
  if (level == TraceLevel::full) {
    trace.set("running_max", std::move(recorder.running_max));
    trace.set("running_sum", std::move(recorder.running_sum));
    trace.set("partial_context", std::move(recorder.partial_context));
  }
  trace.set("context", std::move(context));
  trace.set("block_q", static_cast<std::int64_t>(block_q));
  trace.set("block_k", static_cast<std::int64_t>(block_k));
  trace.set("num_key_blocks", static_cast<std::int64_t>(T));
  const std::uint64_t dense = std::uint64_t{B} * H * L_Q * L_K;
  trace.cost = {pairs, dense, 2 * pairs * (E + D)};
  empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
