// The Cortex-M7 build (arm-none-eabi-gcc -mcpu=cortex-m7 -mthumb -O2 -Wall -Wextra -Werror) run
// under QEMU mps2-an500 with semihosting file I/O: person_detect (TFLM plan) and
// mobilenet-v1-0.25-128 (DMO plan) byte-identical to the simulator (and person_detect to TFLM);
// the `arena` symbol in .bss is exactly the plan's peak rounded up to the documented 16-byte
// alignment (C_ARENA_ALIGNMENT_BYTES; both plans are already multiples, so arena = peak). Also
// zoo:tiny-unet optimized with tinyseg (Spill / FetchingConv2D over the RAM-backed device), raw and
// MFV-compressed (internal and QSPI flash geometry; FetchingConv2D and, fused fetching off, a
// plain Fetching): its `.bss` arena is the planned bytes and its RAM beside the arena only the
// emulated device and small driver state (nm).
// Skipped LOUDLY without the toolchain.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { C_ARENA_ALIGNMENT_BYTES, emitCProject } from '../../src/codegen/index.ts';
import type { Model } from '../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../src/ir/index.ts';
import { preparePlannedModel, randomInputs, runPipeline, runPlanned } from '../../src/optimizer/index.ts';
import { createStorage, getTarget } from '../../src/sim/index.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
import { hasTool, hex, make, makeTempDir, ramSymbols, removeDir, runQemu, writeProject } from './codegen-helpers.ts';

const hasArm = hasTool('arm-none-eabi-gcc') && hasTool('make');
const hasQemu = hasTool('qemu-system-arm');
if (!hasArm || !hasQemu) {
  console.warn(
    `\n*** SKIPPING Cortex-M7 C port tests: ${!hasArm ? 'arm-none-eabi-gcc (Debian gcc-arm-none-eabi)' : ''}` +
      `${!hasArm && !hasQemu ? ' and ' : ''}${!hasQemu ? 'qemu-system-arm (Debian qemu-system-arm)' : ''} not installed ***\n`,
  );
}

interface Case {
  readonly name: string;
  readonly model: () => Model;
  readonly planner: string;
  readonly oracle?: string;
  /** The issue's acceptance: `.bss` arena = plan peak (plus the documented alignment). */
  readonly arenaIsPeak: boolean;
  /** TinySeg storage: the simulator's device (nicla-vision internal / external flash) and MFV compression. */
  readonly storage?: { readonly kind: string; readonly compress: boolean };
}

const tinyUnetTinyseg = (flags: Record<string, boolean> = {}): Model =>
  importTflite(exportTflite(runPipeline(buildZooModel('tiny-unet'), ['tinyseg'], { flags }).model));

const CASES: readonly Case[] = [
  { name: 'person_detect', model: () => importTflite(readFileSync(join(ORACLE_MODELS, 'person_detect.tflite'))), planner: 'tflm-greedy', oracle: 'person_detect/seed1', arenaIsPeak: true },
  { name: 'zoo:mobilenet-v1-0.25-128', model: () => buildZooModel('mobilenet-v1-0.25-128'), planner: 'dmo', arenaIsPeak: true },
  { name: 'zoo:tiny-unet+tinyseg', model: () => tinyUnetTinyseg(), planner: 'tflm-greedy', arenaIsPeak: true },
  // MFV-compressed blocks: FetchingConv2D decodes into its row window (internal and QSPI flash
  // geometry), a plain Fetching (fused fetching off) into its output.
  { name: 'zoo:tiny-unet+tinyseg MFV internal', model: () => tinyUnetTinyseg(), planner: 'tflm-greedy', arenaIsPeak: true, storage: { kind: 'internal', compress: true } },
  { name: 'zoo:tiny-unet+tinyseg MFV external', model: () => tinyUnetTinyseg(), planner: 'tflm-greedy', arenaIsPeak: true, storage: { kind: 'external', compress: true } },
  {
    name: 'zoo:tiny-unet+tinyseg (Fetching) MFV internal',
    model: () => tinyUnetTinyseg({ fusedFetching: false }),
    planner: 'tflm-greedy',
    arenaIsPeak: true,
    storage: { kind: 'internal', compress: true },
  },
];

/**
 * Not the model's RAM: the RAM-backed storage device of the QEMU build (board-files.ts; it stands
 * for flash) and the semihosting command-line buffer of the test harness (file I/O plumbing).
 */
const DEVICE_SYMBOLS: readonly string[] = ['storage_cells', 'storage_units', 'cmdline'];
/** Largest RAM symbol allowed beside the arena and the device (handles, semihosting state). */
const MAX_DRIVER_SYMBOL_BYTES = 256;

/** Size in bytes of symbol `name` from `nm -S` (hex size column). */
function symbolSize(elf: string, name: string): number | null {
  const lines = execFileSync('arm-none-eabi-nm', ['-S', elf], { encoding: 'utf8' }).split('\n');
  const row = lines.map((l) => l.trim().split(/\s+/)).find((c) => c.length === 4 && c[3] === name);
  return row ? parseInt(row[1] as string, 16) : null;
}

describe.skipIf(!hasArm || !hasQemu)('C port on an emulated Cortex-M7 (QEMU mps2-an500)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    itWithData(c.oracle === undefined ? [] : 'models', `${c.name} (${c.planner}): QEMU outputs identical, .bss arena = plan`, () => {
      const model = c.model();
      const st = c.storage;
      const pm = preparePlannedModel(model, { planner: c.planner, ...(st ? { storage: createStorage(getTarget('nicla-vision'), st.kind), compress: st.compress } : {}) });
      const project = emitCProject(pm, { target: 'cortex-m7', modelName: c.name });
      const dir = makeTempDir('cg-m7');
      dirs.push(dir);
      writeProject(project, dir);
      const sizeText = make(dir, 'cortex-m7');
      const elf = join(dir, 'build/cortex-m7/model.elf');
      // The arena is exactly the plan's arena (peak + variables; 16-byte aligned by the plan).
      expect(symbolSize(elf, 'arena')).toBe(project.summary.arenaBytes);
      expect(project.summary.arenaBytes % C_ARENA_ALIGNMENT_BYTES).toBe(0);
      if (c.arenaIsPeak) {
        const alignedPeak = Math.ceil(pm.plan.peakBytes / C_ARENA_ALIGNMENT_BYTES) * C_ARENA_ALIGNMENT_BYTES;
        expect(symbolSize(elf, 'arena'), '.bss arena = plan peak rounded up to 16 B').toBe(alignedPeak);
      }
      // Beside the arena: the emulated storage device (it stands for flash, not board RAM) and
      // small driver state; no staging copy of a spilled tensor.
      const ram = ramSymbols(elf, 'arm-none-eabi-nm').filter((r) => r.name !== 'arena' && !DEVICE_SYMBOLS.includes(r.name));
      console.log(`${c.name} cortex-m7 RAM beside the arena and the device: ${ram.map((r) => `${r.name} ${r.sizeBytes}`).join(', ')}`);
      for (const r of ram) expect(r.sizeBytes, `${r.name}: driver state only`).toBeLessThanOrEqual(MAX_DRIVER_SYMBOL_BYTES);
      const [text, data, bss] = (sizeText.trim().split('\n').pop() ?? '').trim().split(/\s+/).map(Number);
      console.log(`${c.name} (${c.planner}) cortex-m7: text ${text} B, data ${data} B, bss ${bss} B; arena ${project.summary.arenaBytes} B, simulator plan peak ${pm.plan.peakBytes} B, I/O unit ${project.summary.ioUnitBytes} B`);
      const inputs = c.oracle
        ? model.graph.inputs.map((_, i) => new Uint8Array(readFileSync(join(ORACLE_MODELS, c.oracle as string, `input${i}.bin`))))
        : randomInputs(model.graph, 1);
      const got = runQemu(dir, inputs, model.graph.outputs.length);
      const sim = runPlanned(pm, { inputs }).outputs;
      if (st?.compress) {
        const spill = pm.runtime.spillStore?.log.find((e) => e.direction === 'spill');
        expect(spill?.storedBytes, 'the simulator compressed the block').toBeLessThan(spill?.rawBytes ?? 0);
      }
      sim.forEach((s, i) => expect(hex(got[i] as Uint8Array), `output ${i} vs simulator`).toBe(hex(s)));
      if (c.oracle) {
        const want = new Uint8Array(readFileSync(join(ORACLE_MODELS, c.oracle, 'output0.bin')));
        expect(hex(got[0] as Uint8Array), 'output 0 vs TFLM').toBe(hex(want));
      }
    });
  }
});
