// Data-free calibration of one weighted layer (conv, depthwise, transpose conv, fully connected):
// draws its seeded int8 weights, picks a BatchNorm-like bias that centres every output channel,
// and derives the output quantization and the per-channel statistics the next layer needs.
// The scheme is documented on WEIGHT_SCHEME.
import type { Activation } from '../graph.ts';
import { InternalError } from '../errors.ts';
import { INT8_WEIGHT_CODE_STD, int32Bytes, int8Bytes, quantizeBias, uniformInt8Codes, uniformReals, weightScales } from './seeded-weights.ts';
import type { ActQuant, ValueStats } from './value-stats.ts';
import { RANGE_SIGMAS, channelMoments, quantRange } from './value-stats.ts';

/**
 * The weight scheme. A layer with fan-in n (taps summed per output value) fed by a tensor whose
 * channels have variance v (after removing each channel's mean) draws i.i.d. weights with
 *   Var(w) = targetStd^2 / (n * v)         (He/LSUV-style: Var(sum w x) = targetStd^2;
 *                                            taps in SAME padding count with E[x]^2 instead of v)
 * as uniform int8 codes in [-127, 127] times per-channel scales (jittered by sqrt(U[0.5, 1.5])).
 * Its bias is what a folded BatchNorm would give: beta_c - sum_i w_ci E[x_i], so each output
 * channel is centred on a small random beta_c (std biasFraction * targetStd) instead of on a
 * random offset from the input means, which would leave whole channels dead or saturated.
 * targetStd is 1 for linear and ReLU outputs (output scales follow: RANGE_SIGMAS * std), 2 for
 * ReLU6 so its fixed [0, 6] range (scale 6/255, zero point -128) holds 3 sigma (0.13% clipped),
 * and 2 for classifier logits, which are not centred (v is then E[x^2]) so classes differ.
 */
export const WEIGHT_SCHEME = { targetStd: 1, targetStdRelu6: 2, targetStdLogits: 2, biasFraction: 0.25 } as const;

/** Spec fields of a classifier head: wider, uncentred logits. */
export const LOGITS = { targetStd: WEIGHT_SCHEME.targetStdLogits, center: false } as const;

export interface WeightLayout {
  readonly name: string;
  readonly filterShape: readonly number[];
  readonly quantizedDimension: number;
  readonly outChannels: number;
  readonly inChannels: number;
  readonly perChannel: boolean;
  /** Spatial taps summed into one output value (kh*kw; kh*kw/(sh*sw) for a transpose conv; 1 for FC). */
  readonly taps: number;
  /** Average number of those taps that fall into SAME padding (they read zeros, not the input mean). */
  readonly paddedTaps: number;
  /** Input channels summed per tap (Cin; 1 for depthwise; K for FC). */
  readonly channelFan: number;
  /** 'outer': filter [Cout, ..., Cin] (conv, transpose conv, FC); 'depthwise': [1, KH, KW, Cin * dm]. */
  readonly layout: 'outer' | 'depthwise';
  /** Share of the filter's taps that reach one output value (1 / (sh * sw) for a transpose conv). */
  readonly tapShare: number;
}

/** Output quantization: derived from the activation ('auto'), forced symmetric ('signed'), or given. */
export type OutQuantSpec = 'auto' | 'signed' | ActQuant;

export interface CalibrationSpec {
  readonly key: string;
  readonly activation: Activation;
  readonly targetStd?: number;
  /** Centre output channels with the bias (default); false for classifier heads. */
  readonly center?: boolean;
  readonly outQuant?: OutQuantSpec;
}

export interface CalibratedLayer {
  readonly filterData: Uint8Array;
  readonly filterScales: readonly number[];
  readonly biasData: Uint8Array;
  readonly biasScales: readonly number[];
  readonly quant: ActQuant;
  readonly stats: ValueStats;
}

export function activationRange(a: Activation): { lo: number; hi: number } {
  switch (a) {
    case 'none':
      return { lo: -Infinity, hi: Infinity };
    case 'relu':
      return { lo: 0, hi: Infinity };
    case 'relu6':
      return { lo: 0, hi: 6 };
    case 'reluN1To1':
      return { lo: -1, hi: 1 };
    default:
      throw new InternalError(`zoo builder: activation '${a}' is not supported`);
  }
}

/** Quantization covering the activation's range cut to +-RANGE_SIGMAS * rms (zero point 0 when symmetric). */
export function rangeQuant(rms: number, activation: Activation): ActQuant {
  const r = activationRange(activation);
  const lo = Math.max(r.lo, -RANGE_SIGMAS * rms);
  const hi = Math.min(r.hi, RANGE_SIGMAS * rms);
  if (!(hi > lo)) throw new InternalError(`zoo builder: empty output range for rms ${rms}`);
  const scale = Math.fround((hi - lo) / 255);
  if (lo === -hi) return { scale, zeroPoint: 0 };
  const zp = Math.max(-128, Math.min(127, Math.round(-128 - lo / scale)));
  return { scale, zeroPoint: zp === 0 ? 0 : zp };
}

/** Per output channel: sum over the filter of code * (mean of the input channel it multiplies). */
function codeMeanSums(codes: Int8Array, l: WeightLayout, inMean: readonly number[]): Float64Array {
  const sums = new Float64Array(l.outChannels);
  const mu = Float64Array.from(inMean);
  if (mu.length !== l.inChannels) throw new InternalError(`zoo builder: ${l.name}: ${mu.length} input channel stats for ${l.inChannels} channels`);
  if (l.layout === 'outer') {
    const inner = codes.length / l.outChannels;
    let j = 0;
    for (let c = 0; c < l.outChannels; c++) {
      let s = 0;
      for (let t = 0; t < inner; t += l.inChannels) for (let i = 0; i < l.inChannels; i++) s += (codes[j++] as number) * (mu[i] as number);
      sums[c] = s;
    }
  } else {
    const dm = l.outChannels / l.inChannels;
    for (let j = 0; j < codes.length; j++) {
      const c = j % l.outChannels;
      sums[c] = (sums[c] as number) + (codes[j] as number) * (mu[Math.floor(c / dm)] as number);
    }
  }
  return sums;
}

export function calibrateWeightedLayer(input: { readonly quant: ActQuant; readonly stats: ValueStats }, l: WeightLayout, s: CalibrationSpec): CalibratedLayer {
  const target = s.targetStd ?? (s.activation === 'relu6' ? WEIGHT_SCHEME.targetStdRelu6 : WEIGHT_SCHEME.targetStd);
  const center = s.center ?? true;
  const moments = channelMoments(input.stats);
  const inMean = moments.mean;
  const inMeanSq = moments.meanSq.reduce((a, b) => a + b, 0) / moments.meanSq.length;
  const meanPower = inMean.reduce((a, m) => a + m * m, 0) / inMean.length;
  const within = Math.max(0, inMeanSq - meanPower);
  // Per output value, over random inputs: valid taps contribute the input's within-channel
  // variance; padded taps read zero where the centring bias assumed the mean, adding mean^2.
  const valid = l.taps - l.paddedTaps;
  const spread = l.channelFan * (valid * within + l.paddedTaps * meanPower);
  const power = center ? spread : l.channelFan * valid * inMeanSq;
  if (!(power > 0)) throw new InternalError(`zoo builder: ${l.name}: input has no variance to calibrate against`);
  const weightStd = target / Math.sqrt(power);

  const codes = uniformInt8Codes(`${s.key}/filter`, l.filterShape.reduce((a, b) => a * b, 1));
  const scales = weightScales(`${s.key}/filter-scale`, l.perChannel ? l.outChannels : 1, weightStd);
  const scaleOf = (c: number): number => (l.perChannel ? scales[c] : scales[0]) as number;
  const sums = codeMeanSums(codes, l, inMean);
  const beta = uniformReals(`${s.key}/bias`, l.outChannels, WEIGHT_SCHEME.biasFraction * target);

  const biasReal: number[] = [];
  const preMean: number[] = [];
  const preStd: number[] = [];
  let meanSq = 0;
  for (let c = 0; c < l.outChannels; c++) {
    const offset = scaleOf(c) * (sums[c] as number) * l.tapShare;
    const b = beta[c] as number;
    biasReal.push(center ? b - offset : b);
    preMean.push(center ? b : b + offset);
    const sd = Math.sqrt(center ? spread : l.channelFan * valid * within) * scaleOf(c) * INT8_WEIGHT_CODE_STD;
    preStd.push(sd);
    meanSq += ((preMean[c] as number) ** 2 + sd * sd) / l.outChannels;
  }

  const spec = s.outQuant ?? 'auto';
  const rms = Math.sqrt(meanSq);
  const quant = spec === 'auto' ? rangeQuant(rms, s.activation) : spec === 'signed' ? rangeQuant(rms, 'none') : spec;
  const r = activationRange(s.activation);
  const q = quantRange(quant);
  const lo = Math.max(r.lo, q.lo);
  const hi = Math.min(r.hi, q.hi);

  const perOutputScales = Array.from({ length: l.outChannels }, (_, c) => scaleOf(c));
  const bias = quantizeBias(biasReal, input.quant.scale, perOutputScales);
  return {
    filterData: int8Bytes(codes),
    filterScales: scales,
    biasData: int32Bytes(bias.codes),
    biasScales: l.perChannel ? bias.scales : bias.scales.slice(0, 1),
    quant,
    stats: { channels: preMean.map((mu, c) => ({ mu, sigma: preStd[c] as number, lo, hi })) },
  };
}
