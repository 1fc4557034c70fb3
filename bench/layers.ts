// Single-layer int8 throughput: a seeded Conv2D / DepthwiseConv2D / TransposeConv (scatter and
// scratch-free gather forms; zoo GraphBuilder, greedy plan)
// run by the runtime's kernels (WebAssembly; the `js*` fields keep their old names), by its traced executor (tinybench means), and by the gcc -O2 build of the
// C emitted from the same spec, in one process run; MAC/s, JS/C ratio, traced slowdown, and an
// output checksum cross-check (C output bytes = JS output bytes). JS/C compares like with like: the
// JS time is measured as the C driver measures (best of 5 rounds of >= 0.3 s averages), the two
// alternating three times (a run of the C driver, then the JS rounds) and each taking its best, so
// that a busy spell of the host does not fall on one side only (one block each gave the 3x3/2
// depthwise layer 0.45-1.24x within an hour); the tinybench-mean ratio is reported beside it.
import { Bench } from 'tinybench';
import type { Model } from '../src/ir/index.ts';
import { GraphBuilder } from '../src/ir/index.ts';
import { countMacs } from '../src/kernels/index.ts';
import type { TraceSink } from '../src/kernels/index.ts';
import { preparePlannedModel, randomInputs } from '../src/optimizer/index.ts';
import { buildCKernel, fnv1a } from './c-kernel.ts';

export interface LayerResult {
  readonly name: string;
  readonly kind: string;
  readonly input: string;
  readonly macs: number;
  readonly jsMacPerS: number;
  readonly cMacPerS: number;
  /** jsMacPerS / cMacPerS (both best of 5 rounds of >= 0.3 s averages). */
  readonly jsOverC: number;
  /** The same ratio with the JS time taken as the tinybench mean latency. */
  readonly jsMeanOverC: number;
  readonly tracedSlowdown: number;
  readonly checksumsMatch: boolean;
}

interface LayerCase {
  readonly name: string;
  readonly input: readonly [number, number, number, number];
  readonly build: (b: GraphBuilder, x: ReturnType<GraphBuilder['input']>) => ReturnType<GraphBuilder['input']>;
  /** TransposeConv in mcusim's scratch-free gather form instead of TFLM's scratch scatter. */
  readonly scratchFree?: boolean;
}

const upConv = (b: GraphBuilder, x: ReturnType<GraphBuilder['input']>): ReturnType<GraphBuilder['input']> =>
  b.transposeConv(x, { name: 'up', outChannels: 16, kernel: 2, stride: 2, padding: 'valid' });

export const LAYER_CASES: readonly LayerCase[] = [
  { name: 'conv2d 3x3 32->32', input: [1, 32, 32, 32], build: (b, x) => b.conv2d(x, { name: 'conv', outChannels: 32, kernel: 3, activation: 'relu' }) },
  { name: 'conv2d 1x1 64->64', input: [1, 24, 24, 64], build: (b, x) => b.conv2d(x, { name: 'pw', outChannels: 64, kernel: 1, activation: 'relu6' }) },
  { name: 'depthwiseConv2d 3x3 x64', input: [1, 48, 48, 64], build: (b, x) => b.depthwiseConv2d(x, { name: 'dw', kernel: 3, activation: 'relu6' }) },
  { name: 'depthwiseConv2d 3x3/2 x128', input: [1, 24, 24, 128], build: (b, x) => b.depthwiseConv2d(x, { name: 'dw2', kernel: 3, stride: 2, activation: 'relu6' }) },
  { name: 'transposeConv 2x2/2 32->16 (TFLM scatter)', input: [1, 20, 30, 32], build: upConv },
  { name: 'transposeConv 2x2/2 32->16 (scratch-free)', input: [1, 20, 30, 32], build: upConv, scratchFree: true },
];

function layerModel(c: LayerCase): Model {
  const b = new GraphBuilder(`mcusim-bench/${c.name}`);
  const x = b.input('input', c.input, { scale: 0.02, zeroPoint: -3 });
  const m = b.build(c.name, [c.build(b, x)]);
  if (c.scratchFree !== true) return m;
  const ops = m.graph.ops.map((o) => (o.kind === 'transposeConv' ? { ...o, options: { ...o.options, scratchFree: true } } : o));
  return { ...m, graph: { ...m.graph, ops } };
}

/** Runs of the C driver, each followed by the JS rounds (benchLayer). */
const ALTERNATIONS = 3;

/** Best of `rounds` per-run averages over rounds of at least `minSeconds` (as the C driver). */
export function bestRoundSeconds(run: () => void, minSeconds = 0.3, rounds = 5): number {
  const t0 = performance.now();
  run();
  const once = (performance.now() - t0) / 1000;
  const n = once > 0 ? Math.floor(minSeconds / once) + 1 : 1000;
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const s = performance.now();
    for (let i = 0; i < n; i++) run();
    best = Math.min(best, (performance.now() - s) / 1000 / n);
  }
  return best;
}

export async function benchLayer(c: LayerCase, timeMs: number): Promise<LayerResult> {
  const model = layerModel(c);
  const pm = preparePlannedModel(model);
  const { graph, runtime } = pm;
  const op = graph.ops[0];
  if (op === undefined) throw new Error(`${c.name}: no op`);
  const macs = countMacs(op, graph);
  const inputs = randomInputs(graph, 1);
  const outputs = runtime.run(inputs);
  const sink: TraceSink = () => {};
  for (let k = 0; k < 3; k++) (runtime.runOp(0), runtime.runOp(0, sink));
  const bench = new Bench({ time: timeMs, warmupTime: 200 });
  bench.add('fast', () => runtime.runOp(0));
  bench.add('traced', () => runtime.runOp(0, sink));
  await bench.run();
  const [fastMs, tracedMs] = bench.tasks.map((t) => t.result?.latency.mean ?? NaN);
  const inT = graph.inputs[0] ?? 0;
  const outT = graph.outputs[0] ?? 0;
  const inst = runtime.instances[0];
  if (inst === undefined) throw new Error(`${c.name}: no instance`);
  const out = outputs[0] ?? new Uint8Array(0);
  const native = buildCKernel(
    inst,
    pm.arenaBytes,
    [{ offset: pm.tensorOffsets[inT] ?? 0, bytes: inputs[0] ?? new Uint8Array(0) }],
    { offset: pm.tensorOffsets[outT] ?? 0, bytes: out.length },
  );
  let cBest = Infinity;
  let jsBest = Infinity;
  const checksums = new Set<string>();
  try {
    for (let k = 0; k < ALTERNATIONS; k++) {
      const t = native.time();
      cBest = Math.min(cBest, t.secondsPerRun);
      checksums.add(t.checksum);
      jsBest = Math.min(jsBest, bestRoundSeconds(() => runtime.runOp(0)));
    }
  } finally {
    native.dispose();
  }
  const jsMacPerS = macs / jsBest;
  const cMacPerS = macs / cBest;
  return {
    name: c.name,
    kind: op.kind,
    input: c.input.join('x'),
    macs,
    jsMacPerS,
    cMacPerS,
    jsOverC: jsMacPerS / cMacPerS,
    jsMeanOverC: macs / ((fastMs ?? NaN) / 1000) / cMacPerS,
    tracedSlowdown: (tracedMs ?? NaN) / (fastMs ?? NaN),
    checksumsMatch: checksums.size === 1 && checksums.has(fnv1a(out)),
  };
}
