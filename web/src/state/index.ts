// The page's state (no DOM): the algorithm table and the property table, scenario edits, the
// ProbAttention logic, the URL hash, and one element's Session that ties them together.
export * from './algorithms';
export * from './scenario';
export * from './props';
export * from './prob';
export * from './hash';
export * from './session';
export * from './runs';
export * from './approx';
export * from './sparse';
export * from './performer';
export * from './train';  // state/chapter.ts: the chapter views' helpers, imported where used (lazily)
