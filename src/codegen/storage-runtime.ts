// The generated runtime side of TinySeg's storage ops (paper §5 transfer_out / transfer_in) as
// sim/spill-store.ts streams them, with no copy of a spilled tensor in RAM: Spill computes the
// block's CRC over its arena input, then writes header + payload (sim/storage/spill-block.ts:
// "TSPL", id, length, CRC-32, payload, 0xFF to whole program units; erase first unless erased) one
// device unit at a time through the op's planned I/O buffer in the arena; before Fetching /
// FetchingConv2D the block is read back through the same kind of buffer and CRC-checked. Fetching
// then reads the payload in place from the device's memory-mapped view; FetchingConv2D runs one
// output row at a time, the slot's rows copied in order (each once) from the mapped view into its
// planned row window just before the first output row that reads them (fetchRowsC). With MFV
// compression (TinySeg §5.1, sim/storage/mfv-codec.ts) Spill picks the representative with its
// planned histogram and generates [rep][bitmap][other values] from the arena tensor as it
// streams (storage-mfv.ts); a Fetching decodes the slot into its output and a FetchingConv2D into
// its row window, sequentially from the mapped view (a few words of decoder state on the stack).
import type { Graph } from '../ir/index.ts';
import { InternalError, UsageError } from '../ir/index.ts';
import type { SpillStore } from '../sim/index.ts';
import { spillFootprintBytes } from '../sim/index.ts';
import { MFV_DECODE_INTO_C, MFV_DECODER_C, MFV_ENCODER_C, MFV_FETCH_C, MFV_FILL_ROWS_C, MFV_SPILL_C } from './storage-mfv.ts';

export interface CodegenSlot {
  readonly slot: number;
  readonly sizeBytes: number;
  /** Block address on the device. */
  readonly addr: number;
}

export interface StorageLayout {
  readonly slots: readonly CodegenSlot[];
  readonly sizeBytes: number;
  readonly sectorBytes: number;
  readonly programUnitBytes: number;
  /** Bytes one transfer moves through the I/O buffer (program word / page). */
  readonly ioUnitBytes: number;
  /** Device bytes the slots occupy (whole sectors from address 0). */
  readonly usedBytes: number;
  /** Per storage op: the arena offset of its planned I/O buffer. */
  readonly ioOffsets: ReadonlyMap<number, number>;
  /** Whether a FetchingConv2D fills a row window (model_fill_rows is emitted). */
  readonly rowWindows: boolean;
  /** Whether a plain Fetching op reads a slot (with compression: model_decode_into is emitted). */
  readonly fetches: boolean;
  /** MFV-compressed spill blocks (TinySeg §5.1): the C encodes on Spill and decodes on every fetch. */
  readonly compress: boolean;
  /** Per Spill op (compress only): the arena offset of its planned MFV histogram (its scratch 1). */
  readonly histogramOffsets: ReadonlyMap<number, number>;
}

/**
 * The slots, block addresses, I/O buffers and (compressed) histograms exactly as SpillStore
 * assigns them; `scratchOffsets` are the plan's per-op scratch offsets (PlannedModel).
 */
export function storageLayout(graph: Graph, store: SpillStore, scratchOffsets: readonly (readonly number[])[]): StorageLayout {
  const dev = store.device;
  if (!dev.needsErase) throw new UsageError(`codegen supports erase-before-program storage (internal/external flash), not '${dev.name}'`);
  const sector = Math.max(1, dev.geometry.sectorBytes);
  const slots = store.slots.map((s) => ({ slot: s.slot, sizeBytes: s.sizeBytes, addr: s.addr }));
  const last = slots[slots.length - 1];
  const usedBytes = last === undefined ? 0 : Math.ceil((last.addr + spillFootprintBytes(dev, last.sizeBytes + Math.ceil(last.sizeBytes / 8) + 1)) / sector) * sector;
  const ioOffsets = new Map<number, number>();
  graph.ops.forEach((_, i) => {
    if (store.useOf(i) !== undefined) ioOffsets.set(i, store.ioOffsetOf(i));
  });
  const histogramOffsets = new Map<number, number>();
  graph.ops.forEach((op, i) => {
    if (!store.compress || op.kind !== 'spill') return;
    const [io, histogram] = scratchOffsets[i] ?? [];
    if (io !== store.ioOffsetOf(i) || histogram === undefined) throw new InternalError(`spill op ${i} has no planned MFV histogram`);
    histogramOffsets.set(i, histogram);
  });
  const rowWindows = graph.ops.some((op) => op.kind === 'fetchingConv2d');
  const fetches = graph.ops.some((op) => op.kind === 'fetching');
  return {
    slots, sizeBytes: dev.geometry.sizeBytes, sectorBytes: sector, programUnitBytes: dev.geometry.programUnitBytes, ioUnitBytes: dev.ioUnitBytes, usedBytes, ioOffsets,
    rowWindows, fetches, compress: store.compress, histogramOffsets,
  };
}

export function histogramOffsetOf(layout: StorageLayout, opIndex: number): number {
  const off = layout.histogramOffsets.get(opIndex);
  if (off === undefined) throw new InternalError(`spill op ${opIndex} has no planned MFV histogram`);
  return off;
}

export function slotIndexOf(layout: StorageLayout, slot: number): number {
  const k = layout.slots.findIndex((s) => s.slot === slot);
  if (k < 0) throw new InternalError(`storage slot ${slot} has no spill`);
  return k;
}

export function ioOffsetOf(layout: StorageLayout, opIndex: number): number {
  const off = layout.ioOffsets.get(opIndex);
  if (off === undefined) throw new InternalError(`op ${opIndex} has no planned I/O buffer`);
  return off;
}

/** model.h lines describing the storage device and its I/O unit. */
export function storageHeaderLines(layout: StorageLayout | null): string {
  if (layout === null) return '/* No Spill / Fetching ops: no storage device. */\n#define MODEL_STORAGE_SLOTS 0u\n';
  return `/* Spill / Fetching storage (the simulator's device geometry; blocks at the simulator's addresses). */
#define MODEL_STORAGE_SLOTS ${layout.slots.length}u
${layout.compress ? '/* Spilled blocks are MFV-compressed when that makes them smaller (TinySeg §5.1). */\n#define MODEL_STORAGE_MFV 1u\n' : ''}#define MODEL_STORAGE_SIZE_BYTES ${layout.sizeBytes}u
#define MODEL_STORAGE_SECTOR_BYTES ${layout.sectorBytes}u
#define MODEL_STORAGE_PROGRAM_UNIT_BYTES ${layout.programUnitBytes}u
/* Device bytes the slots use (whole sectors from 0): the RAM device of the Cortex-M7 build. */
#define MODEL_STORAGE_USED_BYTES ${layout.usedBytes}u
/* Bytes per transfer through a storage op's planned I/O buffer (inside the arena). */
#define MODEL_STORAGE_IO_UNIT_BYTES ${layout.ioUnitBytes}u
`;
}

/** The C of model.c's storage section: slot table, streamed spill / checked fetch over mcusim_storage. */
export function storageRuntimeC(layout: StorageLayout): string {
  const rows = layout.slots.map((s) => `  { ${s.slot}u, ${s.sizeBytes}u, ${s.addr}u },`).join('\n');
  return `
typedef struct {
  uint32_t id;      /* spill block id = slot */
  uint32_t bytes;   /* payload bytes */
  uint32_t addr;    /* block address on the device */
} model_slot;

static const model_slot model_slots[MODEL_STORAGE_SLOTS] = {
${rows}
};

static const mcusim_storage* model_storage;

void model_set_storage(const mcusim_storage* storage) {
  model_storage = storage;
}

#define SPILL_MAGIC 0x4c505354u /* "TSPL" little-endian */
#define SPILL_HEADER_BYTES 16u

static uint32_t crc32_update(uint32_t c, const uint8_t* p, uint32_t n) {
  uint32_t i, k;
  for (i = 0; i < n; ++i) {
    c ^= p[i];
    for (k = 0; k < 8u; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return c;
}

static void put_u32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

${layout.compress ? `${MFV_ENCODER_C}${MFV_SPILL_C}${MFV_FETCH_C}${MFV_DECODER_C}` : RAW_SPILL_FETCH_C}${layout.rowWindows ? (layout.compress ? MFV_FILL_ROWS_C : FILL_ROWS_C) : ''}${layout.compress && layout.fetches ? MFV_DECODE_INTO_C : ''}`;
}

/** Spill and the fetch check of uncompressed blocks (the payload is the arena tensor's bytes). */
const RAW_SPILL_FETCH_C = `/* Spill: the CRC over the header and the arena tensor \`src\`, then the block (erase its sectors
 * unless erased) one device unit at a time through the planned I/O buffer \`io\`. */
static int model_spill(const model_slot* s, const uint8_t* src, uint8_t* io) {
  const mcusim_storage* st = model_storage;
  uint8_t head[SPILL_HEADER_BYTES];
  uint32_t total = SPILL_HEADER_BYTES + s->bytes, ub, foot, off, i, n, sec;
  int rc;
  if (st == 0) return MODEL_E_NO_STORAGE;
  ub = st->geometry.program_unit_bytes;
  if (ub != MODEL_STORAGE_PROGRAM_UNIT_BYTES) return MODEL_E_BLOCK;
  foot = (total + ub - 1u) / ub * ub;
  put_u32(head, SPILL_MAGIC);
  put_u32(head + 4, s->id);
  put_u32(head + 8, s->bytes);
  put_u32(head + 12, crc32_update(crc32_update(0xffffffffu, head, 12u), src, s->bytes) ^ 0xffffffffu);
  if (st->ops->is_erased == 0 || !st->ops->is_erased(st->device, s->addr, foot)) {
    for (sec = s->addr / st->geometry.sector_bytes; sec <= (s->addr + foot - 1u) / st->geometry.sector_bytes; ++sec) {
      rc = mcusim_storage_erase(st, sec);
      if (rc != MCUSIM_STORAGE_OK) return rc;
    }
  }
  for (off = 0; off < foot; off += MODEL_STORAGE_IO_UNIT_BYTES) {
    n = foot - off < MODEL_STORAGE_IO_UNIT_BYTES ? foot - off : MODEL_STORAGE_IO_UNIT_BYTES;
    for (i = 0; i < n; ++i) {
      uint32_t p = off + i;
      io[i] = p < SPILL_HEADER_BYTES ? head[p] : p < total ? src[p - SPILL_HEADER_BYTES] : 0xffu;
    }
    rc = mcusim_storage_program(st, s->addr + off, io, n);
    if (rc != MCUSIM_STORAGE_OK) return rc;
  }
  return 0;
}

/* Before Fetching / FetchingConv2D: read the block back through the I/O buffer, check header and
 * CRC; the kernel then reads the payload in place (model_storage->mapped). */
static int model_fetch(const model_slot* s, uint8_t* io) {
  const mcusim_storage* st = model_storage;
  uint32_t crc, off, n, stored;
  int rc;
  if (st == 0 || st->mapped == 0) return MODEL_E_NO_STORAGE;
  rc = mcusim_storage_read(st, s->addr, io, SPILL_HEADER_BYTES);
  if (rc != MCUSIM_STORAGE_OK) return rc;
  if (get_u32(io) != SPILL_MAGIC || get_u32(io + 4) != s->id || get_u32(io + 8) != s->bytes) return MODEL_E_BLOCK;
  stored = get_u32(io + 12);
  crc = crc32_update(0xffffffffu, io, 12u);
  for (off = 0; off < s->bytes; off += MODEL_STORAGE_IO_UNIT_BYTES) {
    n = s->bytes - off < MODEL_STORAGE_IO_UNIT_BYTES ? s->bytes - off : MODEL_STORAGE_IO_UNIT_BYTES;
    rc = mcusim_storage_read(st, s->addr + SPILL_HEADER_BYTES + off, io, n);
    if (rc != MCUSIM_STORAGE_OK) return rc;
    crc = crc32_update(crc, io, n);
  }
  if ((crc ^ 0xffffffffu) != stored) return MODEL_E_CRC;
  return 0;
}
`;

const FILL_ROWS_C = `
/* FetchingConv2D's row window: copy the slot's rows [*filled, up_to) (flat b * in_h + y, in order,
 * each once) from the device's memory-mapped view into the ring of w_rows rows at \`window\`. */
static void model_fill_rows(const model_slot* s, uint8_t* window, uint32_t row_bytes, uint32_t w_rows, uint32_t in_h, uint32_t* filled, int32_t up_to) {
  const uint8_t* src = model_storage->mapped + s->addr + SPILL_HEADER_BYTES;
  uint32_t j;
  for (; (int32_t)*filled < up_to; ++*filled) {
    uint8_t* dst = window + ((*filled % in_h) % w_rows) * row_bytes;
    const uint8_t* from = src + *filled * row_bytes;
    for (j = 0; j < row_bytes; ++j) dst[j] = from[j];
  }
}
`;

/** Geometry of one FetchingConv2D's row loop (its prepared scalars). */
export interface RowLoop {
  readonly slotIndex: number;
  readonly windowOffset: number;
  /** C pointer expression of the row window; default `arena + windowOffset` (the C port's static arena). */
  readonly window?: string;
  readonly params: string;
  readonly paramCount: number;
  readonly rowFromIndex: number;
  readonly rowToIndex: number;
  readonly scalars: Readonly<Record<string, number>>;
  readonly rowBytes: number;
  /** The kernel call with \`pr\` (the row's params) as its params array. */
  readonly call: string;
  /** MFV build: rows are decoded from the slot by a model_decoder (raw or MFV block). */
  readonly compress: boolean;
}

/** model_run's block for a FetchingConv2D: per flat output row, fill the window up to the last input row it reads, then run the row. */
export function fetchRowsC(r: RowLoop): string {
  const sc = (k: string): number => {
    const v = r.scalars[k];
    if (v === undefined) throw new InternalError(`fetchingConv2d has no scalar ${k}`);
    return v;
  };
  const [batches, inH, outH, wRows] = [sc('batches'), sc('inH'), sc('outH'), sc('wRows')];
  const [strideH, padH, dilH, fH] = [sc('strideH'), sc('padH'), sc('dilH'), sc('fH')];
  const slot = `&model_slots[${r.slotIndex}]`;
  const source = r.compress ? '&dec' : slot;
  const window = r.window ?? `arena + ${r.windowOffset}`;
  const fill = (upTo: string): string => `model_fill_rows(${source}, ${window}, ${r.rowBytes}u, ${wRows}u, ${inH}u, &filled, ${upTo})`;
  return `  {
    int32_t pr[${r.paramCount}];
    uint32_t filled = 0, row, k;
    int32_t last;
${r.compress ? `    model_decoder dec;\n    model_decoder_open(&dec, ${slot});\n` : ''}    for (k = 0; k < ${r.paramCount}u; ++k) pr[k] = ${r.params}[k];
    for (row = 0; row < ${batches * outH}u; ++row) {
      last = (int32_t)(row % ${outH}u) * ${strideH} - ${padH} + ${(fH - 1) * dilH};
      if (last > ${inH - 1}) last = ${inH - 1};
      ${fill(`(int32_t)(row / ${outH}u * ${inH}u) + last + 1`)};
      pr[${r.rowFromIndex}] = (int32_t)row;
      pr[${r.rowToIndex}] = (int32_t)row + 1;
    ${r.call}    }
    ${fill(`${batches * inH}`)};
  }
`;
}
