// Regenerates the figure tables of the docs from the CLI (`npm run docs:tables`): each table sits
// between `<!-- table:NAME -->` and `<!-- /table:NAME -->` in its page and is rewritten from the
// `--json` of the commands named in its caption, so no figure in those tables is typed by hand.
// `--check` exits 1 when a page differs from what the commands print now (nothing written);
// `--only NAME,...` limits the run. Models from other projects come from the oracle folder
// ($MCUSIM_DATA, default ../shared/oracle); a table whose model is absent says so in its rows.
// Run from the project root after `npm run build`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
const ORACLE = process.env['MCUSIM_DATA'] ?? resolve(ROOT, '..', 'shared', 'oracle');
const TMP = mkdtempSync(join(tmpdir(), 'mcusim-doc-tables-'));

interface Arena { readonly runtime: string; readonly kernels: string; readonly plannedBytes: number; readonly persistentBytes: number; readonly totalBytes: number; readonly declareBytes: number }
interface OptimizeJson { readonly before: { readonly peakBytes: number; readonly arena: Arena }; readonly after: { readonly peakBytes: number; readonly arena: Arena }; readonly written: boolean }

/** `mcusim ARGS --json -q`, parsed; a failing command gives its stderr's first line. */
function cli<T>(args: readonly string[]): { readonly ok: true; readonly doc: T } | { readonly ok: false; readonly error: string } {
  try {
    return { ok: true, doc: JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json', '-q'], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] })) as T };
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string };
    try {
      // optimize prints its JSON and exits 1 when it refuses to write (written: false).
      return { ok: true, doc: JSON.parse(err.stdout ?? '') as T };
    } catch {
      return { ok: false, error: (err.stderr ?? String(e)).split('\n')[0]?.replace(/^(E_[A-Z_]+): .*$/, '$1') ?? 'failed' };
    }
  }
}

const n = (b: number): string => b.toLocaleString('en-US');
const pct = (after: number, before: number): string => `${after <= before ? '-' : '+'}${(Math.abs(after - before) / before * 100).toFixed(1)}%`;

/** A model argument: `zoo:NAME`, or a file of the oracle folder (null when absent). */
function model(spec: string): string | null {
  if (spec.startsWith('zoo:')) return spec;
  const p = join(ORACLE, spec);
  return existsSync(p) ? p : null;
}
const label = (spec: string): string => (spec.startsWith('zoo:') ? spec : spec.replace(/^.*\//, '').replace(/\.tflite$/, ''));

let fileNo = 0;
function optimize(spec: string, passes: string, flags: readonly string[]): { readonly file: string; readonly r: ReturnType<typeof cli<OptimizeJson>> } {
  const m = model(spec);
  const file = join(TMP, `f${fileNo++}.tflite`);
  if (m === null) return { file, r: { ok: false, error: `no ${spec} in ${ORACLE}` } };
  return { file, r: cli<OptimizeJson>(['optimize', m, '--passes', passes, '-o', file, '--jobs', '1', ...flags]) };
}

const CMSIS = ['--kernels', 'cmsis-nn', '--cpu', 'cortex-m7'];

/** Whole models the DMO-per-library table covers (the oracle's and the zoo's). */
const WHOLE_MODELS = [
  'models/hello_world_int8.tflite', 'models/micro_speech_quantized.tflite', 'models/mobilenet_v2_quantized_1x3x224x224.tflite', 'models/person_detect.tflite', 'models/simple_add_model.tflite',
  'models-real/mcunet_detection.tflite', 'models-real/mcunet_lenet300.tflite', 'models-real/mlperf_ic_resnet8.tflite', 'models-real/mlperf_kws_dscnn.tflite', 'models-real/mlperf_v01_aww_uint8in.tflite', 'models-real/mlperf_vww_96.tflite',
  'models-real/mltk_kws_mobilenetv2.tflite', 'models-real/nanou_int8_seg.tflite',
  'zoo:cifar10-cnn', 'zoo:ds-cnn-kws', 'zoo:mobilenet-v1-0.25-128', 'zoo:mobilenet-v2-0.35-224', 'zoo:tiny-unet', 'zoo:mlperf-vww', 'zoo:mlperf-ic',
];

function dmoCell(spec: string, flags: readonly string[]): string {
  const { r } = optimize(spec, 'dmo', flags);
  if (!r.ok) return r.error;
  const { before, after } = r.doc;
  if (after.peakBytes >= before.peakBytes) return `${n(before.peakBytes)} (nothing safe)`;
  return `${n(before.peakBytes)} -> ${n(after.peakBytes)} (${pct(after.peakBytes, before.peakBytes)}); whole ${n(before.arena.totalBytes)} -> ${n(after.arena.totalBytes)}`;
}

function dmoPerLibrary(): string {
  const rows = WHOLE_MODELS.map((m) => `| ${label(m)} | ${dmoCell(m, [])} | ${dmoCell(m, CMSIS)} |`);
  return ['| model | reference | cmsis-nn (cortex-m7) |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The written file's whole arena on the TFLM + CMSIS-NN Cortex-M7 build (what `inspect FILE --kernels cmsis-nn` reads). */
function writtenOnCmsis(spec: string, passes: string, scoring: readonly string[]): string {
  const { file, r } = optimize(spec, passes, scoring);
  if (!r.ok) return r.error;
  if (!r.doc.written) return 'larger: not written';
  const i = cli<{ arena: Arena }>(['inspect', file, '--runtime', 'tflm', ...CMSIS]);
  return i.ok ? n(i.doc.arena.totalBytes) : `${i.error} (the plan breaks there)`;
}

function passesByLibrary(): string {
  const models = ['zoo:tiny-unet', 'models-real/mcunet_detection.tflite', 'models-real/mltk_kws_mobilenetv2.tflite', 'models-real/mlperf_vww_96.tflite'];
  const rows = models.map((m) => {
    const path = model(m);
    const orig = path === null ? null : cli<{ arena: Arena }>(['inspect', path, '--runtime', 'tflm', ...CMSIS]);
    const cells = ['tiling', 'tinyseg', 'auto'].map((p) => `${writtenOnCmsis(m, p, [])} / ${writtenOnCmsis(m, p, CMSIS)}`);
    return `| ${label(m)} | ${orig === null ? `no file in ${ORACLE}` : orig.ok ? n(orig.doc.arena.totalBytes) : orig.error} | ${cells.join(' | ')} |`;
  });
  return ['| model | original | tiling: ref-scored / cmsis-scored | tinyseg: ref / cmsis | auto: ref / cmsis |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** Each technique on a named model: planned arena, and the whole arena and size to declare on TFLM (reference kernels). */
function techniques(): string {
  const runs: readonly [string, string][] = [
    ['zoo:mobilenet-v1-1.0-224', 'dmo'], ['zoo:mobilenet-v2-0.35-224', 'dmo'], ['zoo:mobilenet-v2-1.0-224', 'dmo'], ['zoo:mobilenet-v1-0.25-128', 'dmo'],
    ['zoo:mlperf-vww', 'dmo'], ['zoo:cifar10-cnn', 'replacement'], ['zoo:cifar10-cnn', 'fdt'], ['zoo:cifar10-cnn', 'ffmt'],
    ['zoo:mobilenet-v2-0.35-224', 'fdt'], ['zoo:mobilenet-v2-0.35-224', 'ffmt'], ['zoo:ds-cnn-kws', 'tiling'], ['zoo:tiny-unet', 'tinyseg'], ['zoo:tiny-unet', 'auto'],
  ];
  const rows = runs.map(([m, p]) => {
    const { r } = optimize(m, p, []);
    if (!r.ok) return `| ${m} | ${p} | ${r.error} | | |`;
    const { before, after } = r.doc;
    return `| ${m} | ${p} | ${n(before.peakBytes)} -> ${n(after.peakBytes)} (${pct(after.peakBytes, before.peakBytes)}) | ${n(before.arena.totalBytes)} -> ${n(after.arena.totalBytes)} | ${n(after.arena.declareBytes)} |`;
  });
  return ['| model | passes | planned arena, B | whole arena on TFLM (cortex-m, reference), B | declare `tensor_arena[N]` |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

interface RecordedTflm {
  readonly files: readonly { readonly id: string; readonly optimize?: readonly string[]; readonly mcusimOps: Readonly<Record<string, number>> }[];
  readonly runs: readonly { readonly id: string; readonly build: string; readonly file: string; readonly storage?: string; readonly arenaUsedBytes: number; readonly original?: { readonly arenaUsedBytes: number } }[];
}

/** The real-TFLM runs recorded in testdata/real-builds/tflm (their replay checks mcusim gives the same figures). */
function realTflmRuns(): string {
  const d = JSON.parse(readFileSync(join(ROOT, 'testdata', 'real-builds', 'tflm', 'runs.json'), 'utf8')) as RecordedTflm;
  const rows = d.runs.map((r) => {
    const f = d.files.find((x) => x.id === r.file);
    const args = f?.optimize;
    const command = args === undefined ? `${r.file} (optimizeWithReport)` : args.filter((a) => a !== '-o' && a !== 'OUT.tflite').join(' ').replace(/^optimize /, '').replace('$ORACLE/', '');
    const ops = f === undefined ? '?' : Object.entries(f.mcusimOps).map(([k, v]) => `${v} ${k}`).join(', ') || 'none';
    return `| ${r.id} | \`${command}\`${r.storage !== undefined ? `, ${r.storage} storage` : ''} | ${r.build} | ${ops} | ${n(r.arenaUsedBytes)} | ${r.original === undefined ? '-' : n(r.original.arenaUsedBytes)} |`;
  });
  return ['| run | file: `optimize ...` | build | mcusim ops | arena_used_bytes (= `inspect --runtime tflm`) | original on that build |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

interface Table5Json { readonly rows: readonly { readonly label: string; readonly peakBytes: number; readonly ms: Readonly<Record<string, number | null>>; readonly paperMs: Readonly<Record<string, number | null>> }[] }

/** TinySeg Table 5 on zoo:tiny-unet: `latency zoo:tiny-unet --table --paper`, got / paper per storage. */
function tinysegTable5(): string {
  const r = cli<Table5Json>(['latency', 'zoo:tiny-unet', '--table', '--paper']);
  if (!r.ok) return `| ${r.error} | | | | |`;
  const cell = (got: number | null | undefined, paper: number | null | undefined): string =>
    got === null || got === undefined || paper === null || paper === undefined ? 'N/A' : `${got.toFixed(1)} / ${paper} (${got >= paper ? '+' : '-'}${(Math.abs(got - paper) / paper * 100).toFixed(1)}%)`;
  const rows = r.doc.rows.map((x) => `| ${x.label} | ${n(x.peakBytes)} | ${['internal', 'external', 'remote'].map((s) => cell(x.ms[s], x.paperMs[s])).join(' | ')} |`);
  return ['| step | peak B | Internal ms | External ms | Remote ms |', '| --- | ---: | ---: | ---: | ---: |', ...rows].join('\n');
}

interface SweepJson { readonly rows: readonly { readonly requestedPercent: number; readonly spilledChannels: number; readonly victimChannels: number; readonly actualPercent: number; readonly spilledBytes: number; readonly peakBytes: number; readonly latencyMs: number; readonly breakdown: Readonly<Record<string, number>>; readonly sameAsPercent: number | null }[] }

/** The partial-spilling sweep on zoo:tiny-unet, synchronous and asynchronous erase: `sweep zoo:tiny-unet --steps 10 [--async-erase]`. */
function spillSweep(): string {
  const sync = cli<SweepJson>(['sweep', 'zoo:tiny-unet', '--steps', '10']);
  const async = cli<SweepJson>(['sweep', 'zoo:tiny-unet', '--steps', '10', '--async-erase']);
  if (!sync.ok || !async.ok) return `| ${sync.ok ? '' : sync.error} ${async.ok ? '' : async.error} | | | | | | | |`;
  const ms = (x: number | undefined): string => (x ?? 0).toFixed(1);
  const rows = sync.doc.rows.map((x, i) => {
    const split = x.spilledChannels === 0 ? 'none' : `${x.spilledChannels}/${x.victimChannels} ch (${x.actualPercent}%)`;
    const same = x.sameAsPercent === null ? '' : `same split as ${x.sameAsPercent}%`;
    return `| ${x.requestedPercent}% | ${split} | ${n(x.spilledBytes)} | ${n(x.peakBytes)} | ${ms(x.latencyMs)} | ${ms(x.breakdown['computeMs'])} | ${ms(x.breakdown['spillMs'])} | ${ms(x.breakdown['fetchMs'])} | ${ms(async.doc.rows[i]?.latencyMs)} | ${same} |`;
  });
  return ['| spill | split | spilled B | peak B | latency ms | compute | spill | fetch | with `--async-erase` ms | note |', '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |', ...rows].join('\n');
}

interface ValidationJson {
  readonly cells: readonly { readonly round: string; readonly board: string | null; readonly engine: string; readonly engineName: string; readonly bench: string; readonly gated: boolean; readonly error: number | null }[];
  readonly summary: { readonly gatedCells: number; readonly mae: number; readonly worst: number; readonly loboMae: number; readonly loboWorst: number; readonly helium: { readonly cells: number; readonly mae: number; readonly worst: number } | null };
  readonly instructions: readonly { readonly dir: string; readonly board: string; readonly summary: { readonly models: number; readonly bigOps: number; readonly within10: number; readonly within5: number; readonly totalsWithin3: number; readonly worstInvokeError: number } }[];
}
let validation: ReturnType<typeof cli<ValidationJson>> | null = null;
/** `latency --validate` once for both tables (the packaged cells; the recorded instruction sets of the oracle folder). */
const validate = (): ReturnType<typeof cli<ValidationJson>> => (validation ??= cli<ValidationJson>(['latency', '--validate']));
const signed = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);

/** Instructions predicted against the recorded builds (`latency --validate`, needs instructions-m7/ and -m55/ in the oracle folder). */
function instructionSets(): string {
  const r = validate();
  if (!r.ok) return `| ${r.error} | | | | | |`;
  const rows = r.doc.instructions.map((x) => { const u = x.summary; return `| ${x.dir.replace(/^.*\//, '')} (${x.board}) | ${u.models} | ${n(u.bigOps)} | ${n(u.within10)} | ${n(u.within5)} | ${u.totalsWithin3} / ${u.models} (worst ${(u.worstInvokeError * 100).toFixed(2)}%) |`; });
  if (rows.length === 0) rows.push(`| no instructions-m7/ or instructions-m55/ in ${ORACLE} | | | | | |`);
  return ['| set (board) | models | ops >= 10k instructions | within 10% | within 5% | Invoke totals within 3% |', '| --- | ---: | ---: | ---: | ---: | ---: |', ...rows].join('\n');
}

/** Error per MLPerf Tiny cell, board x engine x round, and the gated summary (`latency --validate`). */
function mlperfValidation(): string {
  const r = validate();
  if (!r.ok) return `| ${r.error} | | | | |`;
  const groups = new Map<string, Map<string, number | null>>();
  for (const c of r.doc.cells) {
    const key = `${c.board ?? '?'} (${c.engine}, ${c.round}${c.gated ? '' : ', not gated'})`;
    if (!groups.has(key)) groups.set(key, new Map());
    groups.get(key)?.set(c.bench, c.error);
  }
  const rows = [...groups].map(([k, m]) => `| ${k} | ${['kws', 'vww', 'ic', 'ad'].map((b) => signed(m.get(b) ?? null)).join(' | ')} |`);
  const u = r.doc.summary;
  return ['| board (engine, round) | KWS | VWW | IC | AD |', '| --- | ---: | ---: | ---: | ---: |', ...rows, '',
    `${u.gatedCells} gated cells: mean absolute error **${(u.mae * 100).toFixed(1)}%**, worst **${(u.worst * 100).toFixed(1)}%**; leave-one-board-out (the constant refitted without the predicted board): mean **${(u.loboMae * 100).toFixed(1)}%**, worst ${(u.loboWorst * 100).toFixed(1)}%.` +
      (u.helium === null ? '' : ` Helium, reported apart (nothing fitted on it): ${u.helium.cells} cells, mean **${(u.helium.mae * 100).toFixed(1)}%**, worst ${(u.helium.worst * 100).toFixed(1)}%.`)].join('\n');
}

const TABLES: Readonly<Record<string, { readonly page: string; readonly make: () => string }>> = {
  'dmo-per-library': { page: 'docs/cmsis-nn.md', make: dmoPerLibrary },
  'passes-by-library': { page: 'docs/cmsis-nn.md', make: passesByLibrary },
  techniques: { page: 'docs/optimizations.md', make: techniques },
  'real-tflm-runs': { page: 'docs/deploy-tflm.md', make: realTflmRuns },
  'tinyseg-table5': { page: 'docs/optimizations.md', make: tinysegTable5 },
  'spill-sweep': { page: 'docs/optimizations.md', make: spillSweep },
  'instruction-sets': { page: 'docs/latency.md', make: instructionSets },
  'mlperf-validation': { page: 'docs/latency.md', make: mlperfValidation },
};

function replaceTable(text: string, name: string, table: string, page: string): string {
  const open = `<!-- table:${name} -->`;
  const close = `<!-- /table:${name} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a < 0 || b < a) throw new Error(`${page}: no ${open} ... ${close} markers`);
  return `${text.slice(0, a + open.length)}\n${table}\n${text.slice(b)}`;
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const onlyAt = args.indexOf('--only');
const only = onlyAt < 0 ? Object.keys(TABLES) : (args[onlyAt + 1] ?? '').split(',');
let stale = 0;
try {
  for (const name of only) {
    const t = TABLES[name];
    if (t === undefined) throw new Error(`unknown table '${name}'; known: ${Object.keys(TABLES).join(', ')}`);
    const path = join(ROOT, t.page);
    process.stderr.write(`${name} (${t.page})...\n`);
    const table = t.make();
    const before = readFileSync(path, 'utf8');
    const after = replaceTable(before, name, table, t.page);
    if (after === before) continue;
    stale++;
    if (check) process.stderr.write(`${t.page}: table ${name} differs from what the commands print now\n`);
    else writeFileSync(path, after);
  }
} finally {
  rmSync(TMP, { recursive: true, force: true });
}
process.stderr.write(check ? `${stale} stale table(s)\n` : `${stale} table(s) rewritten\n`);
process.exit(check && stale > 0 ? 1 : 0);
