import { describe, expect, it } from 'vitest';
import type { KernelInstance } from '../../src/kernels/index.ts';
import { For, If, Let, parseExpr, parsedExprs, parseText, Set, Store, Val, compileKernel, countCost, emitCKernel, generateJs, makeArenaViews, nestId, walkAddresses } from '../../src/kernels/index.ts';
import { McusimError } from '../../src/ir/index.ts';

const arena = (id: number, offsetBytes: number, sizeBytes: number) => ({ dtype: 'int8' as const, offsetBytes, data: null, id, sizeBytes });

function instance(nest: KernelInstance['nest']): KernelInstance {
  return {
    name: 'test', opIndex: 0, nest, flags: {}, scalars: { n: 4 }, arrays: {},
    buffers: { x: arena(0, 0, 4), y: arena(1, 16, 4) },
  };
}

describe('loop-nest IR', () => {
  it('parses precedence, calls and reads', () => {
    expect(parseExpr('a + b * c')).toEqual({ k: 'bin', op: '+', a: { k: 'name', name: 'a' }, b: { k: 'bin', op: '*', a: { k: 'name', name: 'b' }, b: { k: 'name', name: 'c' } } });
    expect(parseExpr('clamp(x[i + 1], -1, 2)').k).toBe('call');
    expect(() => parseExpr('a +')).toThrow(McusimError);
  });

  it('parses a text once: later parses return that tree, equal to a fresh parse', () => {
    const text = 'mbqm(q[i * 3 + 1] - zp, m, s) + (a < b && !(c == 2))';
    expect(parsedExprs().has(text)).toBe(false);
    const e = parseExpr(text);
    expect(parseExpr(text)).toBe(e);
    expect(parsedExprs().get(text)).toBe(e);
    expect(parseText(text)).not.toBe(e);
    expect(parseText(text)).toEqual(e);
    // A text that fails to parse is not kept.
    expect(() => parseExpr('a + (b')).toThrow(McusimError);
    expect(parsedExprs().has('a + (b')).toBe(false);
  });

  it('rejects a condition that depends on loaded data', () => {
    const bad = instance([For('i', '0', 'n', [Val('v', 'x[i]'), If('v > 0', [Store('y', 'i', 'v')])])]);
    expect(() => generateJs(bad, 'addr')).toThrow(/depends on data value/);
    const bad2 = instance([For('i', '0', 'x[0]', [Store('y', 'i', '0')])]);
    expect(() => emitCKernel(bad2)).toThrow(McusimError);
  });

  it('address walk and cost counts follow the nest', () => {
    const inst = instance([For('i', '0', 'n', [Let('j', 'n - 1 - i'), Val('v', 'x[j]'), Set('v', 'max(v, 0)', 'mac'), Store('y', 'i', 'v')])]);
    const events: number[] = [];
    walkAddresses(inst, (_op, log, count) => events.push(...log.slice(0, 2 * count)));
    // load x[3] (addr 3), store y[0] (addr 16), ...
    expect(events.filter((_, k) => k % 2 === 1)).toEqual([3, 16, 2, 17, 1, 18, 0, 19]);
    const cost = countCost(inst);
    expect(cost).toMatchObject({ macs: 4, arenaLoadBytes: 4, arenaStoreBytes: 4, primitiveCalls: { max: 4 } });
  });
});

describe('traced runs and their sinks', () => {
  it('every traced run reports to its own sink, also when a sink runs another traced kernel', () => {
    const inst = instance([For('i', '0', 'n', [Val('v', 'x[i]'), Store('y', 'i', 'v')])]);
    const views = makeArenaViews(new ArrayBuffer(64));
    const k = compileKernel(inst, views);
    const inner = compileKernel({ ...inst, opIndex: 7 }, views);
    const seen: string[] = [];
    const sink = (name: string) => (op: number, _log: Int32Array, count: number): void => void seen.push(`${name}:${op}:${count}`);
    for (const name of ['a', 'b', 'c']) k.runTraced(sink(name));
    k.runTraced((op, log, count) => {
      inner.runTraced(sink('inner'));
      sink('outer')(op, log, count);
    });
    expect(seen).toEqual(['a:0:8', 'b:0:8', 'c:0:8', 'inner:7:8', 'outer:0:8']);
    // A throwing sink leaves the next run's sink in place.
    expect(() => k.runTraced(() => { throw new Error('sink failed'); })).toThrow('sink failed');
    k.runTraced(sink('after'));
    expect(seen.at(-1)).toBe('after:0:8');
  });
});

describe('fast JS accumulation fusion', () => {
  it('sums unrolled int32 terms with one wrap, equal to the stepwise wrapping sum (with remainder)', () => {
    const i32 = (id: number, offsetBytes: number, n: number) => ({ dtype: 'int32' as const, offsetBytes, data: null, id, sizeBytes: 4 * n });
    const inst: KernelInstance = {
      name: 'fuse', opIndex: 0, flags: {}, scalars: {}, arrays: {},
      buffers: { x: i32(0, 0, 16), y: i32(1, 64, 2) },
      nest: [
        Val('acc', '0'),
        For('i', '0', '11', [Set('acc', 'acc + x[i + 1] * x[2 + i]', 'mac')]),
        Store('y', '0', 'acc'),
        Val('s', '7'),
        For('i', '2', '12', [Set('s', 's + (x[i] - i * 3)')]),
        Store('y', '1', 's'),
      ],
    };
    const src = generateJs(inst, 'fast');
    expect(src).toContain('v_acc = (v_acc + ');
    expect(src).toContain('v_s = (v_s + ');
    const buf = new ArrayBuffer(80);
    const x = new Int32Array(buf, 0, 16);
    const vals = [2147483647, -2147483648, 2000000011, -1999999999, 123456789, -987654321, 2147483600, 77, -5, 1 << 30, -(1 << 30), 999999937, -2147483647, 31337, 2, -1];
    vals.forEach((v, i) => (x[i] = v));
    compileKernel(inst, makeArenaViews(buf)).run();
    let acc = 0;
    for (let i = 0; i < 11; i++) acc = (acc + Math.imul(x[i + 1] ?? 0, x[2 + i] ?? 0)) | 0;
    let s = 7;
    for (let i = 2; i < 12; i++) s = (s + (((x[i] ?? 0) - i * 3) | 0)) | 0;
    expect(Array.from(new Int32Array(buf, 64, 2))).toEqual([acc, s]);
  });
});

describe('shared and specialized kernel code', () => {
  // y[i] = x[i * s] + bias, for i < n: two ops that differ only in params, offsets and op index.
  const op = (opIndex: number, n: number, s: number, bias: number, xOff: number, yOff: number): KernelInstance => ({
    name: 'strided', opIndex, flags: {}, scalars: { n, s, bias }, arrays: {},
    buffers: { x: arena(opIndex * 2, xOff, n * s), y: arena(opIndex * 2 + 1, yOff, n) },
    nest: [For('i', '0', 'n', [Val('v', 'x[i * s] + bias'), Store('y', 'i', 'v')])],
  });
  const a = op(0, 12, 2, 5, 0, 64);
  const b = op(3, 20, 3, -7, 8, 128);

  it('ops differing only in values share one source; specialized sources inline the values', () => {
    for (const mode of ['fast', 'traced', 'addr', 'cost'] as const) expect(generateJs(a, mode), mode).toBe(generateJs(b, mode));
    expect(generateJs(a, 'fast', false)).not.toBe(generateJs(b, 'fast', false));
    expect(generateJs(a, 'fast')).toContain('$K[');
    expect(generateJs(a, 'fast', false)).not.toContain('$K[');
    // A value that changes the structure (a one-trip loop becomes a block) gives another source.
    expect(generateJs(op(0, 1, 2, 5, 0, 64), 'fast')).not.toBe(generateJs(a, 'fast'));
  });

  it('every tier computes the same bytes and events, before and after the switch', () => {
    for (const inst of [a, b]) {
      const runs = (after: number): { bytes: number[][]; events: number[][] } => {
        const buf = new ArrayBuffer(256);
        const x = new Int8Array(buf);
        for (let i = 0; i < 64; i++) x[i] = (i * 37) % 251 - 120;
        const k = compileKernel(inst, makeArenaViews(buf), undefined, after);
        const out = { bytes: [] as number[][], events: [] as number[][] };
        for (let r = 0; r < 4; r++) {
          const ev: number[] = [];
          if (r % 2 === 0) k.run();
          else k.runTraced((_op, log, count) => ev.push(...log.slice(0, 2 * count)));
          out.bytes.push(Array.from(new Int8Array(buf, inst.buffers.y?.offsetBytes ?? 0, 20)));
          out.events.push(ev);
        }
        return out;
      };
      const expected = runs(0);
      expect(expected.events[1]?.length).toBeGreaterThan(0);
      expect(runs(1)).toEqual(expected);
      expect(runs(100)).toEqual(expected);
    }
  });
});

describe('nestId', () => {
  it('names equal nests alike and different nests apart, by content', () => {
    const a = [For('i', '0', 'n', [Store('out', 'i', 'x[i] + 1')])];
    const same = [For('i', '0', 'n', [Store('out', 'i', 'x[i] + 1')])];
    const other = [For('i', '0', 'n', [Store('out', 'i', 'x[i] + 2')])];
    expect(nestId(same)).toBe(nestId(a));
    expect(nestId(other)).not.toBe(nestId(a));
    expect(nestId(a)).toBe(nestId(a));
  });
});
