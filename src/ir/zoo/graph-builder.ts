// A small builder for seeded int8 models in TFLite/TFLM conventions: NHWC, batch 1, int8
// activations quantized per tensor, int8 symmetric weights per output channel (conv filter
// [Cout,KH,KW,Cin] qdim 0, depthwise [1,KH,KW,C*dm] qdim 3, FC [Cout,K]), int32 biases with
// scale input_scale * weight_scale[c]. Weights and output ranges come from weighted-layer.ts;
// pooling, concatenation and reshape keep their input's quantization as TFLM requires.
import type { Activation, Model, Op, Padding, Tensor } from '../graph.ts';
import { elementCount } from '../dtype.ts';
import { InternalError } from '../errors.ts';
import { convOutputSize, convPadding } from '../padding.ts';
import { int32Bytes } from './seeded-weights.ts';
import type { ActQuant, ChannelDist, ValueStats } from './value-stats.ts';
import { averagePoolStats, clampStats, maxPoolStats, quantRange, reshapeStats, sumStats, totalMeanSq, uniformInt8Stats } from './value-stats.ts';
import type { OutQuantSpec, WeightLayout } from './weighted-layer.ts';
import { activationRange, calibrateWeightedLayer, rangeQuant } from './weighted-layer.ts';

/** A non-constant int8 tensor produced so far, with its quantization and value statistics. */
export interface Act {
  readonly index: number;
  readonly shape: readonly number[];
  readonly quant: ActQuant;
  readonly stats: ValueStats;
}

export type Pair = number | readonly [number, number];

/** How RESHAPE carries its shape: tensor and options alike, or Keras Flatten's converter form. */
export type ReshapeStyle = 'tensorAndOptions' | 'flatten';

interface WeightedSpec {
  readonly name: string;
  readonly activation?: Activation;
  readonly outQuant?: OutQuantSpec;
  /** Pre-activation std to aim for; defaults from WEIGHT_SCHEME. */
  readonly targetStd?: number;
  /** Centre each output channel with the bias like a folded BatchNorm (default true). */
  readonly center?: boolean;
}
export interface Conv2dSpec extends WeightedSpec {
  readonly outChannels: number;
  readonly kernel: Pair;
  readonly stride?: Pair;
  readonly padding?: Padding;
}
export interface DepthwiseConv2dSpec extends WeightedSpec {
  readonly kernel: Pair;
  readonly stride?: Pair;
  readonly padding?: Padding;
  readonly depthMultiplier?: number;
}
export interface TransposeConvSpec extends WeightedSpec {
  readonly outChannels: number;
  readonly kernel: Pair;
  readonly stride: Pair;
  readonly padding?: Padding;
}
export interface FullyConnectedSpec extends WeightedSpec {
  readonly units: number;
  /** One weight scale per output unit (qdim 0) instead of one per tensor (the default). */
  readonly perChannel?: boolean;
}
export interface Pool2dSpec {
  readonly name: string;
  readonly filter: Pair;
  /** Defaults to the filter size. */
  readonly stride?: Pair;
  readonly padding?: Padding;
  readonly activation?: Activation;
}

function pair(p: Pair): readonly [number, number] {
  return typeof p === 'number' ? [p, p] : p;
}

/** Mean over output positions of the window taps that lie in the padding along one axis. */
function paddedPerAxis(padding: Padding, inSize: number, k: number, stride: number): { valid: number } {
  const out = convOutputSize(padding, inSize, k, stride);
  const before = convPadding(stride, 1, inSize, k, out).before;
  let valid = 0;
  for (let o = 0; o < out; o++) {
    const start = o * stride - before;
    valid += Math.min(inSize, start + k) - Math.max(0, start);
  }
  return { valid: out > 0 ? valid / out : k };
}

/** Average count of a conv window's taps that read padding (rows and columns are independent). */
function paddedTaps(padding: Padding, h: number, w: number, kh: number, kw: number, sh: number, sw: number): number {
  if (padding === 'valid') return 0;
  return kh * kw - paddedPerAxis(padding, h, kh, sh).valid * paddedPerAxis(padding, w, kw, sw).valid;
}

/** Accumulates the tensors and ops of one graph; `build` returns the Model. */
export class GraphBuilder {
  private readonly tensors: Tensor[] = [];
  private readonly ops: Op[] = [];
  private readonly inputs: number[] = [];

  /** `seed` keys every constant: tensor bytes depend only on (seed, layer name, input stats). */
  constructor(private readonly seed: string) {}

  input(name: string, shape: readonly number[], q: ActQuant): Act {
    const quant: ActQuant = { scale: Math.fround(q.scale), zeroPoint: q.zeroPoint };
    const index = this.activation(name, shape, quant);
    this.inputs.push(index);
    return { index, shape, quant, stats: uniformInt8Stats(quant, shape[shape.length - 1] ?? 1) };
  }

  conv2d(x: Act, s: Conv2dSpec): Act {
    const [kh, kw] = pair(s.kernel);
    const [sh, sw] = pair(s.stride ?? 1);
    const padding = s.padding ?? 'same';
    const [n, h, w, cin] = this.nhwc(x, s.name);
    const outShape = [n, convOutputSize(padding, h, kh, sh), convOutputSize(padding, w, kw, sw), s.outChannels];
    const layout: WeightLayout = {
      name: s.name, filterShape: [s.outChannels, kh, kw, cin], quantizedDimension: 0, outChannels: s.outChannels,
      inChannels: cin, perChannel: true, taps: kh * kw, paddedTaps: paddedTaps(padding, h, w, kh, kw, sh, sw), channelFan: cin,
      layout: 'outer', tapShare: 1,
    };
    return this.weighted(x, s, layout, outShape, (filter, bias, out) => ({
      kind: 'conv2d', inputs: [x.index, filter, bias], outputs: [out],
      options: { padding, strideH: sh, strideW: sw, dilationH: 1, dilationW: 1, activation: s.activation ?? 'none' },
    }));
  }

  depthwiseConv2d(x: Act, s: DepthwiseConv2dSpec): Act {
    const [kh, kw] = pair(s.kernel);
    const [sh, sw] = pair(s.stride ?? 1);
    const padding = s.padding ?? 'same';
    const dm = s.depthMultiplier ?? 1;
    const [n, h, w, cin] = this.nhwc(x, s.name);
    const cout = cin * dm;
    const outShape = [n, convOutputSize(padding, h, kh, sh), convOutputSize(padding, w, kw, sw), cout];
    const layout: WeightLayout = {
      name: s.name, filterShape: [1, kh, kw, cout], quantizedDimension: 3, outChannels: cout,
      inChannels: cin, perChannel: true, taps: kh * kw, paddedTaps: paddedTaps(padding, h, w, kh, kw, sh, sw), channelFan: 1,
      layout: 'depthwise', tapShare: 1,
    };
    return this.weighted(x, s, layout, outShape, (filter, bias, out) => ({
      kind: 'depthwiseConv2d', inputs: [x.index, filter, bias], outputs: [out],
      options: { padding, strideH: sh, strideW: sw, dilationH: 1, dilationW: 1, activation: s.activation ?? 'none', depthMultiplier: dm },
    }));
  }

  /** TFLite TRANSPOSE_CONV: inputs [output_shape int32[4], filter [Cout,KH,KW,Cin], input, bias]. */
  transposeConv(x: Act, s: TransposeConvSpec): Act {
    const [kh, kw] = pair(s.kernel);
    const [sh, sw] = pair(s.stride);
    const padding = s.padding ?? 'valid';
    const [n, h, w, cin] = this.nhwc(x, s.name);
    const up = (size: number, k: number, st: number): number => (padding === 'same' ? size * st : (size - 1) * st + k);
    const outShape = [n, up(h, kh, sh), up(w, kw, sw), s.outChannels];
    const shapeTensor = this.constant(`${s.name}/output_shape`, [4], int32Bytes(outShape));
    const share = 1 / (sh * sw);
    const layout: WeightLayout = {
      name: s.name, filterShape: [s.outChannels, kh, kw, cin], quantizedDimension: 0, outChannels: s.outChannels,
      inChannels: cin, perChannel: true, taps: kh * kw * share, paddedTaps: 0, channelFan: cin, layout: 'outer', tapShare: share,
    };
    return this.weighted(x, s, layout, outShape, (filter, bias, out) => ({
      kind: 'transposeConv', inputs: [shapeTensor, filter, x.index, bias], outputs: [out],
      options: { padding, strideH: sh, strideW: sw, activation: s.activation ?? 'none' },
    }));
  }

  /** FULLY_CONNECTED on a [batch, K] input, filter [units, K]. */
  fullyConnected(x: Act, s: FullyConnectedSpec): Act {
    const [batch, k] = x.shape;
    if (x.shape.length !== 2 || batch === undefined || k === undefined) throw new InternalError(`zoo builder: ${s.name}: expected a [batch, K] input`);
    const perChannel = s.perChannel ?? false;
    const layout: WeightLayout = {
      name: s.name, filterShape: [s.units, k], quantizedDimension: 0, outChannels: s.units,
      inChannels: k, perChannel, taps: 1, paddedTaps: 0, channelFan: k, layout: 'outer', tapShare: 1,
    };
    return this.weighted(x, s, layout, [batch, s.units], (filter, bias, out) => ({
      kind: 'fullyConnected', inputs: [x.index, filter, bias], outputs: [out],
      options: { activation: s.activation ?? 'none', weightsFormat: 'default', keepNumDims: false, asymmetricQuantizeInputs: false },
    }));
  }

  maxPool2d(x: Act, s: Pool2dSpec): Act {
    return this.pool('maxPool2d', x, s);
  }

  averagePool2d(x: Act, s: Pool2dSpec): Act {
    return this.pool('averagePool2d', x, s);
  }

  /** Channel concatenation; TFLM needs every input quantized exactly like the output. */
  concatenation(name: string, xs: readonly Act[]): Act {
    const first = xs[0];
    if (first === undefined) throw new InternalError(`zoo builder: ${name}: no inputs`);
    const [n, h, w] = this.nhwc(first, name);
    let channels = 0;
    for (const x of xs) {
      const [xn, xh, xw, xc] = this.nhwc(x, name);
      if (xn !== n || xh !== h || xw !== w) throw new InternalError(`zoo builder: ${name}: spatial shapes differ`);
      if (x.quant.scale !== first.quant.scale || x.quant.zeroPoint !== first.quant.zeroPoint) {
        throw new InternalError(`zoo builder: ${name}: inputs must share quantization`);
      }
      channels += xc;
    }
    const shape = [n, h, w, channels];
    const index = this.activation(name, shape, first.quant);
    this.ops.push({ kind: 'concatenation', inputs: xs.map((x) => x.index), outputs: [index], options: { axis: 3, activation: 'none' } });
    const stats: ValueStats = { channels: xs.flatMap((x) => x.stats.channels) };
    return { index, shape, quant: first.quant, stats };
  }

  /** Elementwise add; the inputs may have different scales (TFLM rescales both). */
  add(name: string, a: Act, b: Act, activation: Activation = 'none'): Act {
    if (a.shape.join('x') !== b.shape.join('x')) throw new InternalError(`zoo builder: ${name}: shapes differ`);
    const sum = sumStats(a.stats, b.stats);
    const quant = rangeQuant(Math.sqrt(totalMeanSq(sum)), activation);
    const index = this.activation(name, a.shape, quant);
    this.ops.push({ kind: 'add', inputs: [a.index, b.index], outputs: [index], options: { activation, potScaleInt16: true } });
    return { index, shape: a.shape, quant, stats: this.afterActivation(sum, activation, quant) };
  }

  /**
   * RESHAPE with the new shape both as an int32 input tensor and in the options, as converters
   * write it; style 'flatten' writes Keras Flatten as TensorFlow's MLIR converter lowers it: the
   * tensor [-1, rest...] alone (no options), the batch left for the runtime to infer.
   */
  reshape(name: string, x: Act, newShape: readonly number[], style: ReshapeStyle = 'tensorAndOptions'): Act {
    if (elementCount(newShape) !== elementCount(x.shape)) throw new InternalError(`zoo builder: ${name}: element counts differ`);
    const flatten = style === 'flatten';
    const written = flatten ? [-1, ...newShape.slice(1)] : newShape;
    const shapeTensor = this.constant(`${name}/shape`, [written.length], int32Bytes(written));
    const index = this.activation(name, newShape, x.quant);
    this.ops.push({ kind: 'reshape', inputs: [x.index, shapeTensor], outputs: [index], options: { newShape: flatten ? null : [...newShape] } });
    return { index, shape: newShape, quant: x.quant, stats: reshapeStats(x.stats, newShape[newShape.length - 1] ?? 1) };
  }

  /** Softmax with TFLM's required int8 output quantization: scale 1/256, zero point -128. */
  softmax(name: string, x: Act): Act {
    const quant: ActQuant = { scale: 1 / 256, zeroPoint: -128 };
    const index = this.activation(name, x.shape, quant);
    this.ops.push({ kind: 'softmax', inputs: [x.index], outputs: [index], options: { beta: 1 } });
    const classes = x.shape[x.shape.length - 1] ?? 1;
    const stats: ValueStats = { channels: new Array<ChannelDist>(classes).fill({ mu: 1 / classes, sigma: 0, lo: 0, hi: 1 }) };
    return { index, shape: x.shape, quant, stats };
  }

  build(description: string, outputs: readonly Act[]): Model {
    return {
      version: 3,
      description,
      graph: { name: 'main', tensors: [...this.tensors], ops: [...this.ops], inputs: [...this.inputs], outputs: outputs.map((o) => o.index) },
      metadata: [],
      signatureDefs: [],
    };
  }

  private weighted(x: Act, s: WeightedSpec, l: WeightLayout, outShape: readonly number[], makeOp: (filter: number, bias: number, out: number) => Op): Act {
    if (outShape.some((d) => !(Number.isInteger(d) && d > 0))) {
      throw new InternalError(`zoo builder: ${l.name}: bad output shape [${outShape.join(', ')}]`);
    }
    const c = calibrateWeightedLayer(x, l, {
      key: `${this.seed}/${l.name}`, activation: s.activation ?? 'none',
      ...(s.targetStd === undefined ? {} : { targetStd: s.targetStd }),
      ...(s.center === undefined ? {} : { center: s.center }),
      ...(s.outQuant === undefined ? {} : { outQuant: s.outQuant }),
    });
    const zeros = (k: number): number[] => new Array<number>(k).fill(0);
    const filter = this.push({
      name: `${l.name}/filter`, dtype: 'int8', shape: [...l.filterShape], data: c.filterData, isVariable: false,
      quant: { scale: [...c.filterScales], zeroPoint: zeros(c.filterScales.length), quantizedDimension: l.perChannel ? l.quantizedDimension : 0 },
    });
    const bias = this.push({
      name: `${l.name}/bias`, dtype: 'int32', shape: [l.outChannels], data: c.biasData, isVariable: false,
      quant: { scale: [...c.biasScales], zeroPoint: zeros(c.biasScales.length), quantizedDimension: 0 },
    });
    const out = this.activation(l.name, outShape, c.quant);
    this.ops.push(makeOp(filter, bias, out));
    return { index: out, shape: outShape, quant: c.quant, stats: c.stats };
  }

  private pool(kind: 'maxPool2d' | 'averagePool2d', x: Act, s: Pool2dSpec): Act {
    const [fh, fw] = pair(s.filter);
    const [sh, sw] = pair(s.stride ?? s.filter);
    const padding = s.padding ?? 'valid';
    const activation = s.activation ?? 'none';
    const [n, h, w, c] = this.nhwc(x, s.name);
    const shape = [n, convOutputSize(padding, h, fh, sh), convOutputSize(padding, w, fw, sw), c];
    if (shape.some((d) => !(d > 0))) throw new InternalError(`zoo builder: ${s.name}: window does not fit`);
    // TFLM pooling requires input and output quantization to be identical.
    const index = this.activation(s.name, shape, x.quant);
    this.ops.push({
      kind, inputs: [x.index], outputs: [index],
      options: { padding, strideH: sh, strideW: sw, filterH: fh, filterW: fw, activation },
    });
    // SAME windows at the border hold fewer values; TFLM pools over the valid ones only.
    const count = paddedPerAxis(padding, h, fh, sh).valid * paddedPerAxis(padding, w, fw, sw).valid;
    const pooled = kind === 'maxPool2d' ? maxPoolStats(x.stats, count) : averagePoolStats(x.stats, count);
    return { index, shape, quant: x.quant, stats: this.afterActivation(pooled, activation, x.quant) };
  }

  private afterActivation(stats: ValueStats, activation: Activation, quant: ActQuant): ValueStats {
    const r = activationRange(activation);
    const q = quantRange(quant);
    return clampStats(stats, Math.max(r.lo, q.lo), Math.min(r.hi, q.hi));
  }

  private nhwc(x: Act, where: string): readonly [number, number, number, number] {
    const [n, h, w, c] = x.shape;
    if (x.shape.length !== 4 || n === undefined || h === undefined || w === undefined || c === undefined) {
      throw new InternalError(`zoo builder: ${where}: expected an NHWC input, got [${x.shape.join(', ')}]`);
    }
    return [n, h, w, c];
  }

  private activation(name: string, shape: readonly number[], q: ActQuant): number {
    return this.push({
      name, dtype: 'int8', shape: [...shape], data: null, isVariable: false,
      quant: { scale: [q.scale], zeroPoint: [q.zeroPoint], quantizedDimension: 0 },
    });
  }

  private constant(name: string, shape: readonly number[], data: Uint8Array): number {
    return this.push({ name, dtype: 'int32', shape: [...shape], quant: null, data, isVariable: false });
  }

  private push(t: Tensor): number {
    this.tensors.push(t);
    return this.tensors.length - 1;
  }
}
