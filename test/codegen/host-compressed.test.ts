// The C port with MFV-compressed spill blocks (TinySeg §5.1, `--compress`) on the host (cc and,
// when installed, clang, -Werror):
// zoo:tiny-unet after `optimize --passes tinyseg` (FetchingConv2D decoding into its row window;
// with fused fetching off, a plain Fetching decoding into its output) on the internal and the
// external (QSPI) flash of nicla-vision. For several seeds: outputs byte-identical to the
// simulator's, the device file's blocks equal to the simulator device's (the compressed format),
// and the binary's RAM (nm) is the `.bss` arena = the reported planned bytes plus small driver
// state. A flipped payload bit of a compressed block stops the run with the CRC error; an MFV
// block whose bitmap disagrees with its length (CRC intact) is refused with MODEL_E_BLOCK.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitCProject, storageLayout } from '../../src/codegen/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../src/ir/index.ts';
import type { PlannedModel } from '../../src/optimizer/index.ts';
import { preparePlannedModel, randomInputs, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { createStorage, getTarget, spillFootprintBytes } from '../../src/sim/index.ts';
import { expectCrcStop, hasTool, hex, make, makeTempDir, ramSymbols, removeDir, runHost, writeProject } from './codegen-helpers.ts';

const hasCc = hasTool('cc') && hasTool('make');
const hasClang = hasTool('clang');
if (!hasCc) console.warn('cc or make not found: SKIPPING the compressed C port tests');
if (hasCc && !hasClang) console.warn('\n*** clang not installed: compressed C projects are built with cc only ***\n');

const SEEDS = [1, 2, 3];
/** Largest RAM symbol allowed beside the arena (device handles, the slot pointer, stdio state). */
const MAX_DRIVER_SYMBOL_BYTES = 256;

/**
 * Includes the generated model.c and writes blocks for slot 0 on the RAM device, each with a valid
 * CRC: an MFV block with one other value (bitmap bit 0) and a length saying one, then two, other
 * values; then a block one byte longer than the tensor. Prints model_fetch's status for each.
 */
const MFV_CHECK_C = `#include <stdio.h>
#include "mcusim_storage_ram.h"
#include "model.c"

static uint8_t cells[MODEL_STORAGE_USED_BYTES];
static uint8_t units[MODEL_STORAGE_USED_BYTES / MODEL_STORAGE_PROGRAM_UNIT_BYTES];
static uint8_t block[SPILL_HEADER_BYTES + 76800u + 64u];

static int put_block(mcusim_storage* st, uint32_t length, uint32_t others_written) {
  const model_slot* s = &model_slots[0];
  uint32_t i, foot, ub = MODEL_STORAGE_PROGRAM_UNIT_BYTES, bitmap = (s->bytes + 7u) / 8u;
  for (i = 0; i < sizeof block; ++i) block[i] = 0xffu;
  put_u32(block, SPILL_MAGIC); put_u32(block + 4, s->id); put_u32(block + 8, length);
  for (i = 0; i < length; ++i) block[SPILL_HEADER_BYTES + i] = 0u;
  if (others_written) { block[SPILL_HEADER_BYTES + 1u] = 1u; block[SPILL_HEADER_BYTES + 1u + bitmap] = 7u; }
  put_u32(block + 12, crc32_update(crc32_update(0xffffffffu, block, 12u), block + SPILL_HEADER_BYTES, length) ^ 0xffffffffu);
  foot = (SPILL_HEADER_BYTES + length + ub - 1u) / ub * ub;
  for (i = 0; i <= (foot - 1u) / MODEL_STORAGE_SECTOR_BYTES; ++i) mcusim_storage_erase(st, i);
  return mcusim_storage_program(st, 0u, block, foot);
}

int main(void) {
  mcusim_storage st;
  mcusim_storage_ram ram;
  mcusim_storage_geometry g = { MODEL_STORAGE_USED_BYTES, MODEL_STORAGE_SECTOR_BYTES, MODEL_STORAGE_PROGRAM_UNIT_BYTES };
  uint8_t io[512];
  uint32_t bitmap = (model_slots[0].bytes + 7u) / 8u;
  model_decoder d;
  int rc;
  if (mcusim_storage_ram_open(&st, &ram, cells, units, g) != MCUSIM_STORAGE_OK) return 2;
  model_set_storage(&st);
  if (put_block(&st, 1u + bitmap + 1u, 1u) != MCUSIM_STORAGE_OK) return 2;
  rc = model_fetch(&model_slots[0], io);
  model_decoder_open(&d, &model_slots[0]);
  { uint8_t a = model_decoder_next(&d), b = model_decoder_next(&d); printf("others 1 length 1: rc %d first %u second %u\\n", rc, a, b); }
  if (put_block(&st, 1u + bitmap + 2u, 1u) != MCUSIM_STORAGE_OK) return 2;
  printf("others 1 length 2: rc %d\\n", model_fetch(&model_slots[0], io));
  if (put_block(&st, model_slots[0].bytes + 1u, 0u) != MCUSIM_STORAGE_OK) return 2;
  printf("raw length + 1: rc %d\\n", model_fetch(&model_slots[0], io));
  (void)arena;
  return 0;
}
`;

function tinyUnetTinyseg(fusedFetching: boolean, storage: string): PlannedModel {
  const flags: Record<string, boolean> = fusedFetching ? {} : { fusedFetching: false };
  const model = importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags }).model));
  return preparePlannedModel(model, { storage: createStorage(getTarget('nicla-vision'), storage), compress: true });
}

describe.skipIf(!hasCc)('C port with MFV-compressed spill blocks vs the simulator', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const storage of ['internal', 'external']) {
    for (const fused of [true, false]) {
      const fetchKind = fused ? 'fetchingConv2d' : 'fetching';
      it(`zoo:tiny-unet+tinyseg, ${fetchKind}, ${storage} flash, compressed: host C = simulator (seeds ${SEEDS.join(', ')}), .bss arena = planned bytes`, () => {
        const pm = tinyUnetTinyseg(fused, storage);
        expect(pm.graph.ops.some((op) => op.kind === fetchKind)).toBe(true);
        const project = emitCProject(pm, { modelName: `tiny-unet+tinyseg (${storage}, MFV)` });
        const model = project.files.find((f) => f.path === 'src/model.c')?.text ?? '';
        expect(model).toMatch(fused ? /model_fill_rows\(&dec, / : /model_decode_into\(&model_slots\[0\], /);
        expect(model).not.toMatch(/staging|malloc/);
        const store = pm.runtime.spillStore;
        if (store === null) throw new Error('tinyseg model has no storage ops');
        const layout = storageLayout(pm.graph, store, pm.scratchOffsets);
        for (const cc of hasClang ? ['cc', 'clang'] : ['cc']) {
          const dir = makeTempDir(`cg-mfv-${storage}-${fetchKind}-${cc}`);
          dirs.push(dir);
          writeProject(project, dir);
          make(dir, 'host', [`CC=${cc}`]);
          for (const seed of SEEDS) {
            const inputs = randomInputs(pm.graph, seed);
            const sim = runPlanned(pm, { inputs }).outputs;
            const spill = store.log.filter((e) => e.direction === 'spill').pop();
            expect(spill?.storedBytes, `seed ${seed}: the simulator compressed the block`).toBeLessThan(spill?.rawBytes ?? 0);
            const got = runHost(dir, inputs, pm.graph.outputs.length);
            sim.forEach((s, i) => expect(hex(got[i] as Uint8Array), `${cc} seed ${seed} output ${i}`).toBe(hex(s)));
            // The device file holds the simulator's (compressed) blocks at the simulator's addresses.
            const file = new Uint8Array(readFileSync(join(dir, 'io/out/storage.bin')));
            expect(file.length).toBe(store.device.geometry.sizeBytes);
            for (const s of layout.slots) {
              const foot = spillFootprintBytes(store.device, s.sizeBytes);
              expect(hex(file.subarray(s.addr, s.addr + foot)), `${cc} seed ${seed} slot ${s.slot} block`).toBe(hex(store.device.read(s.addr, foot).bytes));
            }
          }
          // RAM: the .bss arena is the reported planned bytes (histogram, I/O buffer and row window
          // inside it); nothing else but small driver state (the decoder lives on the stack).
          const ram = ramSymbols(join(dir, 'build/host/model'));
          expect(ram.find((r) => r.name === 'arena')?.sizeBytes, `${cc} .bss arena`).toBe(pm.plan.peakBytes);
          expect(project.summary.arenaBytes).toBe(pm.plan.peakBytes);
          const others = ram.filter((r) => r.name !== 'arena');
          console.log(`tiny-unet+tinyseg ${fetchKind} ${storage} MFV ${cc}: .bss arena ${pm.plan.peakBytes} B; others ${others.map((r) => `${r.name} ${r.sizeBytes}`).join(', ')}`);
          for (const r of others) expect(r.sizeBytes, `${cc} ${r.name}: driver state only`).toBeLessThanOrEqual(MAX_DRIVER_SYMBOL_BYTES);
        }
      });
    }
  }

  it('the fetch check refuses an MFV block whose bitmap disagrees with its length (CRC intact): MODEL_E_BLOCK', () => {
    const pm = tinyUnetTinyseg(true, 'internal');
    const dir = makeTempDir('cg-mfv-check');
    dirs.push(dir);
    writeProject(emitCProject(pm, { modelName: 'tiny-unet+tinyseg (MFV check)' }), dir);
    // A harness around the generated model.c: crafted blocks on the RAM device, then model_fetch.
    writeFileSync(join(dir, 'src/check.c'), MFV_CHECK_C);
    execFileSync('cc', ['-std=c99', '-O1', '-Isrc', 'src/check.c', 'src/model_data.c', 'src/mcusim_storage_ram.c', '-o', 'check'], { cwd: dir, stdio: 'pipe' });
    const out = execFileSync(join(dir, 'check'), { encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(['others 1 length 1: rc 0 first 7 second 0', 'others 1 length 2: rc -101', 'raw length + 1: rc -101']);
  });

  it('a flipped bit in a compressed block: the generated C stops with a CRC error (exit 3), no outputs', () => {
    const pm = tinyUnetTinyseg(true, 'internal');
    const inputs = randomInputs(pm.graph, 1);
    runPlanned(pm, { inputs });
    const spill = pm.runtime.spillStore?.log.find((e) => e.direction === 'spill');
    expect(spill).toBeDefined();
    // One bit in the middle of the compressed payload (after the 16-byte header) reads back flipped.
    const bit = ((spill?.addr ?? 0) + 16 + Math.floor((spill?.storedBytes ?? 0) / 2)) * 8 + 3;
    const dir = makeTempDir('cg-mfv-fault');
    dirs.push(dir);
    writeProject(emitCProject(pm, { modelName: 'tiny-unet+tinyseg (MFV fault)' }), dir);
    make(dir, 'host', [`HOST_OPT=-O2 -DMCUSIM_HOST_FAULT_BIT=${bit}u`]);
    expectCrcStop(dir, inputs, pm.graph.outputs.length);
  });
});
