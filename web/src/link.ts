// Short links (a chunk of its own, loaded when a link is first written or read): the scenario's
// JSON as `#z=<base64url of deflate-raw(JSON)>`, through the browser's own CompressionStream and
// DecompressionStream. A link is untrusted input: at most LINK_MAX characters of base64url, at
// most JSON_MAX bytes once inflated (the stream is cancelled as soon as it is passed: a small link
// that inflates to gigabytes costs no more than JSON_MAX). Every failure is an Error whose message
// names the scenario and what is wrong with the link. And the "Copy link" button's copy (copyUrl).
import { h } from './dom';
import { t, tx, type Lang } from './i18n';

export const LINK_MAX = 1 << 20;
export const JSON_MAX = 4 << 20;

const fail = (what: string): never => { throw new Error(`scenario: the link's #z= ${what}`); };

async function bytesOf(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      return fail('is not deflate-raw data');
    }
    if (chunk.done) break;
    size += chunk.value.length;
    if (size > max) {
      reader.cancel().catch(() => {});
      fail(`inflates to more than ${max / (1 << 20)} MB`);
    }
    parts.push(chunk.value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** JSON text -> base64url of its deflate-raw bytes (no padding). */
export async function deflate(text: string): Promise<string> {
  const bytes = await bytesOf(new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw')), Infinity);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url of deflate-raw bytes -> the JSON text (UTF-8); throws naming what is wrong. */
export async function inflate(z: string): Promise<string> {
  if (z.length > LINK_MAX) fail(`is longer than ${LINK_MAX} characters`);
  let bin = '';
  try {
    if (!/^[\w-]*$/.test(z)) throw 0;
    bin = atob(z.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    fail('is not base64url');
  }
  if (typeof DecompressionStream !== 'function') fail('cannot be read by this browser (no DecompressionStream)');
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const json = await bytesOf(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')), JSON_MAX);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(json);
  } catch {
    return fail('is not UTF-8 text');
  }
}

/** What the "Copy link" button says after a click (here, not in i18n.ts: the first load stays small). */
const COPIED = {
  linkCopied: { en: 'Link copied', zh: '已复制链接' },
  copyFailed: { en: 'Could not copy: copy the address bar', zh: '无法复制：请复制地址栏' },
  linkFile: { en: 'Copied, but a file:// link opens on this computer only', zh: '已复制，但 file:// 链接只能在本机打开' },
} as const;

/** "Copy link": `url` to the clipboard, else through a selection's copy; the button says how it went. */
export async function copyUrl(url: string, button: HTMLElement, lang: Lang, root: ShadowRoot): Promise<void> {
  let ok = true;
  try {
    await navigator.clipboard.writeText(url);
  } catch {
    // no clipboard API (an insecure origin, no permission): the selection's copy
    const area = h('textarea', { text: url });
    root.append(area);
    area.select();
    ok = document.execCommand('copy');
    area.remove();
  }
  // a file:// address opens on this computer only: said, and said longer
  const local = ok && location.protocol === 'file:';
  button.textContent = tx(lang, COPIED[local ? 'linkFile' : ok ? 'linkCopied' : 'copyFailed']);
  setTimeout(() => { button.textContent = t(lang, 'copyLink'); }, local ? 6000 : 2000);
}
