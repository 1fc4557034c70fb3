import { describe, expect, it } from 'vitest';
import type { KernelInstance } from '../../src/kernels/index.ts';
import { For, If, Let, parseExpr, Set, Store, Val, compileKernel, countCost, emitCKernel, generateJs, makeArenaViews, walkAddresses } from '../../src/kernels/index.ts';
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
