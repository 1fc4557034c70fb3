// `mcusim overlap --op KIND --input NxHxWxC [...] [--method ...] [--element-bytes N] [--json]
// [--svg FILE] [--kernels L [--cpu C]]`: builds a one-op int8 graph and prints its safe overlap O_s by
// the DMO paper's three methods (§III-B/C/D); --svg draws the op's memory trace (output left, input
// right). With --kernels cmsis-nn, O_s is that library's access order's, the reference kernels'
// beside it (the analytic closed forms are the reference order's: given for the reference only
// when the library runs its own spec for the op).
import type { Command } from 'commander';
import type { BuiltinKind, Graph, Padding } from '../../ir/index.ts';
import { UsageError, elementCount } from '../../ir/index.ts';
import { KERNELS, REFERENCE_KERNELS, countMacs } from '../../kernels/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import type { OverlapMethod, SingleOpSpec } from '../../optimizer/index.ts';
import { OVERLAP_METHODS, analyticApplies, buildSingleOpGraph, renderOpTraceSvg, safeOverlapReport } from '../../optimizer/index.ts';
import { addQuietOption, checkOutputFile, refuseFlag } from '../cli-options.ts';
import { renderTable } from '../format.ts';
import { writeOutputFile } from '../output-file.ts';
import { phaseProgress } from '../progress.ts';
import { addKernelOptions, kernelsJson, resolveKernels } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface OverlapCliOptions extends KernelCliOptions {
  readonly op: string;
  readonly input: string;
  readonly filter?: string;
  readonly outChannels?: string;
  readonly stride?: string;
  readonly dilation?: string;
  readonly padding?: string;
  readonly depthMultiplier?: string;
  readonly method: string;
  readonly elementBytes?: string;
  readonly json?: boolean;
  readonly svg?: string;
  readonly quiet?: boolean;
}

/**
 * Traced accesses above which the trace and algorithmic methods take a second or more (about a
 * second for a 3.6 M MAC depthwiseConv2d): overlap then announces each method on stderr.
 */
const PHASES_ABOVE_ACCESSES = 1_000_000;

/** Rough count of the op's arena accesses: its MACs plus every activation element it reads or writes. */
function tracedAccesses(graph: Graph): number {
  const op = graph.ops[0];
  if (op === undefined) return 0;
  const elements = [...op.inputs, ...op.outputs].reduce((n, i) => {
    const t = graph.tensors[i];
    return t === undefined || t.data !== null ? n : n + elementCount(t.shape);
  }, 0);
  return countMacs(op, graph) + elements;
}

function positive(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${what} must be a positive integer, got '${text}'`);
  return n;
}

function dims(text: string, what: string): number[] {
  return text.split(/[xX]/).map((p) => positive(p, what));
}

/** "S" or "AxB" as a pair. */
function pair(text: string | undefined, what: string): readonly [number, number] | undefined {
  if (text === undefined) return undefined;
  const d = dims(text, what);
  if (d.length === 1) return [d[0] as number, d[0] as number];
  if (d.length === 2) return [d[0] as number, d[1] as number];
  throw new UsageError(`${what} must be N or HxW, got '${text}'`);
}

const WINDOWED = ['conv2d', 'depthwiseConv2d', 'maxPool2d', 'averagePool2d', 'transposeConv'];

/** The op kinds each shape flag describes (buildSingleOpGraph reads it for these only). */
const FLAG_KINDS: readonly (readonly [string, keyof OverlapCliOptions, readonly string[]])[] = [
  ['--filter', 'filter', [...WINDOWED, 'svdf']],
  ['--stride', 'stride', WINDOWED],
  ['--padding', 'padding', WINDOWED],
  ['--dilation', 'dilation', ['conv2d', 'depthwiseConv2d']],
  ['--out-channels', 'outChannels', ['conv2d', 'transposeConv', 'fullyConnected', 'svdf', 'unidirectionalSequenceLstm']],
  ['--depth-multiplier', 'depthMultiplier', ['depthwiseConv2d']],
];

/** A shape flag the op does not have is a usage error, not silently dropped. */
function checkShapeFlags(opts: OverlapCliOptions): void {
  for (const [flag, key, kinds] of FLAG_KINDS) {
    if (opts[key] !== undefined && !kinds.includes(opts.op)) refuseFlag(flag, `${opts.op} has no such parameter (it applies to ${kinds.join(', ')})`);
  }
}

function methodsOf(text: string): OverlapMethod[] {
  if (text === 'all') return [...OVERLAP_METHODS];
  if ((OVERLAP_METHODS as readonly string[]).includes(text)) return [text as OverlapMethod];
  throw new UsageError(`--method must be trace, algorithmic, analytic or all, got '${text}'`);
}

export function runOverlap(opts: OverlapCliOptions): number {
  if (!Object.hasOwn(KERNELS, opts.op)) throw new UsageError(`--op '${opts.op}' is not a kernel kind (${Object.keys(KERNELS).join(', ')})`);
  checkShapeFlags(opts);
  checkOutputFile(opts.svg, '--svg');
  const padding = opts.padding ?? 'same';
  if (padding !== 'same' && padding !== 'valid') throw new UsageError(`--padding must be same or valid, got '${padding}'`);
  const methods = methodsOf(opts.method);
  const elementBytes = opts.elementBytes === undefined ? undefined : positive(opts.elementBytes, '--element-bytes');
  const registry = resolveKernels(opts);
  const graph = buildSingleOpGraph(specOf(opts, padding));
  const op = graph.ops[0];
  const own = op !== undefined && !analyticApplies(op, registry);
  if (own && opts.method === 'analytic') throw new UsageError(`the analytic O_s is derived for the reference kernels' order, and ${registry.library} runs its own ${opts.op}: use trace or algorithmic`);
  const libMethods = own ? methods.filter((m) => m !== 'analytic') : methods;
  const progress = phaseProgress('overlap', { show: tracedAccesses(graph) > PHASES_ABOVE_ACCESSES, quiet: opts.quiet === true });
  const opText = `${opts.op} ${opts.input}`;
  const measure = (r: KernelRegistry, ms: readonly OverlapMethod[], label: string): Measured => {
    const timings: Record<string, number> = {};
    const os: Record<string, number> = {};
    let report = safeOverlapReport(graph, 0, { methods: [], registry: r, ...(elementBytes !== undefined ? { elementBytes } : {}) });
    for (const m of ms) {
      progress.phase(`${m} O_s of ${opText}${label}`);
      const t0 = performance.now();
      report = safeOverlapReport(graph, 0, { methods: [m], registry: r, ...(elementBytes !== undefined ? { elementBytes } : {}) });
      timings[m] = performance.now() - t0;
      os[m] = report.os[m] as number;
    }
    return { inputBytes: report.inputBytes, outputBytes: report.outputBytes, os, timings };
  };
  const lib = measure(registry, libMethods, registry === REFERENCE_KERNELS ? '' : ` (${registry.library})`);
  const ref = registry === REFERENCE_KERNELS ? null : measure(REFERENCE_KERNELS, methods, ' (reference)');
  if (opts.svg !== undefined) {
    progress.phase(`tracing ${opText} again for the plot ${opts.svg}`);
    writeOutputFile(opts.svg, renderOpTraceSvg(graph, 0, lib.os, registry, `${opts.op} ${opts.input}`));
  }
  const out = { ...kernelsJson(registry), inputBytes: lib.inputBytes, outputBytes: lib.outputBytes, os: lib.os, ...(ref === null ? {} : { referenceOs: ref.os }) };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  }
  const shapeOf = (t: number | undefined): string => graph.tensors[t ?? -1]?.shape.join('x') ?? '?';
  const pct = (v: number | undefined): string => (v === undefined ? '-' : `${(100 * v / Math.max(1, out.outputBytes)).toFixed(2)}%`);
  const rows = ref === null
    ? methods.map((m) => [m, lib.os[m] ?? 0, pct(lib.os[m]), `${(lib.timings[m] ?? 0).toFixed(1)} ms`])
    : methods.map((m) => [m, lib.os[m] ?? '-', pct(lib.os[m]), ref.os[m] ?? 0, pct(ref.os[m])]);
  const header = ref === null ? ['method', 'O_s bytes', 'of output', 'time'] : ['method', `O_s ${registry.library} (${registry.cpu ?? ''})`, 'of output', 'O_s reference', 'of output'];
  const same = ref !== null && !own ? ` (${registry.library} runs the reference kernel for ${opts.op})` : '';
  process.stdout.write(
    `${opts.op}: input ${shapeOf(graph.inputs[0])} (${out.inputBytes} B), output ${shapeOf(op?.outputs[0])} (${out.outputBytes} B)` +
      `${elementBytes !== undefined ? `, ${elementBytes} B per element` : ''}; kernels ${registry.library}${same}\n` +
      `${renderTable(header, rows)}\n`,
  );
  return 0;
}

interface Measured {
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly os: Record<string, number>;
  readonly timings: Record<string, number>;
}

function specOf(opts: OverlapCliOptions, padding: Padding): SingleOpSpec {
  const filter = pair(opts.filter, '--filter');
  const stride = pair(opts.stride, '--stride');
  const dilation = pair(opts.dilation, '--dilation');
  return {
    kind: opts.op as BuiltinKind,
    input: dims(opts.input, '--input'),
    padding,
    ...(filter ? { filter } : {}),
    ...(stride ? { stride } : {}),
    ...(dilation ? { dilation } : {}),
    ...(opts.outChannels !== undefined ? { outChannels: positive(opts.outChannels, '--out-channels') } : {}),
    ...(opts.depthMultiplier !== undefined ? { depthMultiplier: positive(opts.depthMultiplier, '--depth-multiplier') } : {}),
  };
}

export function registerOverlap(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('overlap')
    .description('safe input/output overlap O_s of one op (DMO): trace, algorithmic (minR/maxW) and analytic')
    .requiredOption('--op <kind>', 'op kind, e.g. depthwiseConv2d, conv2d, maxPool2d, fullyConnected')
    .requiredOption('--input <NxHxWxC>', 'input shape')
    .option('--filter <KHxKW>', 'filter / pool window (default 3x3)')
    .option('--out-channels <n>', 'output channels (conv2d, transposeConv, fullyConnected)')
    .option('--stride <S|SHxSW>', 'stride (default 1)')
    .option('--dilation <D|DHxDW>', 'dilation (default 1)')
    .option('--padding <same|valid>', 'padding (default same)')
    .option('--depth-multiplier <m>', 'depthwise multiplier (default 1)')
    .option('--method <name>', 'trace, algorithmic, analytic or all', 'all')
    .option('--element-bytes <n>', 'bytes per element (e.g. 4 for float32, as the paper\'s Table II)')
    .option('--json', 'print one JSON document')
    .option('--svg <file>', 'write the op\'s memory trace plot');
  addQuietOption(addKernelOptions(cmd))
    .action((opts: OverlapCliOptions) => setExit(runOverlap(opts)));
}
