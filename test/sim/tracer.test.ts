// The Valgrind-style tracer: each violation kind on hand-made event logs, a clean trace of a real
// one-op run, dumps (JSON lines / CSV) and the SVG plot, and person_detect traced clean under the
// TFLM greedy plan; the WebAssembly check against the JavaScript one on seeded logs that break every
// rule, and on a whole traced model.
import { describe, expect, it } from 'vitest';
import type { Graph, Tensor } from '../../src/ir/index.ts';
import { importTflite } from '../../src/ir/index.ts';
import { traceHeader } from '../../src/kernels/index.ts';
import { buildSingleOpGraph, layoutOp, preparePlannedModel, runLayout, runPlanned, tracerFor } from '../../src/optimizer/index.ts';
import { TracePlot, Tracer, formatTraceChunk, renderTraceSvg, traceFormatForPath } from '../../src/sim/index.ts';
import type { WasmShadow } from '../../src/sim/shadow-scan.ts';
import type { ReservedSpace } from '../../src/kernels/index.ts';
import { makeWasmShadow, shadowBytes } from '../../src/sim/shadow-scan.ts';
import { wasmApi } from '../../src/kernels/index.ts';
import { readFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

const act = (name: string, n: number): Tensor => ({ name, dtype: 'int8', shape: [n], quant: null, data: null, isVariable: false });
/** a (input, [0,8)) -> relu -> b ([8,16)) -> relu -> c ([16,24)); arena 32 B. */
const graph: Graph = {
  name: 'g',
  tensors: [act('a', 8), act('b', 8), act('c', 8)],
  ops: [
    { kind: 'relu', inputs: [0], outputs: [1], options: {} },
    { kind: 'relu', inputs: [1], outputs: [2], options: {} },
  ],
  inputs: [0],
  outputs: [2],
};
const offsets = [0, 8, 16];

function log(...events: [kind: 'load' | 'store', addr: number, buffer: number, width?: number][]): Int32Array {
  const l = new Int32Array(events.length * 2);
  events.forEach(([k, a, b, w], i) => {
    l[2 * i] = traceHeader(k, w ?? 1, b);
    l[2 * i + 1] = a;
  });
  return l;
}
const tracer = (): Tracer => new Tracer({ graph, tensorOffsets: offsets, arenaBytes: 32, record: true });

describe('Tracer', () => {
  it('a correct sequence is clean (inputs written by the pseudo-step)', () => {
    const t = tracer();
    t.sink(0, log(['load', 0, 0], ['store', 8, 1]), 2);
    t.sink(1, log(['load', 8, 1], ['store', 16, 2]), 2);
    expect(t.violations()).toEqual([]);
    expect(t.eventCount()).toBe(4);
    expect(t.events()[3]).toEqual({ step: 3, opIndex: 1, kind: 'store', address: 16, widthBytes: 1, bufferId: 2 });
  });

  it('clobber: a load of a byte last stored by another buffer', () => {
    const t = tracer();
    t.sink(0, log(['store', 8, 1], ['store', 9, 1]), 2);
    t.sink(1, log(['store', 8, 2]), 1); // out of c's range too, and overwrites b[0]
    t.sink(1, log(['load', 8, 1]), 1);
    const v = t.violations().find((x) => x.kind === 'clobber');
    expect(v).toMatchObject({ kind: 'clobber', opIndex: 1, opKind: 'relu', address: 8, buffer: 1, owner: 2, ownerOp: 1, step: 3 });
    expect(v?.message).toContain("tensor 2 'c'");
  });

  it('uninitialized: a load of a never-written byte', () => {
    const t = tracer();
    t.sink(1, log(['load', 12, 1]), 1);
    expect(t.violations()).toMatchObject([{ kind: 'uninitialized', address: 12, buffer: 1, owner: null }]);
  });

  it('out-of-arena and out-of-tensor accesses', () => {
    const t = tracer();
    t.sink(0, log(['store', 40, 1], ['load', 6, 0, 4]), 2);
    const kinds = t.violations().map((v) => v.kind);
    expect(kinds).toEqual(expect.arrayContaining(['out-of-arena', 'out-of-tensor']));
    expect(t.violationCounts()['out-of-arena']).toBe(1);
  });

  it('a graph output clobbered after its producer is reported by finish()', () => {
    const t = tracer();
    t.sink(1, log(['load', 8, 1]), 1);
    t.finish();
    expect(t.violations().some((v) => v.kind === 'uninitialized' && v.buffer === 2)).toBe(true);
  });

  it('reset() returns to a new tracer: the same run gives the same events and violations again', () => {
    const run = (t: Tracer): unknown => {
      t.sink(0, log(['store', 8, 1], ['store', 9, 1]), 2);
      t.sink(1, log(['store', 8, 2], ['load', 8, 1], ['load', 12, 1]), 3);
      t.finish();
      return { v: t.violations(), n: t.eventCount(), c: t.violationCounts(), e: t.events() };
    };
    const t = tracer();
    const first = run(t);
    expect((first as { v: unknown[] }).v.length).toBeGreaterThan(1);
    t.reset();
    expect(t.violations()).toEqual([]);
    expect(t.eventCount()).toBe(0);
    expect(run(t)).toEqual(first);
    expect(run(tracer())).toEqual(first);
  });

  it('repeated violations are folded with a count', () => {
    const t = tracer();
    t.sink(1, log(['load', 12, 1], ['load', 13, 1], ['load', 14, 1]), 3);
    expect(t.violations()).toHaveLength(1);
    expect(t.violations()[0]?.occurrences).toBe(3);
  });

  it('a real conv2d run traces clean; dumps and the plot render', () => {
    const g = buildSingleOpGraph({ kind: 'conv2d', input: [1, 6, 6, 3], outChannels: 4 });
    const l = layoutOp(g, null);
    const t = new Tracer({ graph: l.graph, tensorOffsets: l.tensorOffsets, scratchOffsets: l.scratchOffsets, arenaBytes: l.arenaBytes });
    const plot = new TracePlot({ arenaBytes: l.arenaBytes, graph: l.graph, tensorOffsets: l.tensorOffsets, columns: 50, rows: 20 });
    runLayout(l, 1, [t.sink, plot.sink]);
    t.finish();
    expect(t.violations()).toEqual([]);
    const d = plot.data();
    expect(d.totalSteps).toBe(t.eventCount());
    expect(d.rows).toBe(20);
    const svg = renderTraceSvg(d);
    expect(svg.startsWith('<svg')).toBe(true);
    const long = `${'/a/very/long/folder'.repeat(8)}/model.tflite: offline plan carried in the model (OfflineMemoryAllocation), arena 20256 B`;
    const wrapped = renderTraceSvg(d, long, { markers: [{ address: 40, spanTo: 96, label: 'input may start here: O_s 56 B' }] });
    expect(wrapped.match(/class="title"/g)?.length).toBeGreaterThan(1);
    expect(wrapped).toContain('class="marker"');
    expect(wrapped).toContain('input may start here: O_s 56 B');
    expect(svg).toContain('#d62728');
    expect(svg).toContain('#1f77b4');
    const l2 = log(['load', 3, 0], ['store', 9, 1, 2]);
    expect(formatTraceChunk('csv', 0, 'relu', l2, 2, 10)).toBe('10,0,relu,load,3,1,0\n11,0,relu,store,9,2,1\n');
    expect(JSON.parse(formatTraceChunk('jsonl', 0, 'relu', l2, 1, 0))).toEqual({ step: 0, op: 0, opKind: 'relu', kind: 'load', address: 3, width: 1, buffer: 0 });
    expect(traceFormatForPath('x.CSV')).toBe('csv');
    expect(() => traceFormatForPath('x.txt')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('updates (a store after a load of the same byte in one op) are green', () => {
    const p = new TracePlot({ arenaBytes: 32, columns: 32, rows: 4 });
    p.sink(0, log(['load', 5, 0], ['store', 5, 0]), 2);
    expect(Array.from(p.data().cells).some((c) => (c & 4) !== 0)).toBe(true);
  });

  itWithData('models', 'person_detect under tflm-greedy traces clean', () => {
    const model = importTflite(readFileSync(`${ORACLE_MODELS}/person_detect.tflite`));
    const pm = preparePlannedModel(model, { planner: 'tflm-greedy' });
    const t = tracerFor(pm);
    runPlanned(pm, { seed: 1, trace: t.sink });
    t.finish();
    expect(t.violations()).toEqual([]);
    expect(t.eventCount()).toBeGreaterThan(1_000_000);
  });

  describe('the WebAssembly check finds what the JavaScript check finds', () => {
    // Op 0 has two scratch buffers ([24, 28) and [28, 32)), op 1 none; tensor ids 0-2 exist, 3 and 9
    // do not (no range); scratch 2 of op 0 and every scratch of op 1 have none.
    const scratchOffsets = [[24, 28], []];
    const scratchBytes = [[4, 4], []];
    const both = (): Tracer[] => (['webassembly', 'javascript'] as const).map((check) => new Tracer({ graph, tensorOffsets: offsets, scratchOffsets, scratchBytes, arenaBytes: 32, record: true, check }));
    const findings = (t: Tracer): unknown => {
      t.finish();
      return { violations: t.violations(), counts: t.violationCounts(), events: t.eventCount(), log: t.events() };
    };

    /** `count` events: mostly in range, width 1, on the op's own buffers; else any rule broken. */
    function randomLog(rng: seedrandom.PRNG, op: number, count: number): Int32Array {
      const ranges: Record<number, [number, number]> = { 0: [0, 8], 1: [8, 16], 2: [16, 24], [-1]: [24, 28], [-2]: [28, 32] };
      const ids = op === 0 ? [0, 1, -1, -2] : [1, 2];
      const l = new Int32Array(2 * count);
      for (let i = 0; i < count; i++) {
        const odd = rng() < 0.05;
        const id = odd && rng() < 0.3 ? [3, 9, -3, -1, 2][Math.floor(rng() * 5)] as number : ids[Math.floor(rng() * ids.length)] as number;
        const [lo, hi] = ranges[id] ?? [0, 32];
        const width = odd && rng() < 0.3 ? Math.floor(rng() * 8) : 1;
        const addr = odd && rng() < 0.4 ? Math.floor(rng() * 48) - 8 : lo + Math.floor(rng() * (hi - lo));
        l[2 * i] = traceHeader(rng() < 0.5 ? 'load' : 'store', width, id);
        l[2 * i + 1] = addr;
      }
      return l;
    }

    /** A WebAssembly shadow of a 32-byte arena, nothing written, tensors 0-2 at [0, 8), [8, 16), [16, 24). */
    function shadow32(): WasmShadow {
      const w = makeWasmShadow(32, 3);
      if (w === null) throw new Error('no WebAssembly shadow for a 32-byte arena');
      w.owner.fill(-0x7fffffff);
      w.tLo.set([0, 8, 16]);
      w.tHi.set([8, 16, 24]);
      return w;
    }

    it('the WebAssembly function checks clean events itself and stops at each one that breaks a rule', () => {
      const w = shadow32();
      w.sLo[0] = 24;
      w.sHi[0] = 28;
      const events = log(['store', 8, 1, 2], ['load', 9, 1], ['store', 24, -1, 4], ['load', 27, -1], ['load', 8, 0], ['load', 12, 1], ['store', 30, 1], ['load', 40, 1], ['store', 16, 2]);
      w.log.set(events);
      const opIndex = 7;
      const scratchBase = -100;
      // Stores set owner keys (tensor id; scratch base - k) and the op; loads of own bytes pass.
      expect(w.scan(0, 9, opIndex, scratchBase, 1)).toBe(4); // load of tensor 1's byte as tensor 0: out of tensor
      expect([...w.owner.subarray(8, 10)]).toEqual([1, 1]);
      expect([...w.owner.subarray(24, 28)]).toEqual([scratchBase, scratchBase, scratchBase, scratchBase]);
      expect([...w.storeOp.subarray(8, 10)]).toEqual([opIndex, opIndex]);
      expect(w.scan(5, 9, opIndex, scratchBase, 1)).toBe(5); // never written
      expect(w.scan(6, 9, opIndex, scratchBase, 1)).toBe(6); // outside tensor 1's range
      expect(w.scan(7, 9, opIndex, scratchBase, 1)).toBe(7); // outside the arena
      expect(w.scan(8, 9, opIndex, scratchBase, 1)).toBe(9);
      expect(w.owner[16]).toBe(2);
      expect(w.scan(2, 3, opIndex, scratchBase, 0)).toBe(2); // scratch 0 unknown when the op has none placed
      // A header that decodes but fits no address (5 bytes in a 4-byte scratch buffer) goes to the
      // JS check; the next call decodes afresh and checks the loads after it as tensor 1's.
      w.log.set(log(['store', 10, 1], ['store', 24, -1, 5], ['load', 10, 1], ['load', 11, 1]));
      expect(w.scan(0, 4, opIndex, scratchBase, 1)).toBe(1);
      expect(w.scan(2, 4, opIndex, scratchBase, 1)).toBe(3); // byte 11 never written
    });

    it('its fast path (the last one-byte load header) passes only what the whole check passes', () => {
      const w = shadow32();
      // Tensor 0 stores bytes 0-3; its one-byte loads (the fast header) come between one-byte stores
      // of tensor 1 (another header each time), so the fast path takes loads 2 and 4.
      w.log.set(log(['store', 0, 0, 4], ['load', 0, 0], ['store', 8, 1], ['load', 1, 0], ['store', 9, 1], ['load', 2, 0], ['load', 5, 0], ['load', 9, 0], ['load', 3, 0], ['load', 3, 1]));
      expect(w.scan(0, 10, 0, -1, 0)).toBe(6); // byte 5 never written
      expect(w.scan(7, 10, 0, -1, 0)).toBe(7); // byte 9 is outside tensor 0
      w.owner[3] = 2; // as if a store of tensor 2 had clobbered it
      expect(w.scan(8, 10, 0, -1, 0)).toBe(8);
      w.owner[3] = 1;
      expect(w.scan(9, 10, 0, -1, 0)).toBe(9); // outside tensor 1, though tensor 1 owns it
      // The fast header is kept per call: a call that starts on it decodes it afresh.
      w.owner[3] = 0;
      expect(w.scan(8, 9, 0, -1, 0)).toBe(9);
    });

    it('lays its shadow memory out in space reserved elsewhere, and refuses space too small', () => {
      const bytes = shadowBytes(32, 3);
      const memory = new wasmApi.Memory({ initial: 2, maximum: 2 });
      const w = makeWasmShadow(32, 3, { memory, at: 4096, bytes });
      if (w === null) throw new Error('no WebAssembly shadow for a 32-byte arena');
      expect(w.owner.buffer).toBe(memory.buffer);
      expect(w.owner.byteOffset).toBe(4096);
      w.owner.fill(-0x7fffffff);
      w.tLo.set([0, 8, 16]);
      w.tHi.set([8, 16, 24]);
      // A log anywhere in that memory is read in place; one elsewhere is not.
      const log2 = new Int32Array(memory.buffer, 1024, 4);
      log2.set(log(['store', 8, 1], ['load', 8, 1]));
      expect(w.logAddress(log2)).toBe(1024);
      expect(w.logAddress(new Int32Array(4))).toBe(null);
      expect(w.scan(0, 2, 0, -1, 0, 1024)).toBe(2);
      expect(w.owner[8]).toBe(1);
      log2.set(log(['load', 9, 1]));
      expect(w.scan(0, 1, 0, -1, 0, 1024)).toBe(0); // byte 9 never written
      expect(() => makeWasmShadow(32, 3, { memory, at: 4096, bytes: bytes - 1 })).toThrow(/reserved/);
    });

    it('on seeded logs with every violation kind, in chunks longer than its log', () => {
      for (const seed of ['a', 'b', 'c']) {
        const rng = seedrandom(`tracer-check-${seed}`);
        const [w, j] = both() as [Tracer, Tracer];
        for (let chunk = 0; chunk < 12; chunk++) {
          const op = chunk < 6 ? 0 : 1;
          const count = chunk % 4 === 3 ? 20_000 : 1 + Math.floor(rng() * 3000);
          const l = randomLog(rng, op, count);
          w.sink(op, l, count);
          j.sink(op, l, count);
        }
        const found = findings(w);
        expect(found).toEqual(findings(j));
        const counts = (found as { counts: Record<string, number> }).counts;
        for (const kind of ['clobber', 'uninitialized', 'out-of-arena', 'out-of-tensor']) {
          expect(counts[kind]).toBeGreaterThan(0);
          // Every violation is folded into exactly one signature of its kind.
          expect(w.violations().filter((v) => v.kind === kind).reduce((a, v) => a + v.occurrences, 0)).toBe(counts[kind]);
        }
        expect(new Set(w.violations().map((v) => `${v.kind}|${v.opIndex}|${v.buffer}|${v.owner}|${v.ownerOp}`)).size).toBe(w.violations().length);
      }
    });

    itWithData('models', 'on a whole traced model (person_detect), as planned and with one tensor told one byte off; in its own memory and in the kernels\' (their log read in place)', () => {
      const model = importTflite(readFileSync(`${ORACLE_MODELS}/person_detect.tflite`));
      const pm = preparePlannedModel(model, { planner: 'tflm-greedy', traceShadow: true });
      const space = pm.runtime.shadowSpace;
      if (space === null) throw new Error('no room reserved for the shadow memory');
      const moved = pm.graph.ops[3]?.outputs[0] as number;
      for (const tensorOffsets of [pm.tensorOffsets, pm.tensorOffsets.map((o, i) => (i === moved && o !== null ? o + 1 : o))]) {
        const make = (check: 'webassembly' | 'javascript', shadowSpace: ReservedSpace | null = null): Tracer => new Tracer({ graph: pm.graph, tensorOffsets, scratchOffsets: pm.scratchOffsets, arenaBytes: pm.arenaBytes, check, shadowSpace });
        const [w, p, j] = [make('webassembly'), make('webassembly', space), make('javascript')];
        let inPlace = 0;
        runPlanned(pm, { seed: 1, trace: (op, l, n) => {
          if (l.buffer === space.memory.buffer) inPlace += n;
          for (const t of [w, p, j]) t.sink(op, l, n);
        } });
        expect(findings(w)).toEqual(findings(j));
        expect(findings(p)).toEqual(findings(j));
        expect(w.eventCount()).toBeGreaterThan(1_000_000);
        expect(inPlace).toBe(w.eventCount());
        expect(w.violations().length).toBe(tensorOffsets === pm.tensorOffsets ? 0 : 2);
      }
    });
  });
});
