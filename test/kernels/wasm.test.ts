// The WebAssembly lowering against the JS lowering on the edges the random op cases rarely reach:
// the inline primitives at int32 extremes (srdhm's saturation, every shift), and C's division and
// remainder by zero and -1; and every kernel of the oracle models lowers to WebAssembly (none falls
// back to JS), and instances of one loweringKey lower to the same code (what lowerWasmCached shares).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTflite } from '../../src/ir/index.ts';
import type { KernelInstance, LoweredWasm, Nest } from '../../src/kernels/index.ts';
import { compileKernel, compileWasmKernels, For, loweringKey, lowerWasm, lowerWasmCached, makeArenaViews, Store, WasmUnsupported } from '../../src/kernels/index.ts';
import { preparePlannedModel } from '../../src/optimizer/index.ts';
import { collectTrace } from './replay-helpers.ts';
import { OP_MODELS, ORACLE_MODELS, describeWithData } from '../oracle-paths.ts';

const EDGES = [0, 1, -1, 2, -2, 3, 7, 31, 32, 33, 127, -128, 255, 1 << 30, -(1 << 30), 0x7fffffff, -0x80000000, 0x40000001, -0x3fffffff, 123456789, -987654321];

/** Every pair of edge values: x[i], y[i]. */
function pairs(): { readonly x: Int32Array; readonly y: Int32Array } {
  const x: number[] = [];
  const y: number[] = [];
  for (const a of EDGES) for (const b of EDGES) (x.push(a), y.push(b));
  return { x: Int32Array.from(x), y: Int32Array.from(y) };
}

/** out[i] = expr(x[i], y[i]) over int32 arena buffers, run by both lowerings (fast and traced). */
function both(expr: string, x: Int32Array, y: Int32Array): { wasm: Int32Array; js: Int32Array; sameTrace: boolean } {
  const n = x.length;
  const nest: Nest = [For('i', '0', String(n), [Store('out', 'i', expr)])];
  const inst: KernelInstance = {
    name: 'edge', opIndex: 0, nest, flags: {}, scalars: {}, arrays: {},
    buffers: {
      x: { dtype: 'int32', offsetBytes: 0, data: null, id: 0, sizeBytes: 4 * n },
      y: { dtype: 'int32', offsetBytes: 4 * n, data: null, id: 1, sizeBytes: 4 * n },
      out: { dtype: 'int32', offsetBytes: 8 * n, data: null, id: 2, sizeBytes: 4 * n },
    },
  };
  const bytes = 12 * n;
  const run = (views: ReturnType<typeof makeArenaViews>, k: { run: () => void; runTraced: (s: ReturnType<typeof collectTrace>['sink']) => void }): { out: Int32Array; trace: Buffer } => {
    views.i32.set(x, 0);
    views.i32.set(y, n);
    k.run();
    const out = views.i32.slice(2 * n, 3 * n);
    const t = collectTrace();
    k.runTraced(t.sink);
    expect(views.i32.slice(2 * n, 3 * n)).toEqual(out);
    return { out, trace: t.bytes() };
  };
  const w = compileWasmKernels([inst], bytes);
  const wk = w.kernels[0];
  if (wk === null || wk === undefined) throw new Error('not lowered to WebAssembly');
  const wasm = run(makeArenaViews(w.buffer), wk);
  const jsViews = makeArenaViews(new ArrayBuffer(Math.ceil(bytes / 8) * 8));
  const js = run(jsViews, compileKernel(inst, jsViews));
  return { wasm: wasm.out, js: js.out, sameTrace: wasm.trace.equals(js.trace) };
}

describe('WebAssembly kernels == JS kernels at int32 edges', () => {
  const { x, y } = pairs();
  const shifts = Int32Array.from(x, (_, i) => i % 32);
  const cases: readonly [string, Int32Array][] = [
    ['srdhm(x[i], y[i])', y],
    ['mbqm(x[i], y[i], 0 - (i % 32))', y],
    ['mbqm(x[i], y[i], i % 32)', y],
    ['rdbpot(x[i], y[i])', shifts],
    ['shl(x[i], y[i])', shifts],
    ['clamp(x[i], 0 - 128, y[i])', y],
    ['min(x[i], y[i]) + max(x[i], y[i])', y],
    ['avgRound(x[i], y[i])', y],
    ['x[i] / y[i]', y],
    ['x[i] % y[i]', y],
    ['x[i] * y[i] - (0 - x[i])', y],
    ['(x[i] < y[i]) + (x[i] >= y[i] && y[i] != 0) * 2 + (x[i] == 0 || y[i] < 0) * 4 + !x[i] * 8', y],
  ];
  it.each(cases)('%s', (expr, yy) => {
    const r = both(expr, x, yy);
    expect(Array.from(r.wasm)).toEqual(Array.from(r.js));
    expect(r.sameTrace).toBe(true);
  });
  it('srdhm saturates INT32_MIN * INT32_MIN to INT32_MAX, as TFLM', () => {
    const r = both('srdhm(x[i], y[i])', Int32Array.of(-0x80000000), Int32Array.of(-0x80000000));
    expect(r.wasm[0]).toBe(0x7fffffff);
  });
});

/** A lowering as comparable text. */
const lowered = (l: LoweredWasm): string => JSON.stringify(l, (_, v: unknown) => (v instanceof Uint8Array ? [...v] : v));

describeWithData('models', 'every kernel of the oracle models lowers to WebAssembly', () => {
  const files = [ORACLE_MODELS, OP_MODELS].flatMap((d) => (existsSync(d) ? readdirSync(d, { recursive: true, encoding: 'utf8' }) : [])
    .filter((f) => f.endsWith('.tflite')).map((f) => join(d, f)));
  it(`${files.length} models, fast and traced code; one lowering per loweringKey`, () => {
    expect(files.length).toBeGreaterThan(20);
    const refused: string[] = [];
    // Per key: the first instance's fresh lowering (as JSON) and where it was placed; a key shared by
    // instances placed apart (other offsets, tensor ids or op index) must lower to the same code.
    const seen = new Map<string, { readonly code: string; readonly placement: string }>();
    let sharedApart = 0;
    for (const f of files) {
      const pm = preparePlannedModel(importTflite(new Uint8Array(readFileSync(f))), { verify: false });
      for (const inst of pm.runtime.instances) {
        for (const mode of ['fast', 'traced'] as const) {
          let code: string;
          try {
            code = lowered(lowerWasm(inst, mode));
          } catch (e) {
            refused.push(`${f} op ${inst.opIndex} ${inst.name} ${mode}: ${e instanceof Error ? e.message : String(e)}`);
            continue;
          }
          expect(lowered(lowerWasmCached(inst, mode))).toBe(code);
          const key = loweringKey(inst, mode);
          const placement = JSON.stringify([inst.opIndex, Object.values(inst.buffers).map((b) => [b.offsetBytes, b.id]), Object.values(inst.arrays).map((a) => [...a])]);
          const first = seen.get(key);
          if (first === undefined) seen.set(key, { code, placement });
          else {
            expect(code, `${f} op ${inst.opIndex} ${mode}`).toBe(first.code);
            if (first.placement !== placement) sharedApart++;
          }
          // The same instance placed elsewhere: same key, same code.
          const moved: KernelInstance = {
            ...inst,
            opIndex: inst.opIndex + 5,
            buffers: Object.fromEntries(Object.entries(inst.buffers).map(([k, b]) => [k, b.offsetBytes === null ? b : { ...b, offsetBytes: b.offsetBytes + 48, id: b.id + 3 }])),
          };
          expect(loweringKey(moved, mode)).toBe(key);
          expect(lowered(lowerWasm(moved, mode))).toBe(code);
        }
      }
    }
    expect(refused).toEqual([]);
    // Not vacuous across models either: repeated blocks (other offsets, ids, per-channel arrays) share keys.
    expect(sharedApart).toBeGreaterThan(10);
  });
});

describe('lowerWasmCached', () => {
  const base: KernelInstance = {
    name: 'addone', opIndex: 2, nest: [For('i', '0', 'n', [Store('out', 'i', 'x[i] + 1')])], flags: {}, scalars: { n: 4 }, arrays: {},
    buffers: {
      x: { dtype: 'int8', offsetBytes: 0, data: null, id: 0, sizeBytes: 4 },
      out: { dtype: 'int8', offsetBytes: 16, data: null, id: 1, sizeBytes: 4 },
    },
  };
  const withX = (x: Partial<KernelInstance['buffers'][string]>): KernelInstance => ({ ...base, buffers: { ...base.buffers, x: { ...(base.buffers['x'] as KernelInstance['buffers'][string]), ...x } } });

  it('shares one lowering between instances placed apart', () => {
    const moved: KernelInstance = { ...withX({ offsetBytes: 64, id: 9 }), opIndex: 7 };
    for (const mode of ['fast', 'traced'] as const) expect(lowerWasmCached(moved, mode)).toBe(lowerWasmCached(base, mode));
  });

  it('keys apart what the code depends on: a buffer\'s type, constant or arena, storage region, a scalar', () => {
    const variants: Record<string, KernelInstance> = {
      dtype: withX({ dtype: 'int16', sizeBytes: 8 }),
      constant: withX({ offsetBytes: null, data: new Uint8Array(4) }),
      storage: withX({ region: 'storage' }),
      scalar: { ...base, scalars: { n: 3 } },
    };
    for (const mode of ['fast', 'traced'] as const) {
      const code = lowered(lowerWasm(base, mode));
      for (const [what, v] of Object.entries(variants)) {
        expect(loweringKey(v, mode), what).not.toBe(loweringKey(base, mode));
        if (what === 'storage') expect(() => lowerWasmCached(v, mode)).toThrow(WasmUnsupported);
        else if (what !== 'scalar') expect(lowered(lowerWasmCached(v, mode)), what).not.toBe(code);
      }
    }
  });
});
