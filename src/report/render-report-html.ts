// The report as one self-contained HTML page: inline CSS and inline SVG pictures, no script, no
// external font, image or link, so it reads the same offline. Sections: summary, plans before and
// after on one byte scale (peak step marked, live bytes per step beside each), buffer tables,
// per-op O_s, kernel libraries side by side, passes, latency with the two-core timeline, the spill
// sweep, verification.
// Every picture names its buffers in a table or on hover; long names are elided from the start.
import { formatBytes, renderPlanSvg, renderSpillSweepSvg } from '../optimizer/index.ts';
import { elideStart, escapeXml, renderTimelineSvg } from '../sim/index.ts';
import type { ArenaRow } from './arena-totals.ts';
import { arenaTotalsRows } from './arena-totals.ts';
import type { ModelSummary, ReportData, ReportLayout } from './collect-report.ts';
import type { LibraryColumn } from './kernel-libraries.ts';
import type { LatencyReport } from '../sim/index.ts';

/** The verification of the optimized model against the original, as the report states it. */
export interface ReportVerification {
  readonly seeds: number;
  readonly passed: boolean;
  readonly identical: boolean;
  readonly traceClean: boolean;
  readonly planError: string | null;
  readonly mismatches: number;
  readonly violations: number;
  /** Lines worth showing (first mismatches, violations, storage faults). */
  readonly details: readonly string[];
}

const esc = escapeXml;
const NAME_CHARS = 56;

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:0;background:#f4f5f7;color:#1d232b}
main{max-width:1120px;margin:0 auto;padding:16px 20px 48px;background:#fff}
h1{font-size:22px;margin:8px 0 4px;word-break:break-all}
h2{font-size:18px;margin:28px 0 8px;padding-top:8px;border-top:1px solid #dde1e6}
h3{font-size:15px;margin:18px 0 6px}
p,li{line-height:1.45}
.sub{color:#58606b;margin:0 0 12px}
nav a{margin-right:12px;color:#1f5fa8}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{border:1px solid #dde1e6;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.scroll{max-height:420px;overflow:auto;border:1px solid #dde1e6;display:inline-block;max-width:100%}
.scroll table{margin:0}
.pic{overflow-x:auto;margin:8px 0}
.pic svg{display:block;max-width:100%;height:auto}
.ok{color:#1b7f3b;font-weight:bold}
.bad{color:#b3261e;font-weight:bold}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid #dde1e6;border-radius:6px;padding:8px 12px;min-width:150px}
.card b{display:block;font-size:20px}
code{background:#f0f2f5;padding:0 3px;border-radius:3px}
details summary{cursor:pointer;color:#1f5fa8;margin:6px 0}
`;

function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[], numeric: readonly boolean[] = []): string {
  const head = `<tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric[i] ? ' class="n"' : ''}>${typeof c === 'number' ? c.toLocaleString('en-US') : c}</td>`).join('')}</tr>`).join('\n');
  return `<table>${head}\n${body}</table>`;
}

function scrollTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[], numeric: readonly boolean[] = [], id = ''): string {
  return `<div class="scroll"${id ? ` id="${id}"` : ''}>${table(headers, rows, numeric)}</div>`;
}

function card(label: string, value: string, note = ''): string {
  return `<div class="card">${esc(label)}<b>${esc(value)}</b>${note ? `<span class="sub">${esc(note)}</span>` : ''}</div>`;
}

function pct(before: number, after: number): string {
  return before > 0 ? `${(((after - before) / before) * 100).toFixed(1)}%` : '-';
}

/** A tensor name for a table cell: elided from the start, the full name on hover. */
function nameCell(name: string): string {
  return `<span title="${esc(name)}">${esc(elideStart(name, NAME_CHARS))}</span>`;
}

function summarySection(d: ReportData): string {
  const b = d.summary.before;
  const a = d.summary.after;
  const pb = d.layout.before.plan.peakBytes;
  const pa = d.layout.after.plan.peakBytes;
  const cards = [
    card('ops', `${b.ops} → ${a.ops}`),
    card('MACs', b.macs.toLocaleString('en-US'), a.macs === b.macs ? '' : `after: ${a.macs.toLocaleString('en-US')}`),
    card('weights (flash)', formatBytes(b.weightBytes), `model file ${formatBytes(b.flatbufferBytes)} → ${formatBytes(a.flatbufferBytes)}`),
    card('planned arena', `${formatBytes(pb)} → ${formatBytes(pa)}`, pct(pb, pa)),
    card(`latency (${d.target})`, `${d.latency.before.totalMs.toFixed(1)} → ${d.latency.after.totalMs.toFixed(1)} ms`),
  ].join('');
  const kindsOf = (s: ModelSummary): string => s.opKinds.map((k) => `${esc(k.kind)} × ${k.count}`).join(', ');
  const kinds = kindsOf(b) === kindsOf(a) ? kindsOf(b) : `${kindsOf(b)}; after ${esc(d.passes.join(','))}: ${kindsOf(a)}`;
  const arenaRows: ArenaRow[] = arenaTotalsRows(d.arena.before, d.arena.after, d.fit);
  return `<section id="summary"><h2>Model summary</h2>
<div class="cards">${cards}</div>
<p>Op kinds: ${kinds}. Tensors: ${b.tensors} → ${a.tensors}.</p>
<h3>Arena</h3>
${table(['', 'before', `after ${d.passes.join(',')}`], arenaRows.map((r) => [esc(r.label), esc(r.before), esc(r.after)]))}
<p class="sub">Planned arena = TFLM's greedy planner honouring the model's OfflineMemoryAllocation plan, as the board runs it. Persistent = TFLM's runtime structures on a Cortex-M build (mcusim's runtime once custom ops are used); total = planned + persistent, what <code>arena_used_bytes()</code> returns; the board fit compares the total (plus any RAM outside the arena) with the board's arena RAM region and the weights with its flash.</p>
</section>`;
}

function bufferRows(l: ReportLayout): (string | number)[][] {
  return l.requests.map((r, i) => [i, nameCell(r.name), r.tensor === null ? `scratch of op ${r.opIndex ?? '?'}` : `tensor ${r.tensor}`, r.sizeBytes, l.plan.offsets[i] ?? 0, r.firstStep, r.lastStep]);
}

function plansSection(d: ReportData): string {
  const scaleBytes = Math.max(d.layout.before.plan.peakBytes, d.layout.after.plan.peakBytes);
  const pic = (l: ReportLayout, when: string, prefix: string): string =>
    `<div class="pic" id="${prefix}plan">${renderPlanSvg(l.requests, l.plan, { title: `${d.modelLabel} ${when} (${l.source})`, scaleBytes, legend: false, idPrefix: prefix })}</div>`;
  const buffers = (l: ReportLayout, when: string): string =>
    `<details${l.requests.length <= 40 ? ' open' : ''}><summary>${when}: ${l.requests.length} buffers (number in the picture → name)</summary>${scrollTable(['#', 'name', 'what', 'size B', 'offset', 'first step', 'last step'], bufferRows(l), [true, false, false, true, true, true, true], `buffers-${when.toLowerCase()}`)}</details>`;
  return `<section id="plans"><h2>Arena plan before and after</h2>
<p class="sub">Address on x (both pictures on the same byte scale), step on y. Each rectangle is a buffer, numbered as in the tables below; hover for its name. The red band marks the step where the plan reaches its peak; the bars on the right are the live bytes per step.</p>
<h3>Before</h3>${pic(d.layout.before, 'before', 'before-')}${buffers(d.layout.before, 'Before')}
<h3>After <code>--passes ${esc(d.passes.join(','))}</code></h3>${pic(d.layout.after, `after --passes ${d.passes.join(',')}`, 'after-')}${buffers(d.layout.after, 'After')}
</section>`;
}

function overlapSection(d: ReportData): string {
  const v = (x: number | null): string => (x === null ? 'n/a' : x.toLocaleString('en-US'));
  const rows = d.overlaps.map((o) => [o.op, esc(o.kind), o.output, o.outputBytes, v(o.analyticBytes), v(o.algorithmicBytes),
    o.algorithmicBytes === null ? '' : `${((100 * o.algorithmicBytes) / Math.max(1, o.outputBytes)).toFixed(1)}%`, o.usable ? 'yes' : 'no']);
  const usable = d.overlaps.filter((o) => o.usable && (o.algorithmicBytes ?? o.analyticBytes ?? 0) > 0).length;
  return `<section id="overlap"><h2>Safe overlap O<sub>s</sub> per op</h2>
<p class="sub">Bytes of an op's input that may start below its output's end (DMO §III): the analytic lower bound and the exact algorithmic walk (minR/maxW). "DMO may use" = the op is the input's last reader, reads it once, and it is not a graph output. ${usable} of ${d.overlaps.length} ops can overlap.</p>
${scrollTable(['op', 'kind', 'output', 'output B', 'O_s analytic B', 'O_s algorithmic B', 'of output', 'DMO may use'], rows, [true, false, false, true, true, true, true, false])}
</section>`;
}

/** Reference and CMSIS-NN builds of the model as given, side by side (kernel-libraries.ts). */
function librariesSection(d: ReportData): string {
  const k = d.kernelLibraries;
  const cols = [k.reference, k.cmsisNn];
  const b = (n: number): string => `${n.toLocaleString('en-US')} B`;
  const row = (label: string, f: (c: LibraryColumn) => string): string[] => [esc(label), ...cols.map((c) => esc(f(c)))];
  const dmo = (c: LibraryColumn): string => {
    if (c.dmo === null) return `failed: ${c.dmoError ?? ''}`;
    const saved = c.dmo.totalBefore - c.dmo.totalAfter;
    return c.dmo.applied ? `${b(c.dmo.totalAfter)} (-${b(saved)}, ${pct(c.dmo.totalBefore, c.dmo.totalAfter)}); planned ${b(c.dmo.peakBefore)} → ${b(c.dmo.peakAfter)}` : 'no safe overlap lowers the arena';
  };
  const rows = [
    row('planned arena', (c) => b(c.arena.plannedBytes)),
    row('persistent', (c) => b(c.arena.persistentBytes)),
    row('total arena (arena_used_bytes)', (c) => b(c.arena.totalBytes)),
    row('scratch the kernels request', (c) => (c.scratch.buffers === 0 ? 'none' : `${b(c.scratch.bytes)} in ${c.scratch.buffers} buffer${c.scratch.buffers === 1 ? '' : 's'} (largest ${b(c.scratch.largestBytes)})`)),
    row('after the dmo pass (total arena)', dmo),
    row(`latency on ${d.target}`, (c) => `${c.latencyMs.toFixed(1)} ms`),
  ];
  const v = (x: number | null): string => (x === null ? 'n/a' : x.toLocaleString('en-US'));
  const diffs = k.osDifferences.length === 0
    ? `<p>O<sub>s</sub> is the same for both libraries on all ${k.opsCompared} ops.</p>`
    : `<p>${k.osDifferences.length} of ${k.opsCompared} ops have another O<sub>s</sub> with CMSIS-NN's access order:</p>${scrollTable(['op', 'kind', 'O_s reference B', `O_s ${k.cmsisNn.label} B`], k.osDifferences.map((o) => [o.op, esc(o.kind), v(o.referenceBytes), v(o.cmsisNnBytes)]), [true, false, true, true])}`;
  return `<section id="libraries"><h2>Kernel libraries</h2>
<p class="sub">The model as given, on a Cortex-M build linking TFLM's reference kernels and one linking CMSIS-NN (<code>inspect --kernels reference|cmsis-nn --arch cortex-m</code>). DMO plans with each library's own safe overlaps; a plan made for one library is unproven on the other (verify --kernels checks it). This report's passes plan for ${esc(d.cpu === null ? d.kernels : `${d.kernels} (${d.cpu})`)}.</p>
${table(['', esc(k.reference.label), esc(k.cmsisNn.label)], rows)}
${diffs}
</section>`;
}

function passesSection(d: ReportData): string {
  const items = d.passReports.map((r) => {
    const notes = r.notes.length ? `<ul>${r.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '<p class="sub">no notes</p>';
    return `<h3><code>${esc(r.pass)}</code>: ${r.applied ? 'applied' : 'not applied'}, peak ${formatBytes(r.peakBytesBefore)} → ${formatBytes(r.peakBytesAfter)} (${pct(r.peakBytesBefore, r.peakBytesAfter)})</h3>${notes}`;
  });
  return `<section id="passes"><h2>What each pass did and why</h2>${items.join('\n')}</section>`;
}

/** One horizontal bar per op: its share of the model's compute time on the board (issue 44 item 3). */
function layerBars(l: LatencyReport): string {
  const max = Math.max(1e-9, ...l.ops.map((o) => o.share));
  const rows = l.ops.filter((o) => o.cycles > 0).map((o) => {
    const w = ((o.share / max) * 100).toFixed(1);
    return `<tr><td class="num">${o.index}</td><td>${esc(o.kind)}</td><td><code>${esc(o.path)}</code></td><td class="num">${o.cycles}</td><td class="num">${o.ms.toFixed(3)}</td>`
      + `<td style="width:40%"><div style="background:#4a7bd0;height:0.9em;width:${w}%" title="${(o.share * 100).toFixed(1)}%"></div></td><td class="num">${(o.share * 100).toFixed(1)}%</td></tr>`;
  });
  return `<table><thead><tr><th>op</th><th>kind</th><th>kernel path</th><th>cycles</th><th>ms</th><th>share</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function latencySection(d: ReportData): string {
  const l = d.latency.after;
  const b = l.breakdown;
  const o = d.latency.before.breakdown;
  const row = (name: string, x: number, y: number): (string | number)[] => [name, x.toFixed(1), y.toFixed(1)];
  const breakdown = table(['', 'before ms', 'after ms'], [
    row('compute', o.computeMs, b.computeMs), row('spill', o.spillMs, b.spillMs), row('fetch', o.fetchMs, b.fetchMs),
    row('codec', o.codecMs, b.codecMs), row('stall', o.stallMs, b.stallMs), row('total', d.latency.before.totalMs, l.totalMs),
  ], [false, true, true]);
  const ops = l.ops.map((x) => [x.index, esc(x.kind), nameCell(x.name), x.macs, x.computeMs.toFixed(3), (x.spillMs + x.fetchMs + x.codecMs).toFixed(3), x.stallMs.toFixed(3), x.totalMs.toFixed(3)]);
  return `<section id="latency"><h2>Latency on ${esc(d.target)}</h2>
<p class="sub">${esc(l.library)} kernels, ${l.slots.length > 0 ? `${l.slots.length} spilled tensor${l.slots.length === 1 ? '' : 's'} on ${esc(l.storage)} flash, erased on the second core (TinySeg §5.2)` : 'no tensor spilled to storage (the second core stays idle)'}${l.calibration ? `; compute calibrated (${esc(l.calibration.source)})` : ''}.</p>
${breakdown}
<h3>Per-layer compute before the passes (${esc(d.latency.before.core.family)} ${d.latency.before.core.clockHz / 1e6} MHz, ${esc(d.latency.before.engine)} engine, constant ${d.latency.before.familyConstant.value.toFixed(3)}: ${esc(d.latency.before.familyConstant.source)})</h3>
${layerBars(d.latency.before)}
<h3>Two-core timeline (after)</h3><div class="pic">${renderTimelineSvg(l, { modelLabel: `${d.modelLabel} after ${d.passes.join(',')}` })}</div>
<details><summary>Per-op latency after the passes (${l.ops.length} ops)</summary>${scrollTable(['op', 'kind', 'output', 'MACs', 'compute ms', 'storage ms', 'stall ms', 'total ms'], ops, [true, false, false, true, true, true, true, true])}</details>
</section>`;
}

function sweepSection(d: ReportData): string {
  if (d.sweep === null) return '';
  return `<section id="sweep"><h2>Partial spilling sweep</h2>
<p class="sub">The tinyseg pass with a growing share of the victim tensor spilled (TinySeg Figure 14): peak memory against latency.</p>
<div class="pic">${renderSpillSweepSvg(d.sweep, { modelLabel: d.modelLabel })}</div></section>`;
}

function verificationSection(v: ReportVerification | null): string {
  if (v === null) return `<section id="verification"><h2>Verification</h2><p>Not run.</p></section>`;
  const verdict = v.passed ? '<span class="ok">VERIFIED</span>' : '<span class="bad">FAILED</span>';
  const details = v.details.length ? `<ul>${v.details.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '';
  return `<section id="verification"><h2>Verification</h2>
<p>${verdict}: the optimized model run at its own plan with the memory tracer on, against the original, on ${v.seeds} seeded random input${v.seeds === 1 ? '' : 's'}.</p>
${table(['check', 'result'], [
    ['every output byte identical', v.identical ? 'yes' : `no (${v.mismatches} differing outputs)`],
    ['trace clean (no clobber, no read of unwritten bytes)', v.traceClean ? 'yes' : `no (${v.violations} violations)`],
    ['static plan check', v.planError === null ? 'passed' : esc(v.planError)],
  ])}${details}</section>`;
}

export function renderReportHtml(d: ReportData, verification: ReportVerification | null): string {
  const sections = [summarySection(d), plansSection(d), overlapSection(d), librariesSection(d), passesSection(d), latencySection(d), sweepSection(d), verificationSection(verification)];
  const nav = [['summary', 'Summary'], ['plans', 'Plans'], ['overlap', 'O_s per op'], ['libraries', 'Kernel libraries'], ['passes', 'Passes'], ['latency', 'Latency'],
    ...(d.sweep ? [['sweep', 'Spill sweep']] : []), ['verification', 'Verification']].map(([id, t]) => `<a href="#${id}">${t}</a>`).join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>mcusim report: ${esc(d.modelLabel)}</title>
<style>${CSS}</style></head>
<body><main>
<h1>mcusim report: ${esc(d.modelLabel)}</h1>
<p class="sub">passes <code>${esc(d.passes.join(','))}</code>, board ${esc(d.target)}</p>
<nav>${nav}</nav>
${sections.join('\n')}
</main></body></html>
`;
}
