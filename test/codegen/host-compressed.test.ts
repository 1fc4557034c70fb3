// The C port with MFV-compressed spill blocks (TinySeg §5.1, `--compress`) on the host (cc and,
// when installed, clang, -Werror):
// zoo:tiny-unet after `optimize --passes tinyseg` (FetchingConv2D decoding into its row window;
// with fused fetching off, a plain Fetching decoding into its output) on the internal and the
// external (QSPI) flash of nicla-vision. For several seeds: outputs byte-identical to the
// simulator's, the device file's blocks equal to the simulator device's (the compressed format),
// and the binary's RAM (nm) is the `.bss` arena = the reported planned bytes plus small driver
// state. A flipped payload bit of a compressed block stops the run with the CRC error.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitCProject, storageLayout } from '../../src/codegen/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../src/ir/index.ts';
import type { PlannedModel } from '../../src/optimizer/index.ts';
import { preparePlannedModel, randomInputs, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { createStorage, getTarget, spillFootprintBytes } from '../../src/sim/index.ts';
import { hasTool, hex, make, makeTempDir, ramSymbols, removeDir, runHost, writeProject } from './codegen-helpers.ts';

const hasCc = hasTool('cc') && hasTool('make');
const hasClang = hasTool('clang');
if (!hasCc) console.warn('cc or make not found: SKIPPING the compressed C port tests');
if (hasCc && !hasClang) console.warn('\n*** clang not installed: compressed C projects are built with cc only ***\n');

const SEEDS = [1, 2, 3];
/** Largest RAM symbol allowed beside the arena (device handles, the slot pointer, stdio state). */
const MAX_DRIVER_SYMBOL_BYTES = 256;

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
    let status = 0;
    let stderr = '';
    try {
      runHost(dir, inputs, pm.graph.outputs.length);
    } catch (e) {
      const err = e as { status?: number; stderr?: Buffer | string };
      status = err.status ?? -1;
      stderr = String(err.stderr ?? '');
    }
    expect(status).toBe(3);
    expect(stderr).toMatch(/CRC-32/);
    expect(existsSync(join(dir, 'io/out/output0.bin'))).toBe(false);
  });
});
