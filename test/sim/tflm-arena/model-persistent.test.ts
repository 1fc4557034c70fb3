// The tail model's rules: AlignPointerDown placement (used = alignUp(used + size, align)), the order
// of TFLM's allocations, I/O tensors with their quantization, scratch handles, variable tensors,
// mcusim-only ops switching the report to mcusim's runtime, unknown --arch refused.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTflite } from '../../../src/ir/index.ts';
import type { Graph, Op } from '../../../src/ir/index.ts';
import { CORTEX_M, HOST64, getTflmArch, modelPersistent, modelPersistentBytes, wholeArena } from '../../../src/sim/index.ts';
import { OP_MODELS, ORACLE_MODELS, itWithData } from '../../oracle-paths.ts';

const load = (name: string): Graph => importTflite(new Uint8Array(readFileSync(join(ORACLE_MODELS, `${name}.tflite`)))).graph;

describe('modelPersistent', () => {
  itWithData('models', 'places every block at alignUp(used + size, alignment)', () => {
    for (const arch of [HOST64, CORTEX_M]) {
      let used = 0;
      for (const a of modelPersistent(load('person_detect'), arch).allocations) {
        used = Math.ceil((used + a.sizeBytes) / a.alignBytes) * a.alignBytes;
        expect(a.usedAfterBytes, a.what).toBe(used);
      }
    }
  });

  itWithData('models', 'follows TFLM\'s order: allocator, tensors, nodes, builtin data, Init, Prepare, I/O', () => {
    const whats = modelPersistent(load('hello_world_int8'), CORTEX_M).allocations.map((a) => a.what.split(' (')[0]);
    expect(whats).toEqual([
      'SingleArenaBufferAllocator', 'GreedyMemoryPlanner', 'MicroAllocator', 'MicroBuiltinDataAllocator', 'SubgraphAllocations[1]',
      'TfLiteEvalTensor[10]', 'NodeAndRegistration[3]',
      'TfLiteFullyConnectedParams', 'TfLiteFullyConnectedParams', 'TfLiteFullyConnectedParams',
      'OpDataFullyConnected', 'OpDataFullyConnected', 'OpDataFullyConnected',
      'TfLiteTensor*[1]', 'TfLiteTensor', 'TfLiteAffineQuantization', 'zero_point TfLiteIntArray[1]',
      'TfLiteTensor*[1]', 'TfLiteTensor', 'TfLiteAffineQuantization', 'zero_point TfLiteIntArray[1]',
    ]);
  });

  itWithData('models', 'pads 16-aligned kernel buffers after byte-aligned params (hello_world on Cortex-M, by hand)', () => {
    const used = modelPersistent(load('hello_world_int8'), CORTEX_M).allocations.map((a) => a.usedAfterBytes);
    // 36+44+36+8+8 = 132 overhead, 10 x 12 eval tensors, 3 x 32 nodes = 348; 3 x 5 B params (align 1).
    expect(used.slice(4, 10)).toEqual([132, 252, 348, 353, 358, 363]);
    // OpDataFullyConnected (48 B) at 16: 363 -> 416 -> 464 -> 512; I/O: 644 = TFLM's figure.
    expect(used.slice(10, 13)).toEqual([416, 464, 512]);
    expect(used.at(-1)).toBe(644);
  });

  itWithData('models', 'counts one scratch handle per TFLM scratch request (TRANSPOSE_CONV, MEAN)', () => {
    const tail = modelPersistent(load('mobilenet_v2_quantized_1x3x224x224'), HOST64).allocations;
    const handles = tail.filter((a) => a.what.startsWith('ScratchBufferHandle'));
    expect(handles).toHaveLength(1);
    expect(handles[0]?.sizeBytes).toBe(HOST64.pointerBytes * 3);
  });

  itWithData('models', 'keeps variable tensors on the tail unless the offline plan places them', () => {
    const g = load('simple_add_model');
    const t = g.inputs[0] ?? 0;
    const withVar: Graph = { ...g, tensors: g.tensors.map((x, i) => (i === t ? { ...x, isVariable: true } : x)) };
    const base = modelPersistent(g, HOST64).persistentBytes;
    const bytes = g.tensors[t]?.shape.reduce((a, b) => a * b, 1) ?? 0;
    expect(modelPersistent(withVar, HOST64).persistentBytes).toBeGreaterThanOrEqual(base + bytes);
    const offline = new Int32Array(g.tensors.length).fill(-1);
    offline[t] = 0;
    expect(modelPersistent(withVar, HOST64, offline).persistentBytes).toBe(base);
  });
});

describe('wholeArena', () => {
  itWithData('models', 'reports planned + persistent as TFLM\'s total for stock models', () => {
    const r = wholeArena(load('person_detect'), 55296, CORTEX_M).report;
    expect(r).toMatchObject({ arch: 'cortex-m', runtime: 'tflm', plannedBytes: 55296, persistentBytes: 26996, totalBytes: 82292, outsideArenaBytes: 0 });
  });

  itWithData('models', 'switches to mcusim\'s runtime for custom ops, nothing outside the arena (storage I/O is planned scratch)', () => {
    const g = load('simple_add_model');
    const out = g.outputs[0] ?? 0;
    const spill: Op = { kind: 'spill', inputs: [out], outputs: [], options: { id: out } };
    const r = wholeArena({ ...g, ops: [...g.ops, spill] }, 49152, CORTEX_M).report;
    expect(r.runtime).toBe('mcusim');
    expect(r.nonStockOps).toEqual([expect.objectContaining({ opIndex: 1, kind: 'spill' })]);
    expect(r.persistentBytes).toBe(0);
    expect(r.totalBytes).toBe(49152);
    expect(r.outsideArenaBytes).toBe(0);
  });

  it('refuses an unknown arch with E_USAGE', () => {
    expect(() => getTflmArch('arm64')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });
});

describe('modelPersistentBytes', () => {
  itWithData('models', 'gives modelPersistent\'s bytes and non-stock ops without naming the blocks, on every oracle model', () => {
    const files = [ORACLE_MODELS, OP_MODELS].flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.tflite')).map((f) => join(d, f)));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      const g = importTflite(new Uint8Array(readFileSync(f))).graph;
      for (const arch of [HOST64, CORTEX_M]) {
        const full = modelPersistent(g, arch);
        expect(modelPersistentBytes(g, arch), f).toEqual({ persistentBytes: full.persistentBytes, nonStock: full.nonStock });
      }
    }
  });
});
