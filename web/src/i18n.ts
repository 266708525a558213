// User-interface strings in English and Chinese (the seeds' language).
export type Lang = 'en' | 'zh';
export interface Text { en: string; zh: string }

const S = {
  loading: { en: 'Loading the WASM core…', zh: '正在加载 WASM 核心…' },
  loadFailed: { en: 'Could not load the WASM core', zh: '无法加载 WASM 核心' },
  preset: { en: 'Preset', zh: '预设' },
  custom: { en: '(custom)', zh: '（自定义）' },
  modified: { en: 'modified', zh: '已修改' },
  language: { en: 'Language', zh: '语言' },
  inputs: { en: 'Inputs', zh: '输入' },
  sizes: { en: 'Sizes', zh: '尺寸' },
  dimHelp: {
    en: 'B batch, H heads, L_Q queries, L_K keys, E query/key width, D value width',
    zh: 'B 批量，H 头数，L_Q 查询数，L_K 键数，E 查询/键维度，D 值维度',
  },
  decrease: { en: 'decrease', zh: '减少' },
  increase: { en: 'increase', zh: '增加' },
  batch: { en: 'batch b', zh: '批次 b' },
  head: { en: 'head h', zh: '头 h' },
  showing: { en: 'Showing slice', zh: '显示切片' },
  row: { en: 'row', zh: '行' },
  col: { en: 'column', zh: '列' },
  tooLargeEdit: { en: 'Too large to edit cell by cell: use the scenario JSON below.', zh: '太大，无法逐格编辑：请用下方的场景 JSON。' },
  tooLargeDraw: { en: 'Too large to draw', zh: '太大，无法绘制' },
  mask: { en: 'Mask', zh: '掩码' },
  fillDefault: { en: 'default', zh: '默认' },
  fillDefaultHelp: { en: '−1e6 for valid_lens (d2l), −∞ otherwise (PyTorch)', zh: 'valid_lens 用 −1e6（d2l），其余用 −∞（PyTorch）' },
  fillNumber: { en: 'number', zh: '数值' },
  perQuery: { en: 'one length per query (2-D)', zh: '每个查询一个长度（二维）' },
  options: { en: 'Options', zh: '选项' },
  scaleDefault: { en: 'default 1/√E', zh: '默认 1/√E' },
  results: { en: 'Results', zh: '结果' },
  stale: {
    en: 'Fix the error shown in red beside its control: these are the last good results.',
    zh: '请修正控件旁红色显示的错误：下面是上一次正确的结果。',
  },
  cost: { en: 'Cost', zh: '计算量' },
  dotProducts: { en: 'q·k dot products', zh: 'q·k 点积' },
  ofDense: { en: 'of dense', zh: '（稠密）' },
  flops: { en: 'flops', zh: '浮点运算' },
  warnings: { en: 'Warnings', zh: '警告' },
  scores: { en: 'scores = scale · Q Kᵀ', zh: '分数 scores = scale · Q Kᵀ' },
  scoresCaption: { en: 'before the mask; masked cells are hatched', zh: '掩码之前；被遮挡的格子带斜线' },
  allowed: { en: 'allowed (mask)', zh: '允许（掩码）' },
  allowedCaption: { en: '✓ key j may be attended by query i', zh: '✓ 表示查询 i 可以关注键 j' },
  weights: { en: 'weights = softmax(masked scores)', zh: '权重 weights = softmax(掩码后的分数)' },
  weightsCaption: { en: 'each row sums to 1 (or 0 with no allowed key)', zh: '每行之和为 1（没有允许的键时为 0）' },
  context: { en: 'context = weights · V', zh: '上下文 context = weights · V' },
  contextCaption: { en: 'one row per query', zh: '每个查询一行' },
  attn: { en: 'attn (output_attention)', zh: 'attn（output_attention）' },
  output: { en: 'output', zh: '输出' },
  scenarioJson: { en: 'Scenario JSON', zh: '场景 JSON' },
  scenarioJsonHelp: {
    en: 'The whole scenario; edit it to try shapes and fields the controls do not offer.',
    zh: '完整场景；可在此尝试控件之外的形状和字段。',
  },
  copyLink: { en: 'The URL of this page holds the scenario.', zh: '本页 URL 保存了当前场景。' },
  // ProbAttention
  probTitle: { en: 'ProbAttention, step by step', zh: 'ProbAttention 逐步演示' },
  probIntro: {
    en: 'Not every query gets full attention: sample a few keys per query, estimate which queries are "active" (sparsity M), compute exact attention only for the top u of them, and give every other query a lazy default context.',
    zh: '不是每个 query 都完整地做 attention：先为每个查询抽样少量 key，估计哪些查询“最值得细算”（稀疏度 M），只对前 u 个做精确 attention，其余查询用默认上下文。',
  },
  resample: { en: 'Resample', zh: '重新抽样' },
  resampleHelp: { en: 'drop sample_index and draw new samples from seed + 1', zh: '丢弃 sample_index，并用 seed + 1 重新抽样' },
  samplesGiven: { en: 'sample_index is given by the scenario (the seed is not used for it)', zh: 'sample_index 由场景给定（不使用随机种子）' },
  samplesDrawn: { en: 'sample_index drawn from the seed', zh: 'sample_index 由随机种子抽取' },
  // the step view's headings: views/prob.ts writes SPEC §2's step numbers before them
  stepSizes: { en: 'Sizes: U_part keys sampled per query, u queries that get exact attention', zh: '尺寸：每个查询抽样 U_part 个键，u 个查询做精确 attention' },
  stepSamples: { en: 'sample_index: U_part keys for each query, drawn with replacement', zh: 'sample_index：为每个查询有放回地抽样 U_part 个键' },
  stepSamplesCaption: { en: 'highlighted: key j was sampled for query i (×n: n times)', zh: '高亮：查询 i 抽到了键 j（×n 表示 n 次）' },
  stepSampleScores: { en: 'Scores with the sampled keys only: q_k_sample = q_i · k_j (unscaled)', zh: '只和抽到的键算分数：q_k_sample = q_i · k_j（未缩放）' },
  stepSampleScoresCaption: { en: 'column s is the s-th sample; the small label names the key', zh: '第 s 列是第 s 个样本；小字是键的下标' },
  stepSparsity: { en: 'Sparsity M = max − sum / L_K; top_index: the top u queries', zh: '稀疏度 M = max − sum / L_K；top_index：前 u 个查询' },
  stepSparsityDivisor: { en: 'Sparsity M = max − sum / U_part; top_index: the top u queries', zh: '稀疏度 M = max − sum / U_part；top_index：前 u 个查询' },
  top: { en: 'top', zh: '入选' },
  stepTop: { en: 'Exact attention for the top queries only: scores_top with ProbMask, and its softmax', zh: '只对入选查询做精确 attention：scores_top（含 ProbMask）及其 softmax' },
  scoresTop: { en: 'scores_top = scale · q_top · Kᵀ', zh: 'scores_top = scale · q_top · Kᵀ' },
  scoresTopCaption: { en: 'before ProbMask; masked cells hatched', zh: 'ProbMask 之前；被遮挡的格子带斜线' },
  weightsTop: { en: 'weights_top = softmax(scores_top)', zh: 'weights_top = softmax(scores_top)' },
  stepContext: { en: 'initial_context (lazy) for every query, then context: the updated rows replaced', zh: '每个查询先取初始（默认）上下文 initial_context，再得到 context：替换被更新的行' },
  initialContext: { en: 'initial_context', zh: '初始上下文 initial_context' },
  initialMean: { en: 'mean of V for every query', zh: '每个查询都取 V 的平均' },
  initialSum: { en: 'cumulative sum of V (the reference, causal)', zh: 'V 的累加和（参考实现，因果）' },
  initialCausalMean: { en: 'cumulative mean of V (causal)', zh: 'V 的累积平均（因果）' },
  finalContext: { en: 'context (updated rows marked ★)', zh: '最终上下文（★ 为被更新的行）' },
  stepAttn: { en: 'attn (output_attention): 1/L_K everywhere but the updated rows', zh: 'attn（output_attention）：除被更新的行外处处为 1/L_K' },
  attnCaption: { en: 'the updated rows (★) hold their softmax weights', zh: '被更新的行（★）是它们的 softmax 权重' },
  attnOff: { en: 'output_attention is off: turn it on under “Reference pitfalls” to get attn.', zh: 'output_attention 未开启：在“参考实现的已知陷阱”中打开即可得到 attn。' },
  updated: { en: 'updated', zh: '已更新' },
  lazy: { en: 'lazy', zh: '默认' },
  compare: { en: 'Compared with full attention on the same q, k, v and mask', zh: '与相同 q、k、v、掩码下的完整 attention 对比' },
  query: { en: 'query', zh: '查询' },
  probRow: { en: 'ProbAttention', zh: 'ProbAttention' },
  fullRow: { en: 'full attention', zh: '完整 attention' },
  maxDiff: { en: 'max |Δ|', zh: '最大 |Δ|' },
  same: { en: 'same', zh: '相同' },
  differs: { en: 'differs', zh: '不同' },
  fullFailed: { en: 'full attention could not run', zh: '完整 attention 无法运行' },
  probMissing: {
    en: 'This trace has no ProbAttention fields (the core may not implement prob yet).',
    zh: '此追踪没有 ProbAttention 字段（核心可能尚未实现 prob）。',
  },
  squeezeUnion: {
    en: 'updated although not in this item\'s top_index: the reference\'s .squeeze() at H = 1 makes every batch item update the union of all items\' top rows',
    zh: '虽不在本批次的 top_index 中也被更新：参考实现在 H = 1 时的 .squeeze() 让每个批次都更新所有批次入选行的并集',
  },
  slider: { en: 'factor', zh: '因子' },
  // the reference's pitfalls, side by side
  pitfallsSummary: { en: 'Reference pitfalls: switch one to compare', zh: '参考实现的已知陷阱：切换后可对比' },
  pitfallsHint: {
    en: 'Every switch is at the reference (Informer). Its known pitfalls (cumulative sum, ÷ L_K, one sample for all heads, .squeeze() at H = 1) are switches: change one to see it beside the reference.',
    zh: '所有开关都是参考实现（Informer）的取值。它的已知陷阱（累加和、÷ L_K、所有头共用一份抽样、H = 1 时的 .squeeze()）都是开关：切换一个，即可与参考实现并排对比。',
  },
  pitfallsShow: { en: 'Show the switches', zh: '显示开关' },
  pitfallsTitle: { en: 'Your switches beside the reference', zh: '你的开关与参考实现并排对比' },
  pitfall_causal_initial: {
    en: 'the lazy rows under the causal mask start from the cumulative mean Σ_{j≤i} v_j / (i + 1) instead of the reference\'s cumulative sum, which grows with i and is no average of V.',
    zh: '因果掩码下，默认行从累积平均 Σ_{j≤i} v_j / (i + 1) 开始，而不是参考实现的累加和（它随 i 增大，并不是 V 的平均）。',
  },
  pitfall_sparsity_divisor: {
    en: 'M = max − mean of the U_part sampled scores (the paper) instead of the reference\'s max − sum / L_K; the ranking, and so the top rows, can change.',
    zh: 'M = 最大值 − U_part 个抽样分数的平均（论文），而不是参考实现的 最大值 − 和 / L_K；排名以及入选的行可能因此改变。',
  },
  pitfall_sample_per_head: {
    en: 'each head draws its own keys for every query instead of the reference\'s one sample for all heads (head 0 draws the shared sample\'s keys; with H = 1 nothing changes).',
    zh: '每个头为每个查询各自抽样，而不是参考实现的所有头共用一份抽样（头 0 抽到的与共用抽样相同；H = 1 时没有区别）。',
  },
  pitfall_squeeze_bug: {
    en: 'each batch item updates only its own top rows; the reference\'s .squeeze() at H = 1 with B > 1 makes every item update the union of all items\' top rows (no difference otherwise).',
    zh: '每个批次只更新自己的入选行；参考实现在 H = 1 且 B > 1 时的 .squeeze() 让每个批次更新所有批次入选行的并集（其他情况下没有区别）。',
  },
  referenceSide: { en: 'reference (defaults)', zh: '参考实现（默认）' },
  yoursSide: { en: 'your switches', zh: '你的开关' },
  sparsityM: { en: 'M', zh: 'M' },
  contextRow: { en: 'context', zh: '上下文' },
  rowsDiffer: { en: 'rows differ', zh: '行不同' },
  noRowDiffers: { en: 'No row differs for this (b, h).', zh: '此 (b, h) 没有不同的行。' },
  referenceDrew: {
    en: 'The scenario\'s sample_index has one sample per head (H × L_Q × U_part); the reference shares one (L_Q × U_part), so that one is dropped for the reference, which draws its samples from the seed',
    zh: '场景的 sample_index 是每个头一份（H × L_Q × U_part）；参考实现共用一份（L_Q × U_part），因此参考实现不用它，改由随机种子抽样',
  },
  samplesSetAside: {
    en: 'The given sample_index (L_Q × U_part) is one sample for all heads: it does not fit samples per head, so it is set aside while this switch is on (it comes back when switched off) and both sides draw from the seed',
    zh: '给定的 sample_index（L_Q × U_part）是所有头共用的一份：不符合每个头单独抽样的形状，因此在此开关打开期间暂不使用（关闭后恢复），两边都由随机种子抽样',
  },
  pitfallLegend: {
    en: '★ a top row (exact attention); the other rows keep the initial context. Highlighted: the rows whose context differs.',
    zh: '★ 入选行（精确 attention）；其余行保留初始上下文。高亮：上下文不同的行。',
  },
  // Nadaraya-Watson (d2l 10.2)
  nwTitle: { en: 'Nadaraya-Watson kernel regression', zh: 'Nadaraya-Watson 核回归' },
  nwCaption: {
    en: 'y_hat(x) = Σ_i α(x, x_i) · y_i with α = K((x − x_i) · w) normalised over i: each query attends to the training points near it.',
    zh: 'y_hat(x) = Σ_i α(x, x_i) · y_i，α = K((x − x_i) · w) 对 i 归一化：每个查询关注离它近的训练点。',
  },
  nwTruth: { en: 'Truth', zh: '真实函数' },
  nwPred: { en: 'Pred', zh: '预测' },
  nwTrainingPoints: { en: 'training points', zh: '训练样本' },
  nwSummary: {
    en: 'Nadaraya-Watson regression: {n} training points as dots{truth}, the prediction y_hat over {m} queries, x from {lo} to {hi}; kernel {k}, w = {w}',
    zh: 'Nadaraya-Watson 回归：{n} 个训练样本（圆点）{truth}，{m} 个查询上的预测 y_hat，x 从 {lo} 到 {hi}；核函数 {k}，w = {w}',
  },
  nwSummaryTruth: { en: ', the truth curve', zh: '、真实函数曲线' },
  nwNoData: { en: 'No x_train, y_train, x_query or y_hat to plot.', zh: '没有可绘制的 x_train、y_train、x_query 或 y_hat。' },
  nwLossTitle: { en: 'Training loss per epoch', zh: '每轮训练损失' },
  nwLossCaption: { en: 'leave-one-out Σ (y_hat_i − y_i)², before each step', zh: '留一法 Σ (y_hat_i − y_i)²，每步更新之前' },
  nwEpoch: { en: 'epoch', zh: '轮次' },
  nwWHistory: { en: 'w per epoch', zh: '每轮的 w' },
  referenceFailed: { en: 'the reference could not run', zh: '参考实现无法运行' },
} satisfies Record<string, Text>;

export type Key = keyof typeof S;

export function t(lang: Lang, key: Key): string {
  return S[key][lang];
}

export function tx(lang: Lang, text: Text | undefined): string {
  return text ? text[lang] : '';
}
