// The core's generator (core/rng.hpp) in TypeScript, for the page's own demonstrations (the scale
// argument's draws, the complexity view's random inputs): SplitMix64 with the same streams, the
// same uniform (53 bits) and the same Box-Muller normal (the cosine branch), so a seed gives the
// integers the core would draw and doubles equal to its to libm's accuracy. No DOM.
//
// 64-bit arithmetic in two 32-bit halves (BigInt is ~20x slower for the millions of draws the
// views make).

export const RNG_STREAM = { samples: 1, weights: 2, data: 3 } as const;

/** Low 64 bits of a * b, a and b as [hi, lo] unsigned 32-bit halves. */
function mul64(ah: number, al: number, bh: number, bl: number): [number, number] {
  // al * bl in full (64 bits) from 16-bit pieces
  const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const lo = ((mid & 0xffff) << 16 | (p00 & 0xffff)) >>> 0;
  const carry = p11 + (p01 >>> 16) + (p10 >>> 16) + Math.floor(mid / 0x10000);
  const hi = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
  return [hi, lo];
}

/** a + b mod 2^64. */
function add64(ah: number, al: number, bh: number, bl: number): [number, number] {
  const lo = al + bl;
  return [(ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0, lo >>> 0];
}

/** x ^ (x >> s) for 0 < s < 32. */
function xorShift(h: number, l: number, s: number): [number, number] {
  return [(h ^ (h >>> s)) >>> 0, (l ^ ((l >>> s) | (h << (32 - s)))) >>> 0];
}

export class Rng {
  #h: number;
  #l: number;

  /** state = seed ^ (stream * 0xD1B54A32D192ED03), as core/rng.hpp; seed below 2^53. */
  constructor(seed: number, stream: number = RNG_STREAM.samples) {
    const [mh, ml] = mul64(0, stream >>> 0, 0xd1b54a32, 0xd192ed03);
    const sh = Math.floor(seed / 0x100000000) >>> 0, sl = seed >>> 0;
    this.#h = (sh ^ mh) >>> 0;
    this.#l = (sl ^ ml) >>> 0;
  }

  /** The next 64-bit output as [hi, lo]. */
  next64(): [number, number] {
    [this.#h, this.#l] = add64(this.#h, this.#l, 0x9e3779b9, 0x7f4a7c15);
    let [h, l] = xorShift(this.#h, this.#l, 30);
    [h, l] = mul64(h, l, 0xbf58476d, 0x1ce4e5b9);
    [h, l] = xorShift(h, l, 27);
    [h, l] = mul64(h, l, 0x94d049bb, 0x133111eb);
    return xorShift(h, l, 31);
  }

  /** The next output as a decimal string (tests compare it with the core's). */
  nextString(): string {
    const [h, l] = this.next64();
    return (BigInt(h) * 0x100000000n + BigInt(l)).toString();
  }

  /** Uniform in [0, 1) from the top 53 bits: (next() >> 11) * 2^-53. */
  uniform(): number {
    const [h, l] = this.next64();
    return (h * 0x200000 + (l >>> 11)) * 2 ** -53;
  }

  /** Standard normal, Box-Muller's cosine branch: two uniforms per draw. */
  normal(): number {
    const u1 = this.uniform(), u2 = this.uniform();
    return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(6.283185307179586 * u2);
  }

  /** n standard normals. */
  normals(n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = this.normal();
    return out;
  }
}
