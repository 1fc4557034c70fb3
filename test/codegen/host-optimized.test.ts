// Models produced by `mcusim optimize` (runPipeline, exported and re-imported through .tflite so
// the plan travels as OfflineMemoryAllocation) as generated C on the host: tinyseg (Spill /
// FetchingConv2D over the file-backed storage device), fdt, dmo + replacement. Built with gcc and,
// when installed, clang (-O2 -std=c99 -Wall -Wextra -Werror); outputs byte-identical to the
// simulator's on seeded inputs, the spill blocks in the device file equal the simulator's, and the
// binary's RAM (nm: .bss/.data symbols) is the plan's arena plus small driver state (no staging).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitCProject, storageLayout } from '../../src/codegen/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../src/ir/index.ts';
import { preparePlannedModel, randomInputs, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { spillFootprintBytes } from '../../src/sim/index.ts';
import { expectCrcStop, hasTool, hex, make, makeTempDir, ramSymbols, removeDir, runHost, writeProject } from './codegen-helpers.ts';

const hasCc = hasTool('cc') && hasTool('make');
const hasClang = hasTool('clang');
if (!hasCc) console.warn('cc or make not found: SKIPPING the optimized-model C port tests');
if (hasCc && !hasClang) console.warn('\n*** clang not installed: optimized-model C projects are built with cc only ***\n');

const CASES: readonly { readonly zoo: string; readonly passes: readonly string[] }[] = [
  { zoo: 'tiny-unet', passes: ['tinyseg'] },
  { zoo: 'cifar10-cnn', passes: ['fdt'] },
  { zoo: 'mobilenet-v1-0.25-128', passes: ['dmo', 'replacement'] },
];
const SEED = 1;
/** Largest RAM symbol allowed beside the arena (device handles, the slot pointer, stdio state). */
const MAX_DRIVER_SYMBOL_BYTES = 256;

describe.skipIf(!hasCc)('C port of optimized models vs the simulator', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    it(`zoo:${c.zoo} optimized with ${c.passes.join('+')}: host C = simulator (seed ${SEED})`, () => {
      const optimized = runPipeline(buildZooModel(c.zoo), c.passes, { flags: {} }).model;
      const model = importTflite(exportTflite(optimized));
      const pm = preparePlannedModel(model);
      const project = emitCProject(pm, { modelName: `${c.zoo}+${c.passes.join('+')}` });
      const report = c.passes.includes('tinyseg') ? `, ${project.summary.storageSlots} spill slot(s), I/O unit ${project.summary.ioUnitBytes} B in the arena` : '';
      console.log(`${c.zoo} (${c.passes.join('+')}): plan peak ${pm.plan.peakBytes} B, arena ${project.summary.arenaBytes} B${report}`);
      if (c.passes.includes('tinyseg')) expect(project.summary.storageSlots).toBeGreaterThan(0);
      const inputs = randomInputs(model.graph, SEED);
      const sim = runPlanned(pm, { inputs }).outputs;
      const compilers = hasClang ? ['cc', 'clang'] : ['cc'];
      for (const cc of compilers) {
        const dir = makeTempDir(`cg-opt-${c.zoo}-${cc}`);
        dirs.push(dir);
        writeProject(project, dir);
        make(dir, 'host', [`CC=${cc}`]);
        const got = runHost(dir, inputs, model.graph.outputs.length);
        sim.forEach((s, i) => expect(hex(got[i] as Uint8Array), `${cc} seed ${SEED} output ${i}`).toBe(hex(s)));
        // The port's RAM: the arena (= the plan, I/O buffers included) and small driver state only.
        const ram = ramSymbols(join(dir, 'build/host/model'));
        expect(ram.find((r) => r.name === 'arena')?.sizeBytes, `${cc} .bss arena`).toBe(pm.arenaBytes);
        const others = ram.filter((r) => r.name !== 'arena');
        console.log(`${c.zoo} ${cc} RAM: arena ${pm.arenaBytes} B (plan peak ${pm.plan.peakBytes} B); others ${others.map((r) => `${r.name} ${r.sizeBytes}`).join(', ')}`);
        for (const r of others) expect(r.sizeBytes, `${cc} ${r.name}: nothing beside the arena but driver state`).toBeLessThanOrEqual(MAX_DRIVER_SYMBOL_BYTES);
        const store = pm.runtime.spillStore;
        if (store === null) continue;
        // The device file holds the simulator's spill blocks at the simulator's addresses.
        const file = new Uint8Array(readFileSync(join(dir, 'io/out/storage.bin')));
        expect(file.length).toBe(store.device.geometry.sizeBytes);
        for (const s of storageLayout(pm.graph, store, pm.scratchOffsets).slots) {
          const foot = spillFootprintBytes(store.device, s.sizeBytes);
          expect(hex(file.subarray(s.addr, s.addr + foot)), `${cc} slot ${s.slot} block`).toBe(hex(store.device.read(s.addr, foot).bytes));
        }
      }
    });
  }

  it('a flipped bit in a spilled block: the generated C stops with a CRC error (exit 3), no outputs', () => {
    const model = importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags: {} }).model));
    const project = emitCProject(preparePlannedModel(model), { modelName: 'tiny-unet+tinyseg (fault)' });
    const block = project.summary.storageBlocks[0];
    expect(block).toBeDefined();
    // One bit in the middle of the payload (after the 16-byte header) reads back flipped.
    const bit = ((block?.addr ?? 0) + 16 + Math.floor((block?.sizeBytes ?? 0) / 2)) * 8 + 5;
    const dir = makeTempDir('cg-fault');
    dirs.push(dir);
    writeProject(project, dir);
    make(dir, 'host', [`HOST_OPT=-O2 -DMCUSIM_HOST_FAULT_BIT=${bit}u`]);
    expectCrcStop(dir, randomInputs(model.graph, SEED), model.graph.outputs.length);
  });
});
