// The fused attention kernel: softmax(mask(scale Q K^T)) V computed tile by tile with the online
// softmax (FlashAttention), in float64 or float32, with 128-bit SIMD. The one kernel behind `full`'s
// context, `flash` (which records what it does), and every `exact_context` (through full_attention).
//
//   q (B, L_Q, H, E), k (B, L_K, H_kv, E), v (B, L_K, H_kv, D)  ->  context (B, L_Q, H, D)
//
// H_kv divides H (GQA; H_kv = 1 is MQA, H_kv = H plain multi-head): query head h reads kv head
// h / (H / H_kv) by index (kv_head, tensor.hpp), so the repeated k and v of Llama's repeat_kv never
// exist. Per (b, h), for key blocks t = 0 .. T-1 of block_k keys (T = ceil(L_K / block_k)) and each query i:
//   1. s_j   = scale * q_i . k_j (+ bias_h(i, j))       for the keys j of block t (allowed ones only
//                                                       under a sparse mask; a finite fill otherwise);
//                                                       ALiBi's bias -slope_h |i - j| computed in the
//                                                       pass, no L_Q x L_K tensor
//   2. m_t   = max(m_{t-1}, max_j s_j)                  running max,  m_{-1} = -inf
//   3. a_t   = exp(m_{t-1} - m_t)                       rescaling of what came before (0 when m_{-1})
//   4. l_t   = a_t l_{t-1} + sum_j exp(s_j - m_t)       running sum,  l_{-1} = 0
//   5. O_t   = a_t O_{t-1} + sum_j exp(s_j - m_t) v_j   unnormalised context (D), O_{-1} = 0
//   6. context_i = O_{T-1} / l_{T-1}                    (l = 0: no allowed key: 0 and a warning)
// No L_Q x L_K matrix exists: a (block_q x block_k) tile of scores at a time. The tiles' products
// are register-blocked 4 queries x 2 vectors (simd.hpp: SSE2 natively, SIMD128 in wasm), every sum
// runs over e (scores) or j (context) in order, so native and wasm do the same arithmetic in the
// same order; exp is our own polynomial (simd.hpp) for the same reason. block_q changes no number
// (rows are independent; the kernel rounds it up to the register block); block_k is where the
// running max and sum step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention_rows.hpp"
#include "mask.hpp"
#include "tensor.hpp"

namespace attnplay {

enum class Dtype { float64, float32 };

// Sees each query's state after each key block (flash's trace); absent on the fast path.
struct KeyBlockRecorder {
  virtual ~KeyBlockRecorder() = default;
  // After key block t of (b, h): query i's running max m (-inf while no allowed key was seen),
  // running sum l and unnormalised context O (D numbers).
  virtual void record(std::size_t b, std::size_t h, std::size_t i, std::size_t t, double m, double l,
                      const double* O, std::size_t D) = 0;
};

struct AttentionOptions {
  Dtype dtype = Dtype::float64;
  std::size_t block_q = 0, block_k = 0;  // 0: the kernel's own tile sizes
  KeyBlockRecorder* recorder = nullptr;
  std::vector<double> alibi_slopes;  // ALiBi (alibi.hpp): one slope per query head, or empty (no bias)
};

// Writes context (B, L_Q, H, D) (shaped here); returns the (query, key) pairs computed (the allowed
// ones under a sparse mask); rows with no allowed key go to `empty`. A score that is not finite
// throws as score_row does (float32: an InputError on "dtype" when only float32 overflows).
std::uint64_t attend(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                     const AttentionOptions& options, Tensor& context, EmptyRowWarnings& empty);

// One query row (b, i, h) against every key, float64, through the same update (one key block):
// scores[j] = scale q_i . k_j (before the mask), weights[j] = softmax of the masked scores,
// context[0..D) = sum_j weights[j] v_j. Returns false (weights and context 0) when every key is
// masked with -inf. For callers that pick single rows (ProbAttention's top queries).
bool attend_row(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask, std::size_t b,
                std::size_t i, std::size_t h, double* scores, double* weights, double* context);

}  // namespace attnplay
