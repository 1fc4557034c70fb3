// Seeded random one-op setups for the kernels with variable state (SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM),
// for the property tests: every variable state tensor is also a graph input, so each case starts
// from random state bytes (not only TFLM's zero reset), and the op updates it in place.
import type { DType, Graph, OpOptionsMap, Tensor } from '../../src/ir/index.ts';
import { byteSize, elementCount } from '../../src/ir/index.ts';
import type { ConformanceSetup } from '../../src/sim/index.ts';
import { layoutSingleOp } from '../../src/sim/index.ts';
import { encodeInts } from './replay-helpers.ts';

type Rng = () => number;
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const range = (dtype: DType): [number, number] => (dtype === 'int8' ? [-128, 127] : dtype === 'int16' ? [-32768, 32767] : [-100000, 100000]);
const randomValues = (r: Rng, dtype: DType, n: number): number[] => Array.from({ length: n }, () => int(r, ...range(dtype)));

interface Desc {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly scale?: number;
  readonly zp?: number;
  readonly data?: readonly number[];
  readonly variable?: boolean;
}

function tensorOf(d: Desc, name: string): Tensor {
  return {
    name, dtype: d.dtype, shape: d.shape,
    quant: d.scale === undefined ? null : { scale: [Math.fround(d.scale)], zeroPoint: [d.zp ?? 0], quantizedDimension: 0 },
    data: d.data ? encodeInts(d.dtype, d.data) : null,
    isVariable: d.variable === true,
  };
}

/** One op over `inputs` (null = omitted); non-constant inputs (variables included) are graph inputs with random bytes. */
function setupStateful<K extends 'svdf' | 'unidirectionalSequenceLstm'>(r: Rng, kind: K, options: OpOptionsMap[K], inputs: readonly (Desc | null)[], output: Desc): ConformanceSetup {
  const present = inputs.filter((d): d is Desc => d !== null);
  const tensors = [...present.map((d, i) => tensorOf(d, `in${i}`)), tensorOf(output, 'out0')];
  let k = 0;
  const inIdx = inputs.map((d) => (d === null ? -1 : k++));
  const graph = {
    name: `${kind}-prop`, tensors,
    ops: [{ kind, inputs: inIdx, outputs: [present.length], options }],
    inputs: present.flatMap((d, i) => (d.data ? [] : [i])),
    outputs: [present.length],
  } as Graph;
  return {
    graph, ...layoutSingleOp(graph),
    inputs: present.filter((d) => !d.data).map((d) => encodeInts(d.dtype, randomValues(r, d.dtype, elementCount(d.shape)))),
    expected: [new Uint8Array(byteSize(output.dtype, output.shape))],
  };
}

const weights = (r: Rng, dtype: DType, shape: readonly number[], scale: number): Desc => ({ dtype, shape, scale, zp: 0, data: randomValues(r, dtype, elementCount(shape)) });
const biasOf = (r: Rng, n: number, scale: number): Desc => ({ dtype: 'int32', shape: [n], scale, zp: 0, data: Array.from({ length: n }, () => int(r, -20000, 20000)) });

/** SVDF with int16 or int8 weights_time / state, rank 1-3, random zero points. */
export function svdfCase(r: Rng): ConformanceSetup {
  const [batches, inputSize, units, rank, memory] = [int(r, 1, 3), int(r, 1, 12), int(r, 1, 5), int(r, 1, 3), int(r, 1, 6)];
  const filters = units * rank;
  const st: DType = r() < 0.5 ? 'int16' : 'int8';
  const stateScale = st === 'int16' ? 0.0005 + r() * 0.002 : 0.01 + r() * 0.05;
  const timeScale = st === 'int16' ? 0.00002 + r() * 0.0002 : 0.002 + r() * 0.01;
  const inputs: Desc[] = [
    { dtype: 'int8', shape: [batches, inputSize], scale: 0.005 + r() * 0.02, zp: int(r, -20, 20) },
    weights(r, 'int8', [filters, inputSize], 0.002 + r() * 0.01),
    weights(r, st, [filters, memory], timeScale),
    biasOf(r, units, Math.fround(Math.fround(stateScale) * Math.fround(timeScale))),
    { dtype: st, shape: [batches, memory * filters], scale: stateScale, zp: st === 'int8' ? int(r, -10, 10) : 0, variable: true },
  ];
  const options = { rank, activation: r() < 0.5 ? 'none' : 'relu', asymmetricQuantizeInputs: false } as const;
  return setupStateful(r, 'svdf', options, inputs, { dtype: 'int8', shape: [batches, units], scale: 0.01 + r() * 0.05, zp: int(r, -20, 20) });
}

/** Integer LSTM (int8 / int16 cell), batch- or time-major, optional cell clip. */
export function lstmCase(r: Rng): ConformanceSetup {
  const [batches, steps, inputSize, units] = [int(r, 1, 3), int(r, 1, 4), int(r, 1, 6), int(r, 1, 6)];
  const timeMajor = r() < 0.4;
  const xShape = timeMajor ? [steps, batches, inputSize] : [batches, steps, inputSize];
  const inScale = 0.004 + r() * 0.02;
  const hScale = 0.003 + r() * 0.01;
  const hZp = int(r, -20, 20);
  const w = (cols: number): Desc => weights(r, 'int8', [units, cols], 0.002 + r() * 0.02);
  const inW = [0, 1, 2, 3].map(() => w(inputSize));
  const recW = [0, 1, 2, 3].map(() => w(units));
  const biases = [0, 1, 2, 3].map(() => biasOf(r, units, 0.0001));
  const cellPower = -int(r, 8, 15);
  const inputs: (Desc | null)[] = [
    { dtype: 'int8', shape: xShape, scale: inScale, zp: int(r, -20, 20) },
    ...inW, ...recW, null, null, null, ...biases, null, null,
    { dtype: 'int8', shape: [batches, units], scale: hScale, zp: hZp, variable: true },
    { dtype: 'int16', shape: [batches, units], scale: 2 ** cellPower, zp: 0, variable: true },
    null, null, null, null,
  ];
  const options = {
    activation: 'tanh', cellClip: r() < 0.3 ? Math.fround(0.5 + r() * 8) : 0, projClip: 0, timeMajor,
    asymmetricQuantizeInputs: false, diagonalRecurrentTensors: false,
  } as const;
  return setupStateful(r, 'unidirectionalSequenceLstm', options, inputs, { dtype: 'int8', shape: [xShape[0] ?? 1, xShape[1] ?? 1, units], scale: hScale, zp: hZp });
}
