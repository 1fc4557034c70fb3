// `mcusim latency --validate`'s instruction part: when the data folder (beside a given CSV, $MCUSIM_DATA or ../shared/oracle) holds a real
// build's recorded counts (instructions-m7/ for nucleo-h743zi2, instructions-m55/ for ensemble-e7; their
// READMEs describe them), every recorded model is predicted and compared (optimizer/instruction-validation.ts).
// Models are found where the records' folders say: shared -> models/, real -> models-real/,
// latency -> latency/, zoo -> `zoo:NAME`. Absent data is reported as absent, not as a pass.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph } from '../ir/index.ts';
import { buildZooModel } from '../ir/index.ts';
import type { InstructionRecord, InstructionSummary, ModelInstructionResult } from '../optimizer/index.ts';
import { summarizeInstructions, validateModelInstructions } from '../optimizer/index.ts';
import { getTarget } from '../sim/index.ts';
import { renderTable } from './format.ts';
import { loadModel } from './load-model.ts';

/** Recorded builds and the board each is judged on. */
const SETS: readonly { readonly dir: string; readonly board: string }[] = [
  { dir: 'instructions-m7', board: 'nucleo-h743zi2' },
  { dir: 'instructions-m55', board: 'ensemble-e7' },
];

const MODEL_DIRS: Readonly<Record<string, string>> = { shared: 'models', real: 'models-real', latency: 'latency' };

export interface InstructionSet {
  readonly dir: string;
  readonly board: string;
  readonly models: readonly ModelInstructionResult[];
  readonly summary: InstructionSummary;
}

function graphOf(root: string, group: string, name: string): Graph | null {
  if (group === 'zoo') return buildZooModel(name).graph;
  const sub = MODEL_DIRS[group];
  const file = sub === undefined ? undefined : join(root, sub, `${name}.tflite`);
  return file !== undefined && existsSync(file) ? loadModel(file).graph : null;
}

/** Every recorded set found under `root` (the oracle folder), predicted and compared. */
export function validateInstructionSets(root: string): InstructionSet[] {
  const out: InstructionSet[] = [];
  for (const set of SETS) {
    const dir = join(root, set.dir);
    if (!existsSync(dir)) continue;
    const target = getTarget(set.board);
    const models: ModelInstructionResult[] = [];
    for (const group of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
      for (const f of readdirSync(join(dir, group)).filter((x) => x.endsWith('.json')).sort()) {
        const name = f.slice(0, -'.json'.length);
        const graph = graphOf(root, group, name);
        if (graph === null) continue;
        const record = JSON.parse(readFileSync(join(dir, group, f), 'utf8')) as InstructionRecord;
        models.push(validateModelInstructions(`${group}/${name}`, graph, record, target));
      }
    }
    out.push({ dir, board: set.board, models, summary: summarizeInstructions(models) });
  }
  return out;
}

const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%`;

export function instructionSetsText(sets: readonly InstructionSet[]): string {
  if (sets.length === 0) return 'instructions: no recorded build data (instructions-m7/, instructions-m55/) beside the CSV, in $MCUSIM_DATA or in ../shared/oracle\n';
  return sets.map((s) => {
    const rows = s.models.map((m) => [
      m.model, m.recordedInvoke, m.predictedInvoke, pct(m.invokeError), `${m.within10}/${m.bigOps}`, `${m.within5}/${m.bigOps}`,
      m.worst === null ? '-' : `op ${m.worst.index} ${m.worst.opcode} ${pct(m.worst.error)}`, m.estimatedOps,
    ]);
    const u = s.summary;
    return [
      `instructions vs ${s.dir} on ${s.board}:`,
      renderTable(['model', 'recorded Invoke', 'predicted', 'error', 'ops >=10k within 10%', 'within 5%', 'worst op', 'estimated ops'], rows),
      `ops >= 10,000 instructions: ${u.bigOps}, within 10% ${u.within10}, within 5% ${u.within5}; Invoke totals within 3%: ${u.totalsWithin3}/${u.models} (worst ${(u.worstInvokeError * 100).toFixed(2)}%)`,
      '',
    ].join('\n');
  }).join('\n');
}
