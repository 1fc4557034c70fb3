// Bounded RAM of TinySeg's storage ops (paper §5, without the runtime's whole-tensor transfer
// buffer): each Spill / Fetching / FetchingConv2D requests one I/O buffer from the planner as a
// scratch buffer, each Spill a 256-entry histogram for MFV compression (§5.1; every slot may be
// compressed: Fetching decodes into its output, FetchingConv2D into its planned row window,
// specs/fetching-conv2d.ts). Nothing else of a spilled tensor is ever held in RAM.
import type { ScratchDecl } from '../spec.ts';

/**
 * Bytes of one storage I/O buffer: the largest transfer unit among the storage devices of the
 * target profiles (nicla-vision: internal flash word 32 B, QSPI page 256 B, USB high-speed bulk
 * packet 512 B; sim/targets). One optimized model runs on any of them; each device streams in its
 * own unit inside this buffer, and the runtime refuses a device whose unit does not fit (E_STORAGE).
 */
export const STORAGE_IO_BYTES = 512;

/** Byte values the MFV histogram counts (the codec works on bytes whatever the dtype). */
export const MFV_HISTOGRAM_ENTRIES = 256;

export const STORAGE_IO_SCRATCH: ScratchDecl = { name: 'io', dtype: 'int8', sizeBytes: STORAGE_IO_BYTES };
export const MFV_HISTOGRAM_SCRATCH: ScratchDecl = { name: 'histogram', dtype: 'int32', sizeBytes: 4 * MFV_HISTOGRAM_ENTRIES };
