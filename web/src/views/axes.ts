// The names of the maps' axes (item 4: every map says what its rows and its columns are), for the
// views loaded later; the results' own (query i, key j, feature d) are i18n.ts's, in the first load.
import { tx, viewText, type Key, type Lang, type Text } from '../i18n';

const A = {
  sample: { en: 'sample s', zh: '样本 s' },
  topQuery: { en: 'top query', zh: '入选查询' },
  featureE: { en: 'feature e', zh: '特征 e' },
  featureF: { en: 'feature f of φ', zh: 'φ 的特征 f' },
  omega: { en: 'random feature ω_m', zh: '随机特征 ω_m' },
  round: { en: 'hash round r', zh: '哈希轮 r' },
  pair: { en: 'pair (query i, key j)', zh: '（查询 i，键 j）对' },
  hidden: { en: 'hidden unit h', zh: '隐藏单元 h' },
  score: { en: 'score', zh: '分数' },
} satisfies Record<string, Text>;
const a = viewText(A);

type Axis = Key | keyof typeof A | Text;

/** The names of a map's row and column axes: this table's, the page's (axisQuery, axisKey, ...) or
 * a view's own. */
export const axes = (lang: Lang, row: Axis, col: Axis): [string, string] =>
  [row, col].map((x) => (typeof x === 'string' ? a(lang, x) : tx(lang, x))) as [string, string];
