// Passes by name and the pipeline that chains them (`mcusim optimize --passes a,b`). The input
// must be a model `run` accepts (checkGraphConstraints: an op without a kernel or a kernel
// constraint is the input's error, not a pass's); each pass gets the previous pass's model,
// checked first (checkPassOutput); the reports are returned in order. One line per pass in
// PASSES. With a byte target (`optimize --target-bytes`) the result says whether the optimized
// model meets it, on the whole arena for options.arch (the planned part under objective=planned):
// PipelineResult.target.
import { UsageError, readOfflinePlan, withPlanKernels } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import type { OptimizerPass, PassOptions, PassReport } from './pass.ts';
import { dmoPass } from './dmo/index.ts';
import { replacementPass } from './replacement/index.ts';
import { tinysegPass } from './tinyseg/index.ts';
import { fdtPass, ffmtPass, tilingPass } from './tiling/index.ts';
import { autoPass } from './auto-pass.ts';
import { checkGraphConstraints } from '../kernels/index.ts';
import { checkPassOutput } from './pass-output.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import { arenaTotals } from './prepared-totals.ts';
import { objectiveOf, targetMeasureOf } from './total-guard.ts';
import type { TargetMeasure } from './total-guard.ts';

export const PASSES: Readonly<Record<string, OptimizerPass>> = Object.freeze({
  dmo: dmoPass,
  replacement: replacementPass,
  tinyseg: tinysegPass,
  fdt: fdtPass,
  ffmt: ffmtPass,
  tiling: tilingPass,
  auto: autoPass,
});

export function passNames(): string[] {
  return Object.keys(PASSES);
}

/** The pass called `name`; UsageError listing the available passes otherwise. */
export function getPass(name: string): OptimizerPass {
  const p = Object.prototype.hasOwnProperty.call(PASSES, name) ? PASSES[name] : undefined;
  if (p === undefined) throw new UsageError(`unknown pass '${name}'; available: ${passNames().join(', ')}`);
  return p;
}

export interface PipelineResult {
  readonly model: Model;
  readonly reports: readonly PassReport[];
  /** The verdict on options.targetBytes (absent without a target). */
  readonly target?: TargetResult;
}

/** Run the named passes in order; unknown names fail before any pass runs. */
export function runPipeline(model: Model, names: readonly string[], options: PassOptions): PipelineResult {
  const passes = names.map(getPass);
  checkGraphConstraints(model.graph, options.registry);
  const reports: PassReport[] = [];
  let current = model;
  for (const [i, pass] of passes.entries()) {
    // Progress, not a result: the result line `pass NAME` is the caller's (optimize's table title).
    options.log?.(`running ${pass.name} (pass ${i + 1} of ${passes.length})`);
    const result = pass.run(current, options);
    if (result.model !== current) checkPassOutput(pass.name, result.model, options.registry);
    current = result.model;
    reports.push(result.report);
  }
  // A plan the passes changed records the library it was made for (its O_s and scratch are that
  // library's); verify reads it back (readPlanKernels).
  if (current !== model && readOfflinePlan(current) !== null) {
    current = withPlanKernels(current, { library: options.registry?.library ?? 'reference', cpu: options.registry?.cpu ?? null });
  }
  if (options.targetBytes === undefined) return { model: current, reports };
  const note = [...reports].reverse().find((r) => r.targetNote !== undefined)?.targetNote;
  return { model: current, reports, target: targetResult(current, options.targetBytes, options, note) };
}

/** The pipeline's verdict on a byte target (PipelineResult.target, `optimize --json`). */
export interface TargetResult {
  readonly bytes: number;
  readonly measure: TargetMeasure;
  /** The optimized model's figure on `measure` for the chosen arch. */
  readonly achievedBytes: number;
  readonly met: boolean;
  /** achievedBytes - bytes when missed, else 0. */
  readonly gapBytes: number;
  /** Why it was missed, when a pass says (auto: "no pipeline meets the target ..."). */
  readonly note?: string;
}

/** `model`'s verdict on `bytes` (the whole arena as the simulator plans it, arenaTotals). */
export function targetResult(model: Model, bytes: number, options: PassOptions, note?: string): TargetResult {
  const measure = targetMeasureOf(objectiveOf(options));
  const achievedBytes = arenaTotals(model, options.arch ?? DEFAULT_TFLM_ARCH, options.registry, options.runtime)[measure];
  const met = achievedBytes <= bytes;
  return { bytes, measure, achievedBytes, met, gapBytes: met ? 0 : achievedBytes - bytes, ...(met || note === undefined ? {} : { note }) };
}
