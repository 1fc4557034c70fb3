// The generated runtime side of TinySeg's storage ops (paper §5 transfer_out / transfer_in), as
// sim/spill-store.ts stages them: per spill slot a staging buffer (a separate `staging` array, at
// the simulator's offsets past the arena), written by Spill then stored as one spill block
// (sim/storage/spill-block.ts: "TSPL", id, length, CRC-32, payload, 0xFF to whole program units;
// erase first unless erased) and poisoned; read back and CRC-checked before Fetching ops run.
import type { Graph } from '../ir/index.ts';
import { InternalError, UsageError } from '../ir/index.ts';
import { storageUses } from '../kernels/index.ts';
import type { SpillStore } from '../sim/index.ts';
import { spillFootprintBytes } from '../sim/index.ts';

export interface CodegenSlot {
  readonly slot: number;
  readonly sizeBytes: number;
  /** Offset in the simulator's arena view (>= stagingBase). */
  readonly stagingOffset: number;
  /** Block address on the device. */
  readonly addr: number;
}

export interface StorageLayout {
  readonly slots: readonly CodegenSlot[];
  readonly stagingBase: number;
  readonly stagingBytes: number;
  readonly sizeBytes: number;
  readonly sectorBytes: number;
  readonly programUnitBytes: number;
  /** Device bytes the slots occupy (whole sectors from address 0). */
  readonly usedBytes: number;
}

const alignUp = (x: number, a: number): number => Math.ceil(x / a) * a;

/** The slots, staging offsets and block addresses exactly as SpillStore assigns them. */
export function storageLayout(graph: Graph, store: SpillStore): StorageLayout {
  const dev = store.device;
  if (!dev.needsErase) throw new UsageError(`codegen supports erase-before-program storage (internal/external flash), not '${dev.name}'`);
  if (store.compress) throw new UsageError('codegen does not emit MFV compression of spilled blocks; plan without compress');
  const sector = Math.max(1, dev.geometry.sectorBytes);
  const slots: CodegenSlot[] = [];
  let addr = 0;
  for (const u of storageUses(graph)) {
    if (u.direction !== 'spill' || slots.some((s) => s.slot === u.slot)) continue;
    slots.push({ slot: u.slot, sizeBytes: u.sizeBytes, stagingOffset: store.stagingOffsetOf(u.opIndex), addr });
    addr += alignUp(spillFootprintBytes(dev, u.sizeBytes + Math.ceil(u.sizeBytes / 8) + 1), sector);
  }
  return {
    slots,
    stagingBase: store.stagingBase,
    stagingBytes: store.stagingBytes,
    sizeBytes: dev.geometry.sizeBytes,
    sectorBytes: sector,
    programUnitBytes: dev.geometry.programUnitBytes,
    usedBytes: addr,
  };
}

export function slotIndexOf(layout: StorageLayout, slot: number): number {
  const k = layout.slots.findIndex((s) => s.slot === slot);
  if (k < 0) throw new InternalError(`storage slot ${slot} has no spill`);
  return k;
}

/** model.h lines describing the storage device and staging. */
export function storageHeaderLines(layout: StorageLayout | null): string {
  if (layout === null) return '/* No Spill / Fetching ops: no storage device. */\n#define MODEL_STORAGE_SLOTS 0u\n';
  return `/* Spill / Fetching storage (the simulator's device geometry; blocks at the simulator's addresses). */
#define MODEL_STORAGE_SLOTS ${layout.slots.length}u
#define MODEL_STORAGE_SIZE_BYTES ${layout.sizeBytes}u
#define MODEL_STORAGE_SECTOR_BYTES ${layout.sectorBytes}u
#define MODEL_STORAGE_PROGRAM_UNIT_BYTES ${layout.programUnitBytes}u
/* Device bytes the slots use (whole sectors from 0): the RAM device of the Cortex-M7 build. */
#define MODEL_STORAGE_USED_BYTES ${layout.usedBytes}u
/* Staging buffers (RAM, outside the arena), one per slot, 16-byte aligned. */
#define MODEL_STAGING_BYTES ${Math.max(layout.stagingBytes, 16)}u
`;
}

/** The C of model.c's storage section: staging array, slot table, spill / fetch over mcusim_storage. */
export function storageRuntimeC(layout: StorageLayout): string {
  const rows = layout.slots
    .map((s) => `  { ${s.slot}u, ${s.sizeBytes}u, ${s.stagingOffset - layout.stagingBase}u, ${s.addr}u },`)
    .join('\n');
  return `
/* Storage staging buffers (sim/spill-store.ts: past the arena in the simulator's view). */
static uint8_t staging[MODEL_STAGING_BYTES] __attribute__((aligned(16)));

typedef struct {
  uint32_t id;      /* spill block id = slot */
  uint32_t bytes;   /* payload bytes */
  uint32_t staging; /* offset in staging[] */
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
#define STAGING_POISON 0xa5u

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

/* After Spill: the staged bytes as one block (erase its sectors unless erased, program unit by
 * unit), then poison the staging buffer as the simulator does. */
static int model_spill(const model_slot* s) {
  const mcusim_storage* st = model_storage;
  uint8_t head[SPILL_HEADER_BYTES];
  uint8_t unit[MODEL_STORAGE_PROGRAM_UNIT_BYTES];
  uint8_t* src = staging + s->staging;
  uint32_t total = SPILL_HEADER_BYTES + s->bytes, ub, foot, off, i, sec;
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
  for (off = 0; off < foot; off += ub) {
    for (i = 0; i < ub; ++i) {
      uint32_t p = off + i;
      unit[i] = p < SPILL_HEADER_BYTES ? head[p] : p < total ? src[p - SPILL_HEADER_BYTES] : 0xffu;
    }
    rc = mcusim_storage_program(st, s->addr + off, unit, ub);
    if (rc != MCUSIM_STORAGE_OK) return rc;
  }
  for (i = 0; i < s->bytes; ++i) src[i] = STAGING_POISON;
  return 0;
}

/* Before Fetching / FetchingConv2D: read the block into the staging buffer, check header and CRC. */
static int model_fetch(const model_slot* s) {
  const mcusim_storage* st = model_storage;
  uint8_t head[SPILL_HEADER_BYTES];
  uint8_t* dst = staging + s->staging;
  int rc;
  if (st == 0) return MODEL_E_NO_STORAGE;
  rc = mcusim_storage_read(st, s->addr, head, SPILL_HEADER_BYTES);
  if (rc != MCUSIM_STORAGE_OK) return rc;
  if (get_u32(head) != SPILL_MAGIC || get_u32(head + 4) != s->id || get_u32(head + 8) != s->bytes) return MODEL_E_BLOCK;
  rc = mcusim_storage_read(st, s->addr + SPILL_HEADER_BYTES, dst, s->bytes);
  if (rc != MCUSIM_STORAGE_OK) return rc;
  if ((crc32_update(crc32_update(0xffffffffu, head, 12u), dst, s->bytes) ^ 0xffffffffu) != get_u32(head + 12)) return MODEL_E_CRC;
  return 0;
}
`;
}
