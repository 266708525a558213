// A view string's {name} placeholders filled (the lazily loaded views' own tables; modern-b).
export const fillTemplate = (s: string, v: Record<string, string | number>) =>
  s.replace(/\{(\w+)\}/g, (m, k: string) => (k in v ? String(v[k]) : m));
