// Analytic activation statistics for the seeded zoo: each channel of a tensor is modelled as a
// clamped Gaussian clamp(N(mu, sigma^2), lo, hi) over random int8 inputs, which max pooling and
// ReLU-type activations map exactly (both are monotone). Used to pick weight spreads,
// BatchNorm-like centring biases and output quantization (see weighted-layer.ts).
import { InternalError } from '../errors.ts';

/** One channel's value distribution: N(mu, sigma^2) clamped to [lo, hi] (bounds may be infinite). */
export interface ChannelDist {
  readonly mu: number;
  readonly sigma: number;
  readonly lo: number;
  readonly hi: number;
}

/** Per-channel (last axis) distributions of a tensor's real values. */
export interface ValueStats {
  readonly channels: readonly ChannelDist[];
}

/** Per-tensor int8 activation quantization: real = scale * (q - zeroPoint). */
export interface ActQuant {
  readonly scale: number;
  readonly zeroPoint: number;
}

/** Half-width of the quantized range in pre-activation standard deviations (P(|z|>4) = 6e-5). */
export const RANGE_SIGMAS = 4;

/** Mean and variance of q uniform on the 256 int8 codes [-128, 127]. */
const INT8_UNIFORM_MEAN = -0.5;
const INT8_UNIFORM_VAR = (256 * 256 - 1) / 12;

function average(xs: readonly number[]): number {
  if (xs.length === 0) throw new InternalError('statistics of a tensor with no channels');
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

const UNBOUNDED = { lo: -Infinity, hi: Infinity } as const;

/** E[x] and E[x^2] of every channel. */
export function channelMoments(s: ValueStats): { mean: number[]; meanSq: number[] } {
  const mean: number[] = [];
  const meanSq: number[] = [];
  for (const d of s.channels) {
    const m = clampedGaussian(d.mu, d.sigma, d.lo, d.hi);
    mean.push(m.mean);
    meanSq.push(m.meanSq);
  }
  return { mean, meanSq };
}

/** E[x^2] over the whole tensor (channels weighted equally). */
export function totalMeanSq(s: ValueStats): number {
  return average(channelMoments(s).meanSq);
}

/** Stats of a tensor whose int8 codes are uniform on [-128, 127] (how `verify` draws inputs), moment-matched. */
export function uniformInt8Stats(q: ActQuant, channels: number): ValueStats {
  const d: ChannelDist = { mu: q.scale * (INT8_UNIFORM_MEAN - q.zeroPoint), sigma: q.scale * Math.sqrt(INT8_UNIFORM_VAR), ...UNBOUNDED };
  return { channels: new Array<ChannelDist>(channels).fill(d) };
}

/** Standard normal CDF via erfc (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  if (z === Infinity) return 1;
  if (z === -Infinity) return 0;
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erfc = poly * Math.exp(-x * x);
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

function normalPdf(z: number): number {
  return Number.isFinite(z) ? Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI) : 0;
}

/** Moments of clamp(N(mu, sigma^2), lo, hi), closed form; lo/hi may be infinite. */
export function clampedGaussian(mu: number, sigma: number, lo: number, hi: number): { mean: number; meanSq: number } {
  if (!(sigma >= 0) || !(lo <= hi)) throw new InternalError(`bad clamped Gaussian (sigma ${sigma}, [${lo}, ${hi}])`);
  if (sigma === 0) {
    const v = Math.min(hi, Math.max(lo, mu));
    return { mean: v, meanSq: v * v };
  }
  const a = (lo - mu) / sigma;
  const b = (hi - mu) / sigma;
  const pa = normalCdf(a);
  const pb = normalCdf(b);
  const da = normalPdf(a);
  const db = normalPdf(b);
  const inside = pb - pa;
  const loMass = Number.isFinite(lo) ? pa : 0;
  const hiMass = Number.isFinite(hi) ? 1 - pb : 0;
  const loV = Number.isFinite(lo) ? lo : 0;
  const hiV = Number.isFinite(hi) ? hi : 0;
  const mean = loV * loMass + hiV * hiMass + mu * inside + sigma * (da - db);
  const tails = (Number.isFinite(a) ? a * da : 0) - (Number.isFinite(b) ? b * db : 0);
  const meanSq = loV * loV * loMass + hiV * hiV * hiMass + (mu * mu + sigma * sigma) * inside + 2 * mu * sigma * (da - db) + sigma * sigma * tails;
  return { mean, meanSq: Math.max(meanSq, mean * mean) };
}

/** Mean and standard deviation of the maximum of n independent standard normals (grid integral). */
export function standardNormalMax(n: number): { mean: number; std: number } {
  if (n <= 1) return { mean: 0, std: 1 };
  const step = 1 / 32;
  let cdf = 0;
  let mass = 0;
  let m1 = 0;
  let m2 = 0;
  for (let z = -8; z <= 8; z += step) {
    const w = step * normalPdf(z);
    const d = n * w * (cdf + w / 2) ** (n - 1);
    mass += d;
    m1 += d * z;
    m2 += d * z * z;
    cdf += w;
  }
  const mean = m1 / mass;
  return { mean, std: Math.sqrt(Math.max(0, m2 / mass - mean * mean)) };
}

/**
 * Max pooling over n values treated as independent (random weights decorrelate neighbours): the
 * max of n Gaussians under the same clamp, exact for clamped inputs since clamping is monotone.
 */
export function maxPoolStats(s: ValueStats, n: number): ValueStats {
  const m = standardNormalMax(n);
  return { channels: s.channels.map((d) => ({ mu: d.mu + d.sigma * m.mean, sigma: d.sigma * m.std, lo: d.lo, hi: d.hi })) };
}

/** A further clamp (fused activation, output range) on every channel. */
export function clampStats(s: ValueStats, lo: number, hi: number): ValueStats {
  return { channels: s.channels.map((d) => ({ mu: d.mu, sigma: d.sigma, lo: Math.max(d.lo, lo), hi: Math.min(d.hi, hi) })) };
}

/** Average pooling over n values (treated as independent): moment-matched, variance / n. */
export function averagePoolStats(s: ValueStats, n: number): ValueStats {
  const m = channelMoments(s);
  const k = Math.max(1, n);
  return {
    channels: m.mean.map((mu, c) => ({ mu, sigma: Math.sqrt(Math.max(0, (m.meanSq[c] ?? 0) - mu * mu) / k), ...UNBOUNDED })),
  };
}

/** a + b for independent a and b, channel by channel, moment-matched. */
export function sumStats(a: ValueStats, b: ValueStats): ValueStats {
  const ma = channelMoments(a);
  const mb = channelMoments(b);
  return {
    channels: ma.mean.map((mu, c) => {
      const va = Math.max(0, (ma.meanSq[c] ?? 0) - mu * mu);
      const mub = mb.mean[c] ?? 0;
      const vb = Math.max(0, (mb.meanSq[c] ?? 0) - mub * mub);
      return { mu: mu + mub, sigma: Math.sqrt(va + vb), ...UNBOUNDED };
    }),
  };
}

/** Stats after a reshape whose new last axis has `channels` entries (flatten keeps channel = k mod C). */
export function reshapeStats(s: ValueStats, channels: number): ValueStats {
  const c0 = s.channels.length;
  if (channels === c0) return s;
  if (channels % c0 === 0) return { channels: Array.from({ length: channels }, (_, k) => s.channels[k % c0] as ChannelDist) };
  const m = channelMoments(s);
  const mu = average(m.mean);
  const d: ChannelDist = { mu, sigma: Math.sqrt(Math.max(0, average(m.meanSq) - mu * mu)), ...UNBOUNDED };
  return { channels: new Array<ChannelDist>(channels).fill(d) };
}

/** Real range [lo, hi] a quantization can represent. */
export function quantRange(q: ActQuant): { lo: number; hi: number } {
  return { lo: q.scale * (-128 - q.zeroPoint), hi: q.scale * (127 - q.zeroPoint) };
}
