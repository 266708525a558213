// d2l's seq2seq with Bahdanau attention: its state_dict (names and sizes) and the weights the core
// draws from a seed when none are given (core/rng.hpp through rng.ts). Shared by copy as PyTorch
// (pytorch.ts) and the explainer of its cells (explain/bahdanau.ts). No DOM.
import { Rng, RNG_STREAM } from './rng';

/** torch's state_dict of d2l's EncoderDecoder(Seq2SeqEncoder, Seq2SeqAttentionDecoder): names and sizes. */
export function seq2seqState(srcVocab: number, tgtVocab: number, e: number, h: number, layers: number): [string, number][] {
  const gru = (prefix: string, input: number): [string, number][] => Array.from({ length: layers }, (_, l) => [
    [`${prefix}.weight_ih_l${l}`, 3 * h * (l === 0 ? input : h)], [`${prefix}.weight_hh_l${l}`, 3 * h * h],
    [`${prefix}.bias_ih_l${l}`, 3 * h], [`${prefix}.bias_hh_l${l}`, 3 * h]] as [string, number][]).flat();
  return [['encoder.embedding.weight', srcVocab * e], ...gru('encoder.rnn', e),
    ['decoder.attention.W_k.weight', h * h], ['decoder.attention.W_q.weight', h * h], ['decoder.attention.w_v.weight', h],
    ['decoder.embedding.weight', tgtVocab * e], ...gru('decoder.rnn', e + h),
    ['decoder.dense.weight', tgtVocab * h], ['decoder.dense.bias', tgtVocab]];
}

/** The seeded weights (docs/semantics.md, "Bahdanau attention"): torch's default inits drawn in
 * state_dict order from Rng(seed, weights): embeddings N(0, 1), the rest U(-1/sqrt(h), 1/sqrt(h)). */
export function seededSeq2seq(seed: number, state: [string, number][], h: number): Record<string, number[]> {
  const rng = new Rng(seed, RNG_STREAM.weights);
  const bound = 1 / Math.sqrt(h);
  return Object.fromEntries(state.map(([name, n]) => [name, Array.from({ length: n }, () =>
    (name.includes('embedding') ? rng.normal() : -bound + 2 * bound * rng.uniform()))]));
}
