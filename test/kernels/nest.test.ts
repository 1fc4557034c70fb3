import { describe, expect, it } from 'vitest';
import type { KernelInstance } from '../../src/kernels/index.ts';
import { For, If, Let, parseExpr, Set, Store, Val, countCost, emitCKernel, generateJs, walkAddresses } from '../../src/kernels/index.ts';
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
