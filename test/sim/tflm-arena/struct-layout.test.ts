// C struct layout rules per arch: field alignment, tail padding, doubles 8-aligned on both ABIs,
// short enums on arm-none-eabi; TFLM's framework structs written as field lists reproduce the
// sizeof both real builds measured (arena-cortex-m7.json).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cArray, cStruct, OP_DATA_CONV, OP_DATA_FULLY_CONNECTED, SOFTMAX_PARAMS, TFLITE_ADD_PARAMS, TFLITE_FULLY_CONNECTED_PARAMS } from '../../../src/kernels/index.ts';
import { CORTEX_M, HOST64, structLayout } from '../../../src/sim/index.ts';
import { ARENA_CORTEX_M7 } from '../../oracle-paths.ts';

const sizeofTable = (JSON.parse(readFileSync(ARENA_CORTEX_M7, 'utf8')) as {
  sizeof: { m7: Record<string, number>; host: Record<string, number> };
}).sizeof;

const INT_ARRAY_PTR = 'ptr' as const;
const EVAL_TENSOR = cStruct('TfLiteEvalTensor', [['data', 'ptr'], ['dims', INT_ARRAY_PTR], ['type', 'enum']]);
const AFFINE = cStruct('TfLiteAffineQuantization', [['scale', 'ptr'], ['zero_point', 'ptr'], ['quantized_dimension', 'int32']]);
const SUBGRAPH_ALLOCATIONS = cStruct('SubgraphAllocations', [['node_and_registrations', 'ptr'], ['tensors', 'ptr']]);
const NODE = cStruct('TfLiteNode', [
  ['inputs', 'ptr'], ['outputs', 'ptr'], ['intermediates', 'ptr'], ['user_data', 'ptr'], ['builtin_data', 'ptr'],
  ['custom_initial_data', 'ptr'], ['custom_initial_data_size', 'int32'],
]);
const NODE_AND_REGISTRATION = cStruct('NodeAndRegistration', [['node', NODE], ['registration', 'ptr']]);

describe('structLayout', () => {
  it('pads each field to its alignment and the struct to its largest alignment', () => {
    const s = cStruct('s', [['a', 'int8'], ['b', 'int32'], ['c', 'int16']]);
    expect(structLayout(s, HOST64)).toEqual({ sizeBytes: 12, alignBytes: 4 });
    expect(structLayout(cStruct('t', [['a', 'int8'], ['b', cArray('int16', 3)]]), CORTEX_M)).toEqual({ sizeBytes: 8, alignBytes: 2 });
  });

  it('aligns doubles to 8 on both ABIs and pointers to their width', () => {
    const s = cStruct('s', [['i', 'int32'], ['d', 'double'], ['p', 'ptr']]);
    expect(structLayout(s, HOST64)).toEqual({ sizeBytes: 24, alignBytes: 8 });
    expect(structLayout(s, CORTEX_M)).toEqual({ sizeBytes: 24, alignBytes: 8 });
    expect(structLayout(SOFTMAX_PARAMS, HOST64).sizeBytes).toBe(80);
    expect(structLayout(SOFTMAX_PARAMS, CORTEX_M).sizeBytes).toBe(56);
  });

  it('makes plain enums one byte on arm-none-eabi (short enums) and four on the host', () => {
    expect(structLayout(TFLITE_FULLY_CONNECTED_PARAMS, HOST64)).toEqual({ sizeBytes: 16, alignBytes: 4 });
    expect(structLayout(TFLITE_FULLY_CONNECTED_PARAMS, CORTEX_M)).toEqual({ sizeBytes: 5, alignBytes: 1 });
    expect(structLayout(TFLITE_ADD_PARAMS, CORTEX_M)).toEqual({ sizeBytes: 2, alignBytes: 1 });
  });

  it('lays out the kernel OpData structs the oracle arenas imply', () => {
    // meta.json hello_world_int8: 3 FULLY_CONNECTED Init buffers = 208 - 16 (I/O pointer arrays) bytes.
    expect(3 * structLayout(OP_DATA_FULLY_CONNECTED, HOST64).sizeBytes).toBe(192);
    expect(structLayout(OP_DATA_FULLY_CONNECTED, CORTEX_M).sizeBytes).toBe(48);
    expect(structLayout(OP_DATA_CONV, HOST64).sizeBytes).toBe(72);
    expect(structLayout(OP_DATA_CONV, CORTEX_M).sizeBytes).toBe(56);
  });

  it('reproduces the sizeof TFLM measured on both builds for framework structs', () => {
    for (const [arch, table] of [[HOST64, sizeofTable.host], [CORTEX_M, sizeofTable.m7]] as const) {
      expect(structLayout(EVAL_TENSOR, arch).sizeBytes).toBe(table['TfLiteEvalTensor']);
      expect(structLayout(AFFINE, arch).sizeBytes).toBe(table['TfLiteAffineQuantization']);
      expect(structLayout(SUBGRAPH_ALLOCATIONS, arch).sizeBytes).toBe(table['SubgraphAllocations']);
      expect(structLayout(NODE, arch).sizeBytes).toBe(table['TfLiteNode']);
      expect(structLayout(NODE_AND_REGISTRATION, arch).sizeBytes).toBe(table['NodeAndRegistration']);
      expect(arch.pointerBytes).toBe(table['void_ptr']);
      for (const k of ['SingleArenaBufferAllocator', 'GreedyMemoryPlanner', 'MicroAllocator', 'TfLiteEvalTensor', 'NodeAndRegistration', 'TfLiteTensor', 'TfLiteAffineQuantization', 'TfLiteIntArray', 'SubgraphAllocations'] as const) {
        expect(arch.structs[k], k).toBe(table[k]);
      }
    }
  });
});
