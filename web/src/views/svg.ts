// SVG built element by element (no innerHTML): shared by the plots of the views. DOM only.
const NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {},
  ...children: (SVGElement | null)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.append(c);
  return el;
}

/** A text element. */
export function label(x: number, y: number, text: string, cls: string, anchor = 'middle'): SVGTextElement {
  const el = svg('text', { x, y, class: cls, 'text-anchor': anchor });
  el.textContent = text;
  return el;
}

/** Rough width of a legend text: CJK characters are wider. */
export const textWidth = (s: string) => [...s].reduce((w, ch) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 12 : 6.2), 0);
