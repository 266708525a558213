// English and Chinese strings of the d2l chapter's views (issue 9: Bahdanau training, the
// complexity table, positional encoding, the 1/√d argument, additive features). Kept apart from
// i18n.ts so the chapter's views are one unit; same shape ({en, zh}), same `Lang`.
import type { Lang, Text } from './i18n';

const D = {
  // Bahdanau
  bahdanauTitle: { en: 'Bahdanau attention: a seq2seq that attends while it decodes (d2l)', zh: 'Bahdanau 注意力：解码时做注意力的 seq2seq（d2l）' },
  bahdanauIntro: {
    en: 'A GRU encoder reads the source; at every step the decoder\'s top-layer state is the query of an additive attention over the encoder\'s outputs, and the context it returns is fed to the decoder with the embedded input token.',
    zh: 'GRU 编码器读入源序列；解码的每一步，解码器最上层的隐状态作为查询，对编码器的输出做加性注意力，得到的上下文与嵌入后的输入词元一起送入解码器。',
  },
  trainIdle: { en: 'Training starts when the scenario is set.', zh: '设置场景后即开始训练。' },
  trainingWorker: { en: 'Training in a background worker: {what} ({pct}%)', zh: '正在后台 Worker 中训练：{what}（{pct}%）' },
  trainingMain: { en: 'Training on the page (no worker here): {what} ({pct}%)', zh: '正在页面上训练（此处无法启动 Worker）：{what}（{pct}%）' },
  trained: { en: 'Trained: {epochs} epochs in {s} s ({mode}).', zh: '训练完成：{epochs} 轮，用时 {s} 秒（{mode}）。' },
  modeWorker: { en: 'in a worker', zh: '在 Worker 中' },
  modeMain: { en: 'on the page', zh: '在页面上' },
  trainCancelled: { en: 'Cancelled: the results below are the last good ones.', zh: '已取消：下面是上一次正确的结果。' },
  trainFailed: { en: 'Failed', zh: '失败' },
  // flow (issue 14): Bahdanau's cost line, per attention step (chapter.ts)
  costStep: { en: 'Cost: {n} additive scores per attention step (a decoder step against {n} source positions), {steps} steps in this forward pass',
    zh: '代价：每个注意力步 {n} 个加性分数（一个解码步对 {n} 个源位置），本次前向共 {steps} 步' },
  costTrain: { en: '{n} more in the training', zh: '训练中另有 {n} 个' },
  trainProgress: { en: 'training progress', zh: '训练进度' },
  cancel: { en: 'Cancel', zh: '取消' },
  trainAgain: { en: 'Train again', zh: '重新训练' },
  lastGood: { en: 'These are the last good results.', zh: '这是上一次正确的结果。' },
  epoch: { en: 'epoch', zh: '轮次' },
  lossTitle: { en: 'Loss per epoch', zh: '每轮的损失' },
  lossCaption: {
    en: 'd2l\'s metric: the masked cross-entropy summed over the epoch, divided by the number of valid label tokens.',
    zh: 'd2l 的指标：整轮的掩码交叉熵之和除以有效标签词元数。',
  },
  heldoutTitle: { en: 'The held-out sentence, decoded greedily', zh: '留出的句子（贪心解码）' },
  heldoutSrc: { en: 'source', zh: '源序列' },
  heldoutTarget: { en: 'target', zh: '目标' },
  predicted: { en: 'predicted', zh: '预测' },
  correct: { en: '✓ right', zh: '✓ 正确' },
  wrong: { en: '✗ not yet', zh: '✗ 尚未正确' },
  heldoutWeights: { en: 'attention weights of each decoding step (heldout_weights)', zh: '每个解码步的注意力权重（heldout_weights）' },
  heldoutCaption: { en: 'rows: decoding steps (the token each predicts); columns: source positions. Reversing, the weight moves onto the anti-diagonal.', zh: '行：解码步（及其预测的词元）；列：源位置。反转任务中，权重逐渐落在反对角线上。' },
  heldoutCaptionCopy: { en: 'rows: decoding steps (the token each predicts); columns: source positions. Copying, the weight moves onto the diagonal.', zh: '行：解码步（及其预测的词元）；列：源位置。复制任务中，权重逐渐落在对角线上。' },
  stepHeader: { en: 'step', zh: '步' },
  argmaxMirrored: { en: '{hits} of the {rows} word steps put their largest weight on the mirrored source position (outlined); the <eos> step has none.', zh: '{rows} 个词元步中有 {hits} 步的最大权重落在镜像的源位置上（加框）；<eos> 步没有对应位置。' },
  argmaxDiagonal: { en: '{hits} of the {rows} word steps put their largest weight on the same source position (outlined).', zh: '{rows} 个词元步中有 {hits} 步的最大权重落在相同的源位置上（加框）。' },
  shapesTitle: { en: 'Shapes (d2l\'s shape test)', zh: '形状（d2l 的形状测试）' },
  d2lPrints: { en: 'd2l prints', zh: 'd2l 打印' },
  value: { en: 'value', zh: '值' },
  traceField: { en: 'trace field', zh: '追踪字段' },
  shape: { en: 'shape', zh: '形状' },
  shapesNote: {
    en: 'state = [enc_outputs, hidden_state, enc_valid_lens]: state[0] is enc_outputs (B, T_src, h), state[1] the decoder\'s hidden state (num_layers, B, h).',
    zh: 'state = [enc_outputs, hidden_state, enc_valid_lens]：state[0] 是 enc_outputs (B, T_src, h)，state[1] 是解码器的隐状态 (num_layers, B, h)。',
  },
  weightsTitle: { en: 'weights (B, T_tgt, T_src): each decoder step over the source', zh: '权重 weights (B, T_tgt, T_src)：每个解码步对源序列' },
  weightsCaption: { en: 'the batch item selected above; each row sums to 1', zh: '上方选中的批次；每行之和为 1' },
  // complexity
  complexityTitle: { en: 'CNN, RNN and self-attention compared', zh: 'CNN、RNN 与自注意力的比较' },
  complexityIntro: {
    en: 'd2l\'s table for a sequence of n tokens of d dimensions (a CNN of kernel size k): computational cost, sequential operations, maximum path length, evaluated at your n, d, k.',
    zh: 'd2l 的表格：长度为 n、维度为 d 的序列（CNN 的卷积核大小为 k）的计算复杂度、顺序操作数与最长路径，按你选的 n、d、k 求值。',
  },
  arch_cnn: { en: 'CNN', zh: 'CNN' },
  arch_rnn: { en: 'RNN', zh: 'RNN' },
  arch_self: { en: 'self-attention', zh: '自注意力' },
  rowCost: { en: 'computational cost', zh: '计算复杂度' },
  rowSequential: { en: 'sequential operations', zh: '顺序操作（笔记写作并行度：O(n)、O(1)、O(n)）' },
  rowPath: { en: 'maximum path length', zh: '最长路径' },
  complexityNote: {
    en: 'Self-attention parallelises fully and connects any two positions in one step, at a cost quadratic in n: slow for very long sequences.',
    zh: '自注意力可以完全并行，任意两个位置一步相连，但计算量随 n 平方增长：序列很长时很慢。',
  },
  costAxis: { en: 'multiply-adds', zh: '乘加次数' },
  chartLabel: { en: 'Cost over n at d = {d}, k = {k} on log axes; the measured algorithms at n = {n}.', zh: '对数坐标下的计算量随 n 变化（d = {d}，k = {k}）；n = {n} 处为实测算法。' },
  chartCaption: {
    en: 'lines: the table\'s formulas; dots at your n: each algorithm\'s measured cost.dot_products × d (the q·k multiply-adds; red: full attention).',
    zh: '曲线：表中公式；你的 n 处的点：各算法实测的 cost.dot_products × d（q·k 乘加次数；红色为完整注意力）。',
  },
  measuredTitle: { en: 'Measured: the playground\'s algorithms at n = {n}, d = {d}', zh: '实测：本工具的各算法在 n = {n}、d = {d} 时' },
  measuring: { en: 'Running each algorithm in the background…', zh: '正在后台运行各算法…' },
  measureCancelled: { en: 'Cancelled.', zh: '已取消。' },
  algorithm: { en: 'algorithm', zh: '算法' },
  ofFull: { en: 'of full', zh: '占完整注意力' },
  // positional encoding
  peTitle: { en: 'What positional encoding encodes', zh: '位置编码编码了什么' },
  peIntro: {
    en: 'Each row is a position, each pair of columns a sine and a cosine of one frequency; the frequencies fall along the columns.',
    zh: '每一行是一个位置，每两列是同一频率的正弦和余弦；频率沿列方向递减。',
  },
  peColumnsTitle: { en: 'Columns of P over the positions', zh: 'P 的各列随位置的变化' },
  peColumns: { en: 'columns', zh: '列' },
  peRow: { en: 'Row (position)', zh: '行（位置）' },
  peColumnsLabel: { en: 'Columns {cols} of P over {n} positions', zh: 'P 的第 {cols} 列在 {n} 个位置上的取值' },
  peColumnsCaption: {
    en: 'd2l plots columns 6-9: 6 and 7 are a sine and a cosine of one frequency (a phase shift apart); 8 and 9 have a longer period.',
    zh: 'd2l 画出第 6-9 列：第 6、7 列是同一频率的正弦和余弦（相位相差），第 8、9 列的周期更长。',
  },
  peBinaryTitle: { en: 'The binary analogy', zh: '与二进制的类比' },
  peBinary: { en: 'binary', zh: '二进制' },
  peHighFreq: { en: 'P[i, 0..5]: the highest frequencies', zh: 'P[i, 0..5]：最高的几个频率' },
  peHighFreqCaption: { en: 'sign and value; low columns change fastest, as the low bits do', zh: '符号与数值；靠前的列变化最快，如同二进制的低位' },
  peBinaryNote: {
    en: 'In binary the lowest bit flips every step, the next every 2, the highest of three every 4: 3 bits tell 8 positions apart. The encoding does the same with continuous waves of falling frequency. Periods:',
    zh: '二进制中最低位每步翻转一次，第二位每 2 步，第三位每 4 步：3 位即可区分 8 个位置。位置编码用频率递减的连续波做同样的事。周期：',
  },
  pePeriod: { en: 'columns {a}, {b}: {p} positions', zh: '第 {a}、{b} 列：{p} 个位置' },
  peRelTitle: { en: 'Relative positions: an offset δ is a linear map', zh: '相对位置：偏移 δ 是一个线性变换' },
  peRelIntro: {
    en: 'The seed stops mid-sentence here; the end of it: for any fixed offset δ, each pair (p_{i,2j}, p_{i,2j+1}) of row i is rotated by the angle δω_j into the same pair of row i + δ — a map that depends on δ only, not on i.',
    zh: '笔记在这里戛然而止；补全如下：对任意固定偏移 δ，第 i 行的每一对 (p_{i,2j}, p_{i,2j+1}) 旋转角度 δω_j 就得到第 i + δ 行的同一对——这个变换只依赖 δ，与 i 无关。',
  },
  peRotated: { en: 'R · P_i', zh: 'R · P_i' },
  peMorePairs: { en: 'the first {k} of {all} pairs shown; the error below covers all of them', zh: '显示了 {all} 对中的前 {k} 对；下面的误差覆盖全部' },
  peMaxError: { en: 'max |R(δ) P_i − P_{i+δ}| over the {rows} rows with a row δ = {delta} below them and all {d} columns:', zh: '对下方还有第 i + δ（δ = {delta}）行的 {rows} 行及全部 {d} 列，max |R(δ) P_i − P_{i+δ}| =' },
  // scale
  scaleTitle: { en: 'Why scale by 1/√d', zh: '为什么要乘以 1/√d' },
  scaleIntro: {
    en: 'If the entries of q and k are independent with mean 0 and variance 1, q·k = Σ_j q_j k_j has mean 0 and variance d. Dividing by √d brings the variance back to 1, so exp does not blow up and the softmax does not saturate.',
    zh: '若 q 和 k 的各分量独立、均值为 0、方差为 1，则 q·k = Σ_j q_j k_j 的均值为 0、方差为 d。除以 √d 使方差回到 1，exp 不会数值爆炸，softmax 也不会饱和。',
  },
  draws: { en: 'draws', zh: '抽样次数' },
  keys: { en: 'keys', zh: '键数' },
  overDraws: { en: 'over {n} draws', zh: '{n} 次抽样' },
  expected: { en: 'expected', zh: '理论值' },
  histLabel: { en: 'Histograms of q·k (variance {v}) and q·k/√d (variance {vs})', zh: 'q·k（方差 {v}）和 q·k/√d（方差 {vs}）的直方图' },
  histAxis: { en: 'q·k (grey) and q·k/√d (blue)', zh: 'q·k（灰）与 q·k/√d（蓝）' },
  histCaption: {
    en: 'q and k drawn with the core\'s generator (SplitMix64, Box-Muller) ported to the page: a demonstration of the statistics, not a trace.',
    zh: 'q、k 由移植到页面的核心随机数生成器（SplitMix64、Box-Muller）抽取：这是统计事实的演示，不是追踪结果。',
  },
  softmaxTitle: { en: 'One softmax row: a query against {keys} keys, d = {d} (the core\'s full attention)', zh: '一行 softmax：一个查询对 {keys} 个键，d = {d}（核心的完整注意力）' },
  withScale: { en: 'scale = 1/√d = {s}', zh: 'scale = 1/√d = {s}' },
  withoutScale: { en: 'scale = 1 (unscaled)', zh: 'scale = 1（不缩放）' },
  rowSummary: { en: 'largest weight {max}; entropy {h} (uniform: {hmax})', zh: '最大权重 {max}；熵 {h}（均匀时为 {hmax}）' },
  scaleNote: {
    en: 'Unscaled, the scores spread with standard deviation √d, and the softmax puts nearly all weight on one key: its gradient almost vanishes.',
    zh: '不缩放时分数的标准差为 √d，softmax 几乎把全部权重给一个键：梯度几乎消失。',
  },
  // additive
  additiveTitle: { en: 'Inside additive attention: the hidden features', zh: '加性注意力的内部：隐藏特征' },
  additiveIntro: {
    en: 'For each query i and key j: features = tanh(W_q q_i + W_k k_j), h numbers; the score is w_v · features. The keys are not compared by a dot product: a small one-layer network scores each pair.',
    zh: '对每个查询 i 和键 j：features = tanh(W_q q_i + W_k k_j)，共 h 个数；分数为 w_v · features。键和查询不做点积，而是用一个单隐层网络给每一对打分。',
  },
  featuresTitle: { en: 'features = tanh(W_q q + W_k k)', zh: '特征 features = tanh(W_q q + W_k k)' },
  featuresCaption: { en: '{rows} (query, key) pairs × h = {h}; the selected batch item', zh: '{rows} 个（查询，键）对 × h = {h}；选中的批次' },
  featureScoresTitle: { en: 'scores = features · w_v', zh: '分数 scores = features · w_v' },
  featureScoresCaption: { en: 'the trace\'s scores, before the mask', zh: '追踪中的分数（掩码之前）' },
  featureCheck: { en: 'features · w_v (the trace\'s w_v) against the trace\'s scores: max difference {e}', zh: 'features · w_v（用追踪中的 w_v）与追踪中的分数之差的最大值：{e}' },
  // seeds (issue 14 item 7): the other task's answer beside the held-out target
  otherCopy: { en: 'copy would answer', zh: '复制任务会答' },
  otherReverse: { en: 'reverse would answer', zh: '反转任务会答' },
  // polish (issue 14): the trained weights (trace trained_weights, the input weights' layout)
  trainedTitle: { en: 'The trained weights (trained_weights)', zh: '训练后的权重（trained_weights）' },
  trainedNote: {
    en: '{n} parameters under torch\'s state_dict names, the layout of the scenario\'s weights: given as weights without train, they give these results again.',
    zh: '{n} 个参数，按 torch 的 state_dict 名称，与场景的 weights 格式相同：作为 weights 给出（去掉 train），会重现这些结果。',
  },
  trainedCopy: { en: 'Copy trained weights as JSON', zh: '复制训练后的权重（JSON）' },
  parameter: { en: 'parameter', zh: '参数' },
  meanAbs: { en: 'mean |w|', zh: '|w| 的均值' },
} satisfies Record<string, Text>;

export type D2lKey = keyof typeof D;

export function d(lang: Lang, key: D2lKey | string): string {
  const entry = (D as Record<string, Text>)[key];
  return entry ? entry[lang] : key;
}

/** A string with {name} placeholders filled. */
export function df(lang: Lang, key: D2lKey, values: Record<string, string | number>): string {
  return d(lang, key).replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}
