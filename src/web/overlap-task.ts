// Per op, O_s by the three methods for the page's build (engine worker): overlapReport's figures
// (what `mcusim overlap` prints for the same op alone) and, on request, the op's trace picture.
// The analytic bound is the reference order's; with a library that runs its own kernel for the op
// it is left out, as the CLI leaves it out.
import { McusimError } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import { renderOpTraceSvg, safeOverlapReport } from '../optimizer/index.ts';
import { registryOf } from './cli-equivalents.ts';
import type { Build, Overlap } from './protocol.ts';

export function overlapOf(model: Model, label: string, opIndex: number, build: Build): Overlap {
  const op = model.graph.ops[opIndex];
  const kind = op === undefined ? '?' : op.kind === 'custom' ? `custom:${op.customCode}` : op.kind;
  const registry = registryOf(build, model, label);
  let report;
  try {
    report = safeOverlapReport(model.graph, opIndex, { registry });
  } catch (e) {
    // An op without an (input, output) pair to overlap: nothing to measure, said as the library says it.
    if (!(e instanceof McusimError)) throw e;
    return { opIndex, kind, inputBytes: 0, outputBytes: 0, os: {}, traceSvg: null, note: `${e.code}: ${e.message}` };
  }
  const os = Object.fromEntries(Object.entries(report.os).filter((e): e is [string, number] => typeof e[1] === 'number'));
  return { opIndex, kind, inputBytes: report.inputBytes, outputBytes: report.outputBytes, os, traceSvg: renderOpTraceSvg(model.graph, opIndex, os, registry, `op ${opIndex} ${kind}`), note: null };
}
