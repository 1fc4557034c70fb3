// The verdict of a verification, as `mcusim verify` prints it: VERIFIED, or FAILED with the first
// mismatch (seed, output, first differing byte) or the first trace violation (op, tensor, address,
// bytes) and the plan or storage fault, with the counts. `[data-metric="verify"]` holds the word.
import { byId, el } from '../dom.ts';
import type { VerifyReport } from '../../api/index.ts';

export function renderVerdict(r: VerifyReport): void {
  const passed = r.identical && r.traceClean;
  const lines: string[] = [
    `${r.seeds} seed(s); kernels ${r.kernels}${r.cpu === null ? '' : ` (${r.cpu})`}; outputs identical: ${r.identical ? 'yes' : 'NO'}; trace clean: ${r.traceClean ? 'yes' : 'NO'}`,
    `planned arena: original ${r.originalPeakBytes} B, optimized ${r.optimizedPeakBytes} B; whole arena (${r.arena.arch}): ${r.arena.original.totalBytes} B -> ${r.arena.optimized.totalBytes} B`,
  ];
  if (r.plannedForMismatch) lines.push(`warning: the file was planned for ${r.plannedFor.kernels} kernels, checked with ${r.kernels}`);
  if (r.planError !== null) lines.push(`static plan check failed: ${r.planError}`);
  const m = r.mismatches[0];
  if (m !== undefined) lines.push(`first mismatch: seed ${m.seed}, output ${m.output} '${m.name}': byte ${m.firstByte} expected ${m.expected}, got ${m.actual} (${m.differingBytes} bytes differ; ${r.mismatches.length} mismatch(es))`);
  const v = r.violations[0];
  if (v !== undefined) lines.push(`first ${v.kind}: seed ${v.seed}, op ${v.opIndex} ${v.opKind}, ${v.access} at address ${v.address}: ${v.message} (${r.violations.length} violation(s))`);
  for (const s of r.storage?.violations.slice(0, 3) ?? []) lines.push(`storage: ${s}`);
  byId('verify-result').replaceChildren(
    el('span', { class: 'verdict', 'data-metric': 'verify', 'data-value': passed ? 'VERIFIED' : 'FAILED' }, passed ? 'VERIFIED' : 'FAILED'),
    el('pre', { class: 'mono' }, lines.join('\n')),
  );
}

export function clearVerdict(text = '–'): void {
  byId('verify-result').replaceChildren(el('span', { class: 'verdict', 'data-metric': 'verify' }, text));
}
