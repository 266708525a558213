// torch.nn.GRU one time step at a time, forward and backward: one layer (gru_cell) and the stack
// of layers (gru_step), for the seq2seq model's encoder and decoder (see core/gru.cpp for the
// equations).
#pragma once

#include <cstdint>
#include <vector>

#include "rng.hpp"
#include "tensor.hpp"

namespace attnplay {

// The parameters of one layer k of torch.nn.GRU(input_size, hidden_size, num_layers), in
// torch's layout: the gates stacked r, z, n along the rows.
//   weight_ih_l{k} (3h, in)   [W_ir; W_iz; W_in]     in = input_size for k = 0, else h
//   weight_hh_l{k} (3h, h)    [W_hr; W_hz; W_hn]
//   bias_ih_l{k}   (3h)       [b_ir; b_iz; b_in]
//   bias_hh_l{k}   (3h)       [b_hr; b_hz; b_hn]
struct GruLayer {
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  std::size_t hidden_size() const { return weight_hh.shape()[1]; }
  std::size_t input_size() const { return weight_ih.shape()[1]; }
};

// Layers of a GRU with input_size in and hidden size h, zero-filled (gradient accumulators).
std::vector<GruLayer> gru_zeros(std::size_t in, std::size_t h, std::size_t num_layers);

// torch's GRU.reset_parameters: every weight and bias uniform(-1/sqrt(h), 1/sqrt(h)), drawn
// row-major per tensor in the order weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, l1, ...
std::vector<GruLayer> gru_init(Rng& rng, std::size_t in, std::size_t h, std::size_t num_layers);

// What one step of one layer keeps for the backward pass, B rows each: the input x (B, in),
// the previous state h_prev (B, h), the gates r, z, n (B, h), and hn = W_hn h_prev + b_hn (B, h).
struct GruStepCache {
  std::vector<double> x, h_prev, r, z, n, hn;
};

// One step of one layer over B rows: h_new (B, h) from x (B, in) and h_prev (B, h). Fills
// `cache` if given. Returns false (h_new unspecified) when a gate's pre-activation
// W x + b or W h + b is not a finite number: the caller names the weights to blame.
bool gru_cell(const GruLayer& layer, const double* x, const double* h_prev, std::size_t B, double* h_new,
              GruStepCache* cache);

// The backward pass of gru_cell: from dh_new (B, h) accumulates the parameter gradients into
// `grad` and writes dx (B, in; skipped when null) and dh_prev (B, h; overwritten).
void gru_cell_backward(const GruLayer& layer, const GruStepCache& cache, std::size_t B, const double* dh_new,
                       double* dx, double* dh_prev, GruLayer& grad);

// One time step of a stack of L layers (torch.nn.GRU(in, h, L) fed one step): layer 0 reads x
// (B, in), layer k > 0 the new state of layer k - 1; state (L, B, h) becomes the new states (layer
// L - 1's is the step's output). Fills caches[k] (L of them) if given. Returns L, or the first
// layer whose gates were not finite (gru_cell's false; the states from that layer on unchanged).
std::size_t gru_step(const std::vector<GruLayer>& layers, const double* x, std::size_t B, double* state,
                     GruStepCache* caches);

// The backward pass of gru_step, top layer first: d_state (L, B, h) holds each layer's d(new
// state) (the top's with the step output's gradient) and becomes d(previous state); layer k's dx
// adds to layer k - 1's; dx (B, in) receives layer 0's (overwritten). Gradients add into grads.
void gru_step_backward(const std::vector<GruLayer>& layers, const GruStepCache* caches, std::size_t B,
                       double* d_state, double* dx, std::vector<GruLayer>& grads);

// Multiply-adds of one gru_cell row (the two matrix-vector products) and of its backward
// (the four outer-product and transposed products).
inline std::uint64_t gru_cell_macs(std::size_t in, std::size_t h) { return 3 * std::uint64_t{h} * (in + h); }
// ... and of one gru_step row through L layers.
inline std::uint64_t gru_step_macs(std::size_t in, std::size_t h, std::size_t L) {
  return gru_cell_macs(in, h) + (L - 1) * gru_cell_macs(h, h);
}

}  // namespace attnplay
