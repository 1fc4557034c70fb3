// The two TFLM builds whose whole arena mcusim predicts: a 64-bit host (x86_64, what the oracle's
// meta.json records) and a 32-bit Cortex-M (arm-none-eabi-gcc, what a board runs). Primitive C
// sizes per ABI plus the sizeof of TFLM's framework structs, measured on both builds
// (../shared/oracle/arena-cortex-m7.json "sizeof", TFLM 90b983c). docs/tflm-arena.md.
import { UsageError } from '../../ir/index.ts';

export type TflmArchName = 'host64' | 'cortex-m';
export const TFLM_ARCH_NAMES: readonly TflmArchName[] = ['cortex-m', 'host64'];
export const DEFAULT_TFLM_ARCH: TflmArchName = 'cortex-m';

export interface SizeAlign {
  readonly sizeBytes: number;
  readonly alignBytes: number;
}

export interface TflmArch {
  readonly name: TflmArchName;
  readonly description: string;
  /** sizeof / alignof of a pointer (and of size_t). */
  readonly pointerBytes: number;
  /** sizeof / alignof of a plain C enum whose values fit a byte (every TFLite enum). */
  readonly enumBytes: number;
  /** alignof(double) (8 on both: x86_64 SysV and ARM AAPCS). */
  readonly doubleAlignBytes: number;
  /** Framework structs TFLM places on the tail (measured sizeof; alignof = the pointer's). */
  readonly structs: {
    readonly SingleArenaBufferAllocator: number;
    readonly GreedyMemoryPlanner: number;
    readonly MicroAllocator: number;
    /** vtable pointer + IPersistentBufferAllocator* (micro_allocator.cc). */
    readonly MicroBuiltinDataAllocator: number;
    readonly SubgraphAllocations: number;
    readonly TfLiteEvalTensor: number;
    readonly NodeAndRegistration: number;
    readonly TfLiteTensor: number;
    readonly TfLiteAffineQuantization: number;
    /** The `size` header of TfLiteIntArray (data[] is a flexible array member). */
    readonly TfLiteIntArray: number;
    /** { uint8_t* data } (micro_allocator.h). */
    readonly ScratchBufferHandle: number;
    /** internal::ScratchBufferRequest { size_t bytes; int node_idx; int subgraph_idx; } (micro_allocator.h). */
    readonly ScratchBufferRequest: number;
    /** AllocationInfo { size_t bytes; void** output_ptr; int first_created, last_used; int32_t offline_offset; bool needs_allocating; } (micro_allocation_info.h). */
    readonly AllocationInfo: number;
  };
}

export const HOST64: TflmArch = {
  name: 'host64',
  description: 'TFLM on a 64-bit host (x86_64 LP64, 8-byte pointers, 4-byte enums): the oracle build',
  pointerBytes: 8,
  enumBytes: 4,
  doubleAlignBytes: 8,
  structs: {
    SingleArenaBufferAllocator: 72, // arena-cortex-m7.json sizeof.host
    GreedyMemoryPlanner: 72, // arena-cortex-m7.json sizeof.host
    MicroAllocator: 72, // arena-cortex-m7.json sizeof.host
    MicroBuiltinDataAllocator: 16, // 2 pointers; 72+72+72+16+16 = 248 = meta.json stock_allocator_overhead_bytes
    SubgraphAllocations: 16, // arena-cortex-m7.json sizeof.host
    TfLiteEvalTensor: 24, // arena-cortex-m7.json sizeof.host; meta.json "TfLiteEvalTensor data" = 24 B per tensor
    NodeAndRegistration: 64, // arena-cortex-m7.json sizeof.host; meta.json "NodeAndRegistration array" = 64 B per op
    TfLiteTensor: 64, // arena-cortex-m7.json sizeof.host; meta.json "Persistent TfLiteTensor data" = 64 B each
    TfLiteAffineQuantization: 24, // arena-cortex-m7.json sizeof.host
    TfLiteIntArray: 4, // arena-cortex-m7.json sizeof.host
    ScratchBufferHandle: 8, // one pointer
    ScratchBufferRequest: 16, // 8 + 4 + 4
    AllocationInfo: 32, // 8 + 8 + 4 + 4 + 4 + 1, padded to 8
  },
};

export const CORTEX_M: TflmArch = {
  name: 'cortex-m',
  description: 'TFLM on a 32-bit Cortex-M (arm-none-eabi-gcc AAPCS: 4-byte pointers, short enums): the board build',
  pointerBytes: 4,
  enumBytes: 1, // arm-none-eabi GCC defaults to -fshort-enums (ARM_DEFAULT_SHORT_ENUMS for non-Linux AAPCS)
  doubleAlignBytes: 8,
  structs: {
    SingleArenaBufferAllocator: 36, // arena-cortex-m7.json sizeof.m7
    GreedyMemoryPlanner: 44, // arena-cortex-m7.json sizeof.m7
    MicroAllocator: 36, // arena-cortex-m7.json sizeof.m7
    MicroBuiltinDataAllocator: 8, // 2 pointers
    SubgraphAllocations: 8, // arena-cortex-m7.json sizeof.m7
    TfLiteEvalTensor: 12, // arena-cortex-m7.json sizeof.m7
    NodeAndRegistration: 32, // arena-cortex-m7.json sizeof.m7
    TfLiteTensor: 32, // arena-cortex-m7.json sizeof.m7
    TfLiteAffineQuantization: 12, // arena-cortex-m7.json sizeof.m7
    TfLiteIntArray: 4, // arena-cortex-m7.json sizeof.m7
    ScratchBufferHandle: 4, // one pointer
    ScratchBufferRequest: 12, // 4 + 4 + 4
    AllocationInfo: 24, // 4 + 4 + 4 + 4 + 4 + 1, padded to 4
  },
};

const ARCHES: Readonly<Record<TflmArchName, TflmArch>> = { host64: HOST64, 'cortex-m': CORTEX_M };

export function getTflmArch(name: string): TflmArch {
  const arch = (ARCHES as Readonly<Record<string, TflmArch>>)[name];
  if (arch === undefined) throw new UsageError(`unknown --arch '${name}' (expected ${TFLM_ARCH_NAMES.join(' or ')})`);
  return arch;
}
