// Whole-model inference time with the TFLM greedy plan: the fast JS executor, the traced one
// (every arena access reported to a sink that does nothing) and the checked one (the traced run
// into the memory tracer, as `verify` runs it), for zoo models: MobileNet v1 0.25 (person_detect's
// architecture, at 128x128x3) and Tiny U-Net.
// A model whose ops have no kernel yet is reported as skipped with the reason.
import { Bench } from 'tinybench';
import type { Model } from '../src/ir/index.ts';
import { McusimError, buildZooModel } from '../src/ir/index.ts';
import { countMacs } from '../src/kernels/index.ts';
import type { TraceSink } from '../src/kernels/index.ts';
import { preparePlannedModel, randomInputs, runPlanned, tracerFor } from '../src/optimizer/index.ts';

const WARMUP_RUNS = 4;

export interface ModelResult {
  readonly name: string;
  readonly status: 'ok' | 'skipped';
  readonly reason?: string;
  readonly ops?: number;
  readonly macs?: number;
  readonly peakBytes?: number;
  readonly fastMs?: number;
  readonly tracedMs?: number;
  readonly tracedSlowdown?: number;
  /** The traced run into a Tracer (reset before each run). */
  readonly checkedMs?: number;
  readonly checkedSlowdown?: number;
  readonly traceEvents?: number;
}

export interface ModelCase {
  readonly name: string;
  readonly load: () => Model;
}

export const MODEL_CASES: readonly ModelCase[] = [
  { name: 'zoo:mobilenet-v1-0.25-128', load: () => buildZooModel('mobilenet-v1-0.25-128') },
  { name: 'zoo:tiny-unet', load: () => buildZooModel('tiny-unet') },
];

export async function benchModel(c: ModelCase, timeMs: number): Promise<ModelResult> {
  let pm;
  try {
    pm = preparePlannedModel(c.load(), { traceShadow: true });
  } catch (e) {
    if (!(e instanceof McusimError)) throw e;
    return { name: c.name, status: 'skipped', reason: `${e.code}: ${e.message.split('\n')[0] ?? ''}` };
  }
  const { graph, runtime } = pm;
  const inputs = randomInputs(graph, 1);
  let events = 0;
  const counting: TraceSink = (_op, _log, count) => {
    events += count;
  };
  runPlanned(pm, { inputs, trace: counting });
  const traceEvents = events;
  const sink: TraceSink = () => {};
  const tracer = tracerFor(pm);
  const checked = (): void => {
    tracer.reset();
    runtime.run(inputs, { trace: tracer.sink });
  };
  // A cold run costs 10-30x a warm one (every op's generated function is tiered up by V8
  // separately): warm both executors up untimed so the table shows steady state.
  for (let k = 0; k < WARMUP_RUNS; k++) {
    runtime.run(inputs);
    runtime.run(inputs, { trace: sink });
    checked();
  }
  const bench = new Bench({ time: timeMs, iterations: 5, warmup: false });
  bench.add('fast', () => void runtime.run(inputs));
  bench.add('traced', () => void runtime.run(inputs, { trace: sink }));
  bench.add('checked', checked);
  await bench.run();
  if (tracer.violations().length > 0) throw new Error(`${c.name}: the tracer found ${tracer.violations()[0]?.message ?? ''}`);
  const [fastMs, tracedMs, checkedMs] = bench.tasks.map((t) => t.result?.latency.mean ?? NaN);
  return {
    name: c.name,
    status: 'ok',
    ops: graph.ops.length,
    macs: graph.ops.reduce((s, op) => s + countMacs(op, graph), 0),
    peakBytes: pm.plan.peakBytes,
    fastMs: fastMs ?? NaN,
    tracedMs: tracedMs ?? NaN,
    tracedSlowdown: (tracedMs ?? NaN) / (fastMs ?? NaN),
    checkedMs: checkedMs ?? NaN,
    checkedSlowdown: (checkedMs ?? NaN) / (fastMs ?? NaN),
    traceEvents,
  };
}
