// mla: DeepSeek's multi-head latent attention (helper modern-b, issue 16): keys and values from one
// cached latent per token plus a shared rotary key; the textbook path and the absorbed one, equal.
// Its view (views/mla.ts, lazy): the cache per token against MHA / GQA / MQA, for the learner's sizes
// and DeepSeek-V2's, and the two paths' agreement.
import type { Prop } from '../state/props';
import { flow, isAlg, snippet, view, type PageAlgorithm } from './module';

const isMla = isAlg('mla');
const size = (key: string, en: string, zh: string, initial: number, min: number, step = 1): Prop => ({
  key, kind: 'int', panel: 'options', label: { en, zh }, min, max: 1024, step, applies: isMla, initial: () => initial, structural: true,
});

const props: Prop[] = [
  size('num_heads', 'num_heads H', '头数 num_heads H', 2, 1),
  { key: 'q_lora_rank', kind: 'int', panel: 'options', label: { en: 'q_lora_rank (empty: q_proj)', zh: 'q_lora_rank（空：直接 q_proj）' },
    min: 1, max: 1024, applies: isMla, optional: true, structural: true,
    help: { en: 'q = q_b_proj(RMSNorm(q_a_proj x)); empty: q = q_proj x', zh: 'q = q_b_proj(RMSNorm(q_a_proj x))；空：q = q_proj x' } },
  size('kv_lora_rank', 'kv_lora_rank C (the latent)', 'kv_lora_rank C（潜向量）', 4, 1),
  size('qk_nope_head_dim', 'qk_nope_head_dim n', 'qk_nope_head_dim n', 2, 0),
  size('qk_rope_head_dim', 'qk_rope_head_dim r (even)', 'qk_rope_head_dim r（偶数）', 2, 2, 2),
  size('v_head_dim', 'v_head_dim', 'v_head_dim', 2, 1),
];

export default {
  name: 'mla',
  traits: { scale: true, scaleWidth: (s) => Number(s.qk_nope_head_dim ?? 0) + Number(s.qk_rope_head_dim ?? 0),
    grids: [{ key: 'x', axes: ['B', 'L_Q', 'E'], rowPrefix: 'x' }], dimLabels: { L_Q: 'L', E: 'd_model' },
    // modern-c: editable at toy sizes (the seed's are the trace's state_dict until the first edit)
    weights: { names: ['q_a_proj.weight', 'q_a_layernorm.weight', 'q_b_proj.weight', 'q_proj.weight', 'kv_a_proj_with_mqa.weight',
      'kv_a_layernorm.weight', 'kv_b_proj.weight', 'o_proj.weight'], drops: [], group: 'state_dict' } },
  props,
  maps: { weights: { en: 'weights (one latent per token, shared by every head): L × L', zh: '权重（每个词元一个潜向量，所有头共享）：L × L' } },
  view: view(() => import('../views/mla'), (m, host, trace) => m && m.mlaView({ trace, scenario: host.session.scenario, lang: host.lang, b: host.session.b, memo: host.memo }),
    { part: 'mla' }),
  flow: flow('mla'),
  pytorch: snippet('mlaSnippet'),
} satisfies PageAlgorithm;
