// `mcusim boards [--json]`: the built-in board profiles (src/sim/targets): core and its DSP / FPU /
// MVE features, clock, RAM regions, flash and its wait states at that clock, what hides them.
import type { Command } from 'commander';
import type { TargetProfile } from '../../sim/index.ts';
import { flashAccessWaitCycles, getTarget, listTargets } from '../../sim/index.ts';
import { renderTable } from '../format.ts';

const KIB = 1024;

function boardJson(t: TargetProfile): Record<string, unknown> {
  return {
    name: t.name, description: t.description, mcu: t.mcu,
    core: { ...t.core, clockHz: t.mainCore.clockHz },
    ...(t.secondCore === undefined ? {} : { secondCore: t.secondCore }),
    // The build the latency constants are for: null = a vendor -O2 / -O3 build.
    build: t.build ?? null,
    sramBytes: t.sramBytes, ramRegions: t.ramRegions, arenaRegion: t.arenaRegion,
    // waitCycles: core cycles one flash read adds beyond the load's own (flashAccessWaitCycles).
    flashBytes: t.flashBytes, flash: { ...t.flashTiming, waitCycles: flashAccessWaitCycles(t.flashTiming) },
    spillStorage: t.internalFlash !== undefined || t.qspiFlash !== undefined || t.remoteHost !== undefined,
  };
}

function features(t: TargetProfile): string {
  return [t.core.dsp ? 'DSP' : '', t.core.fpu === 'none' ? '' : `FPU-${t.core.fpu}`, t.core.mve ? 'MVE' : ''].filter((x) => x !== '').join('+') || '-';
}

export function runBoards(opts: { readonly json?: boolean }): number {
  const boards = listTargets().map(getTarget);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ boards: boards.map(boardJson) })}\n`);
    return 0;
  }
  const rows = boards.map((t) => [
    t.name, t.mcu, t.core.family, features(t), `${t.mainCore.clockHz / 1e6}`,
    `${Math.round(t.sramBytes / KIB)}`, `${t.arenaRegion} ${Math.round((t.ramRegions.find((r) => r.name === t.arenaRegion)?.sizeBytes ?? 0) / KIB)}`,
    `${Math.round(t.flashBytes / KIB)}`, `${t.flashTiming.waitStates}`, `${flashAccessWaitCycles(t.flashTiming)} / ${t.flashTiming.accessBytes} B`, t.flashTiming.accelerator,
  ]);
  process.stdout.write(`${renderTable(['board', 'mcu', 'core', 'features', 'MHz', 'SRAM KB', 'arena region KB', 'flash KB', 'flash WS', 'wait cycles / read', 'hides wait states'], rows)}\n`);
  return 0;
}

export function registerBoards(program: Command, setExit: (code: number) => void): void {
  program
    .command('boards')
    .description('the built-in board profiles: core, clock, RAM regions, flash wait states')
    .option('--json', 'print one JSON document')
    .action((opts: { json?: boolean }) => setExit(runBoards(opts)));
}
