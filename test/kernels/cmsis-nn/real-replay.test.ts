// mcusim's cmsis-nn specs against what ARM's real CMSIS-NN 4ab83cc3 did, as recorded once under QEMU
// (testdata/real-builds/cmsis-nn/, README there: M7 DSP, M55 MVE, M3 plain C). Every recorded case is
// replayed: the spec's prepare must still give the cmsis_nn parameters the library was handed, the
// spec run on the recorded arena must leave the bytes the library left (outputs when apart, the
// whole arena when the output overlapped an input: same clobbers = same access order), and its
// buffer sizes must be the library's *_get_buffer_size results. A case missing from a CPU's results
// must be one its spec refuses. Control: the reference kernels' order on the same overlaps differs.
import { describe, expect, it } from 'vitest';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { checkConstraints, kernelRegistry, makeOpContext } from '../../../src/kernels/index.ts';
import { CONV_PATH, DW_PATH } from '../../../src/kernels/specs/cmsis-nn/conv-family.ts';
import type { RealKind } from './real-cases.ts';
import { realCase, runSpecOnArena } from './real-cases.ts';
import type { CaseJson, ResultJson } from './recorded.ts';
import { arenaAfter, graphFromJson, placementFromJson, readJsonl } from './recorded.ts';

/** A CPU the library was recorded on, and the code paths its cases must cover (more than 2 cases each). */
interface Target {
  readonly cpu: 'cortex-m7' | 'cortex-m55' | 'cortex-m3';
  readonly feature: 'DSP' | 'MVE' | 'plain C';
  readonly paths: Readonly<Partial<Record<RealKind, readonly string[]>>>;
}
const TARGETS: readonly Target[] = [
  {
    cpu: 'cortex-m7', feature: 'DSP',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', 'im2col via arm_convolve_1_x_n_s8'],
      depthwiseConv2d: ['3x3', 'opt (DSP)', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
  {
    cpu: 'cortex-m55', feature: 'MVE',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', '1xN MVE'],
      depthwiseConv2d: ['opt MVE', 'as conv', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
  {
    cpu: 'cortex-m3', feature: 'plain C',
    paths: {
      conv2d: ['1x1 fast', '1x1 strided', 'im2col (arm_convolve_s8)', 'im2col via arm_convolve_1_x_n_s8'],
      depthwiseConv2d: ['3x3', 'mult 4', 'generic'],
      transposeConv: ['row buffer (arm_transpose_conv_s8)', 'reverse conv'],
    },
  },
];
const KINDS: readonly RealKind[] = ['conv2d', 'depthwiseConv2d', 'transposeConv', 'fullyConnected', 'averagePool2d', 'maxPool2d', 'add', 'mul', 'softmax'];
const CONV_NAMES: Record<number, string> = { [CONV_PATH.im2col]: 'im2col (arm_convolve_s8)', [CONV_PATH.ntAllRows]: '1x1 fast', [CONV_PATH.ntPerRow]: '1x1 strided', [CONV_PATH.oneByNMve]: '1xN MVE' };
const DW_NAMES: Record<number, string> = { [DW_PATH.generic]: 'generic', [DW_PATH.threeByThree]: '3x3', [DW_PATH.optDsp]: 'opt (DSP)', [DW_PATH.mult4]: 'mult 4', [DW_PATH.optMve]: 'opt MVE', [DW_PATH.toConv]: 'as conv' };

/** The CMSIS-NN function the spec's prepare picked for this case. */
function pathName(kind: RealKind, p: ReturnType<KernelSpec['prepare']>, feature: string): string {
  const s = p.scalars;
  if (kind === 'conv2d') {
    const name = CONV_NAMES[p.flags?.path ?? -1] ?? '?';
    // arm_convolve_wrapper_s8 sends 1xN shapes to arm_convolve_1_x_n_s8 (= arm_convolve_s8 off MVE).
    const oneByN = s.inH === 1 && s.dilW === 1 && s.fH === 1 && (s.strideW! * s.inD!) % 4 === 0 && p.flags?.path === CONV_PATH.im2col;
    return oneByN ? 'im2col via arm_convolve_1_x_n_s8' : name;
  }
  if (kind === 'depthwiseConv2d') return DW_NAMES[p.flags?.path ?? -1] ?? '?';
  if (kind === 'transposeConv') return s.bufSize !== undefined ? 'row buffer (arm_transpose_conv_s8)' : 'reverse conv';
  return feature;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const firstDiffs = (real: Uint8Array, spec: Uint8Array): string =>
  [...real].map((b, k) => (b !== spec[k] ? `${k} (real ${b}, spec ${spec[k]})` : '')).filter((x) => x).slice(0, 8).join(', ');

const CASES = new Map(readJsonl<CaseJson>('cases.jsonl').map((c) => [c.id, c]));
const REFERENCE = kernelRegistry('reference');

describe.each(TARGETS)('recorded real CMSIS-NN 4ab83cc3 replayed on the cmsis-nn specs: $cpu ($feature)', (t) => {
  const registry = kernelRegistry('cmsis-nn', t.cpu);
  const results = readJsonl<ResultJson>(`results-${t.cpu}.jsonl`);

  it('every recorded case is replayed, or refused by the spec', () => {
    const ran = new Set(results.map((r) => r.case));
    const missing = [...CASES.values()].filter((c) => !ran.has(c.id));
    for (const c of missing) {
      const refused = checkConstraints(registry.specs[c.kind as RealKind] as KernelSpec, makeOpContext(graphFromJson(c.graph, c.kind), 0));
      expect(refused.length, `case ${c.id} (${c.kind}) has no ${t.cpu} result and the spec accepts it`).toBeGreaterThan(0);
    }
    expect(results.length + missing.length).toBe(CASES.size);
  });

  it.each(KINDS)('%s: parameters, outputs, buffer sizes and overlapped arenas as the library left them, on every path', (kind) => {
    const spec = registry.specs[kind] as KernelSpec;
    const failures: string[] = [];
    const casesPerPath = new Map<string, number>();
    let runs = 0;
    let control = 0;
    for (const res of results.filter((r) => r.kind === kind)) {
      const c = CASES.get(res.case);
      if (c === undefined) throw new Error(`results-${t.cpu}.jsonl names case ${res.case}, absent from cases.jsonl`);
      const graph = graphFromJson(c.graph, `${kind}-real`);
      const issues = checkConstraints(spec, makeOpContext(graph, 0));
      const where = `${kind} case ${c.id}`;
      if (issues.length > 0) {
        failures.push(`${where}: the spec now refuses a case the library ran (${issues.map((i) => i.message).join('; ')})`);
        continue;
      }
      const rc = realCase(kind, spec, graph, (p) => pathName(kind, p, t.feature));
      casesPerPath.set(rc.path, (casesPerPath.get(rc.path) ?? 0) + 1);
      const harness = { params: rc.params, mult: [...rc.mult], shift: [...rc.shift] };
      if (JSON.stringify(harness) !== JSON.stringify(c.harness)) failures.push(`${where}: the spec's prepare gives ${JSON.stringify(harness)}, the library was handed ${JSON.stringify(c.harness)}`);
      if (rc.path !== res.path) failures.push(`${where}: the spec takes path ${rc.path}, recorded on ${res.path}`);
      for (const run of res.runs) {
        runs++;
        const pl = placementFromJson(c.placements[run.placement]!);
        const real = arenaAfter(pl, run);
        const want = runSpecOnArena(rc, pl);
        const at = `${where} (${pl.name})`;
        if (run.status !== 0) failures.push(`${at}: the library returned status ${run.status}`);
        if (hex(real) !== hex(want)) failures.push(`${at}: ${pl.name === 'apart' ? 'outputs' : 'overlapped arena'} differ at bytes ${firstDiffs(real, want)}`);
        if (pl.name === 'apart') {
          if (JSON.stringify(run.buffers) !== JSON.stringify(rc.specBuffers)) failures.push(`${at}: buffers real ${JSON.stringify(run.buffers)} spec ${JSON.stringify(rc.specBuffers)}`);
        } else if (hex(runSpecOnArena({ ...rc, spec: REFERENCE.specs[kind] as KernelSpec }, pl)) !== hex(real)) {
          control++;
        }
      }
    }
    expect(failures.slice(0, 20).join('\n')).toBe('');
    expect(runs, `${kind}: recorded runs`).toBeGreaterThan(0);
    for (const path of t.paths[kind] ?? []) expect(casesPerPath.get(path) ?? 0, `${kind} / ${path} cases`).toBeGreaterThan(2);
    // Where CMSIS-NN's order differs from the reference kernels', some overlap must show it.
    if (kind === 'conv2d' || kind === 'depthwiseConv2d' || kind === 'transposeConv') expect(control, `${kind}: reference-order clobbers`).toBeGreaterThan(0);
  });
});
