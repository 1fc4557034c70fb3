// The whole-arena model against TFLM itself: every oracle model mcusim loads (models/, models-real/,
// op-models/, models-extra/) must give the host build's persistent_used_bytes and arena_used_bytes exactly, and
// every row of arena-cortex-m7.json (TFLM built for a Cortex-M7, run under QEMU) both builds'
// figures. Models whose ops mcusim does not run yet (E_MODEL_UNSUPPORTED_OP) are skipped and counted.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McusimError, buildZooModel, importTflite, readOfflinePlan } from '../../../src/ir/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { computeModelBufferRequests, planBuffers } from '../../../src/optimizer/index.ts';
import { CORTEX_M, HOST64, wholeArena } from '../../../src/sim/index.ts';
import type { ArenaReport, TflmArch } from '../../../src/sim/index.ts';
import { ARENA_CORTEX_M7, ORACLE_MODELS, dataPath, describeWithData, fetchedParts, itWithData, tfliteNames } from '../../oracle-paths.ts';

interface Meta {
  readonly arena_used_bytes: number;
  readonly persistent_used_bytes: number;
  readonly nonpersistent_used_bytes: number;
  readonly planner_max_memory_bytes: number;
}

function arenaOf(model: Model, arch: TflmArch): ArenaReport {
  const plan = planBuffers('tflm-greedy', computeModelBufferRequests(model), model.graph, {});
  return wholeArena(model.graph, plan.peakBytes, arch, readOfflinePlan(model)).report;
}

/** The model, or the reason it is skipped (an op mcusim does not run yet); other errors fail. */
function load(path: string): Model | string {
  try {
    return importTflite(new Uint8Array(readFileSync(path)));
  } catch (e) {
    if (e instanceof McusimError && e.code === 'E_MODEL_UNSUPPORTED_OP') return e.code;
    throw e;
  }
}

const DIRS = ['models', 'models-real', 'op-models', 'models-extra'];
const cases = DIRS.flatMap((dir) =>
  tfliteNames(dataPath(dir))
    .filter((name) => existsSync(dataPath(`${dir}/${name}/seed1/meta.json`)))
    .map((name) => ({ dir, name })),
);
const loaded = new Map(cases.map((c) => [`${c.dir}/${c.name}`, load(dataPath(`${c.dir}/${c.name}.tflite`))]));
const skipped = [...loaded.values()].filter((m) => typeof m === 'string').length;

describe('host64 whole arena = TFLM meta.json, every loadable oracle model', () => {
  itWithData(fetchedParts(...DIRS), `covers the oracle (${loaded.size - skipped} loadable, ${skipped} skipped: ops mcusim does not run yet)`, () => {
    expect(loaded.size - skipped).toBeGreaterThanOrEqual(16);
  });
  for (const folder of DIRS) {
    describeWithData(fetchedParts(folder), folder, () => {
      for (const { dir, name } of cases.filter((c) => c.dir === folder)) {
        const model = loaded.get(`${dir}/${name}`);
        it.skipIf(typeof model === 'string')(`${dir}/${name}`, () => {
          const meta = JSON.parse(readFileSync(dataPath(`${dir}/${name}/seed1/meta.json`), 'utf8')) as Meta;
          const a = arenaOf(model as Model, HOST64);
          expect(a.runtime).toBe('tflm');
          expect(a.plannedBytes).toBe(meta.planner_max_memory_bytes);
          expect(a.plannedBytes).toBe(meta.nonpersistent_used_bytes);
          expect(a.persistentBytes).toBe(meta.persistent_used_bytes);
          expect(a.totalBytes).toBe(meta.arena_used_bytes);
        });
      }
    });
  }
});

interface M7Row {
  readonly model: string;
  readonly m7: { readonly arena_used_bytes: number; readonly persistent_used_bytes: number; readonly nonpersistent_used_bytes: number };
  readonly host: { readonly arena_used_bytes: number; readonly persistent_used_bytes: number };
}
const m7 = JSON.parse(readFileSync(ARENA_CORTEX_M7, 'utf8')) as { readonly rows: readonly M7Row[] };

describe('cortex-m whole arena = TFLM built for a Cortex-M7 (arena-cortex-m7.json)', () => {
  it('has rows', () => expect(m7.rows.length).toBeGreaterThanOrEqual(12));
  for (const row of m7.rows) {
    const zoo = row.model.startsWith('zoo:');
    itWithData(zoo ? [] : 'models', row.model, () => {
      const model = zoo ? buildZooModel(row.model.slice(4)) : importTflite(new Uint8Array(readFileSync(join(ORACLE_MODELS, `${row.model}.tflite`))));
      const a = arenaOf(model, CORTEX_M);
      expect(a.plannedBytes).toBe(row.m7.nonpersistent_used_bytes);
      expect(a.persistentBytes).toBe(row.m7.persistent_used_bytes);
      expect(a.totalBytes).toBe(row.m7.arena_used_bytes);
      const h = arenaOf(model, HOST64);
      expect(h.persistentBytes).toBe(row.host.persistent_used_bytes);
      expect(h.totalBytes).toBe(row.host.arena_used_bytes);
    });
  }
});
