// torch.nn.GRU's cell (PyTorch docs, "GRU"), one layer, one time step, B rows:
//
//   x (B, in), h (B, h)  ->  h' (B, h)
//   gi = W_ih x + b_ih        (3h)  = [gi_r, gi_z, gi_n]
//   gh = W_hh h + b_hh        (3h)  = [gh_r, gh_z, gh_n]
//   1. r  = sigmoid(gi_r + gh_r)                 reset gate
//   2. z  = sigmoid(gi_z + gh_z)                 update gate
//   3. n  = tanh(gi_n + r * gh_n)                candidate (r multiplies W_hn h + b_hn, bias included)
//   4. h' = (1 - z) * n + z * h
//
// The backward pass, for dh' (B, h), in reverse order:
//   4. dn = dh' (1 - z);  dz = dh' (h - n);  dh = dh' z
//   3. dan = dn (1 - n^2);  dr = dan * gh_n        (dan: d(gi_n + r gh_n))
//   1, 2. dar = dr r (1 - r);  daz = dz z (1 - z)
//   dgi = [dar, daz, dan], dgh = [dar, daz, dan * r]
//   dW_ih += dgi x^T, db_ih += dgi, dx = W_ih^T dgi;  dW_hh += dgh h^T, db_hh += dgh, dh += W_hh^T dgh
//
// A stack of L layers (gru_step) runs the cells bottom up, each layer's h' the next one's x; its
// backward runs them top down, each layer's dx adding to the d h' of the layer below.
//
// These are loops over contiguous rows (like the row kernels of attention_rows.hpp): the cell is
// the hot pass of bahdanau's training, called B x T x layers times per batch.
#include "gru.hpp"
#include "portable_math.hpp"

#include <algorithm>
#include <cmath>

#include "nn_linear.hpp"

namespace attnplay {

std::vector<GruLayer> gru_zeros(std::size_t in, std::size_t h, std::size_t num_layers) {
  std::vector<GruLayer> layers(num_layers);
  for (std::size_t k = 0; k < num_layers; ++k) {
    layers[k].weight_ih = xt::zeros<double>({3 * h, k == 0 ? in : h});
    layers[k].weight_hh = xt::zeros<double>({3 * h, h});
    layers[k].bias_ih = xt::zeros<double>({3 * h});
    layers[k].bias_hh = xt::zeros<double>({3 * h});
  }
  return layers;
}

std::vector<GruLayer> gru_init(Rng& rng, std::size_t in, std::size_t h, std::size_t num_layers) {
  std::vector<GruLayer> layers(num_layers);
  for (std::size_t k = 0; k < num_layers; ++k) {
    // torch: stdv = 1 / sqrt(hidden_size) for every parameter (fan = h)
    layers[k].weight_ih = linear_init(rng, {3 * h, k == 0 ? in : h}, h);
    layers[k].weight_hh = linear_init(rng, {3 * h, h}, h);
    layers[k].bias_ih = linear_init(rng, {3 * h}, h);
    layers[k].bias_hh = linear_init(rng, {3 * h}, h);
  }
  return layers;
}

namespace {

double sigmoid(double x) { return portable_sigmoid(x); }  // the same bits natively and in wasm

}  // namespace

bool gru_cell(const GruLayer& layer, const double* x, const double* h_prev, std::size_t B, double* h_new,
              GruStepCache* cache) {
  const std::size_t in = layer.input_size(), h = layer.hidden_size();
  const double* W_ih = layer.weight_ih.data();
  const double* W_hh = layer.weight_hh.data();
  const double* b_ih = layer.bias_ih.data();
  const double* b_hh = layer.bias_hh.data();
  if (cache) {
    cache->x.assign(x, x + B * in);
    cache->h_prev.assign(h_prev, h_prev + B * h);
    cache->r.resize(B * h);
    cache->z.resize(B * h);
    cache->n.resize(B * h);
    cache->hn.resize(B * h);
  }
  std::vector<double> gi(3 * h), gh(3 * h);
  for (std::size_t b = 0; b < B; ++b) {
    const double* xb = x + b * in;
    const double* hb = h_prev + b * h;
    for (std::size_t g = 0; g < 3 * h; ++g) {
      gi[g] = dot(W_ih + g * in, xb, in) + b_ih[g];
      gh[g] = dot(W_hh + g * h, hb, h) + b_hh[g];
      if (!std::isfinite(gi[g]) || !std::isfinite(gh[g])) return false;
    }
    for (std::size_t u = 0; u < h; ++u) {
      const double r = sigmoid(gi[u] + gh[u]);                // 1.
      const double z = sigmoid(gi[h + u] + gh[h + u]);        // 2.
      const double n = portable_tanh(gi[2 * h + u] + r * gh[2 * h + u]);  // 3.
      h_new[b * h + u] = (1.0 - z) * n + z * hb[u];           // 4.
      if (cache) {
        cache->r[b * h + u] = r;
        cache->z[b * h + u] = z;
        cache->n[b * h + u] = n;
        cache->hn[b * h + u] = gh[2 * h + u];
      }
    }
  }
  return true;
}

void gru_cell_backward(const GruLayer& layer, const GruStepCache& cache, std::size_t B, const double* dh_new,
                       double* dx, double* dh_prev, GruLayer& grad) {
  const std::size_t in = layer.input_size(), h = layer.hidden_size();
  std::vector<double> dgi(3 * h), dgh(3 * h);
  for (std::size_t b = 0; b < B; ++b) {
    const double* xb = cache.x.data() + b * in;
    const double* hb = cache.h_prev.data() + b * h;
    const double* dhb = dh_new + b * h;
    double* dhp = dh_prev + b * h;
    for (std::size_t u = 0; u < h; ++u) {
      const std::size_t i = b * h + u;
      const double r = cache.r[i], z = cache.z[i], n = cache.n[i];
      const double dn = dhb[u] * (1.0 - z);               // 4.
      const double dz = dhb[u] * (hb[u] - n);
      dhp[u] = dhb[u] * z;
      const double dan = dn * (1.0 - n * n);              // 3.
      const double dr = dan * cache.hn[i];
      dgi[u] = dgh[u] = dr * r * (1.0 - r);               // 1.
      dgi[h + u] = dgh[h + u] = dz * z * (1.0 - z);       // 2.
      dgi[2 * h + u] = dan;
      dgh[2 * h + u] = dan * r;
    }
    double* dxb = dx ? dx + b * in : nullptr;
    if (dxb) std::fill(dxb, dxb + in, 0.0);
    linear_row_backward(dgi.data(), xb, layer.weight_ih, grad.weight_ih, grad.bias_ih.data(), dxb);
    linear_row_backward(dgh.data(), hb, layer.weight_hh, grad.weight_hh, grad.bias_hh.data(), dhp);
  }
}

std::size_t gru_step(const std::vector<GruLayer>& layers, const double* x, std::size_t B, double* state,
                     GruStepCache* caches) {
  const std::size_t L = layers.size(), n = L ? B * layers[0].hidden_size() : 0;
  std::vector<double> next(n);
  const double* input = x;
  for (std::size_t k = 0; k < L; ++k) {
    double* state_k = state + k * n;
    if (!gru_cell(layers[k], input, state_k, B, next.data(), caches ? &caches[k] : nullptr)) return k;
    std::copy(next.begin(), next.end(), state_k);
    input = state_k;
  }
  return L;
}

void gru_step_backward(const std::vector<GruLayer>& layers, const GruStepCache* caches, std::size_t B,
                       double* d_state, double* dx, std::vector<GruLayer>& grads) {
  const std::size_t L = layers.size(), n = L ? B * layers[0].hidden_size() : 0;
  std::vector<double> dh_prev(n), dx_layer(n);
  for (std::size_t k = L; k-- > 0;) {
    double* d = d_state + k * n;
    gru_cell_backward(layers[k], caches[k], B, d, k > 0 ? dx_layer.data() : dx, dh_prev.data(), grads[k]);
    std::copy(dh_prev.begin(), dh_prev.end(), d);
    if (k > 0)
      for (std::size_t i = 0, i0 = (k - 1) * n; i < n; ++i) d_state[i0 + i] += dx_layer[i];
  }
}

}  // namespace attnplay
