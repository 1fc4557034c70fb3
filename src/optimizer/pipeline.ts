// Passes by name and the pipeline that chains them (`mcusim optimize --passes a,b`). Each pass
// gets the previous pass's model, checked first (checkPassOutput); the reports are returned in
// order. One line per pass in PASSES.
import { UsageError } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import type { OptimizerPass, PassOptions, PassReport } from './pass.ts';
import { dmoPass } from './dmo/index.ts';
import { replacementPass } from './replacement/index.ts';
import { tinysegPass } from './tinyseg/index.ts';
import { fdtPass, ffmtPass, tilingPass } from './tiling/index.ts';
import { autoPass } from './auto-pass.ts';
import { checkPassOutput } from './pass-output.ts';

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
}

/** Run the named passes in order; unknown names fail before any pass runs. */
export function runPipeline(model: Model, names: readonly string[], options: PassOptions): PipelineResult {
  const passes = names.map(getPass);
  const reports: PassReport[] = [];
  let current = model;
  for (const [i, pass] of passes.entries()) {
    // Progress, not a result: the result line `pass NAME` is the caller's (optimize's table title).
    options.log?.(`running ${pass.name} (pass ${i + 1} of ${passes.length})`);
    const result = pass.run(current, options);
    if (result.model !== current) checkPassOutput(pass.name, result.model);
    current = result.model;
    reports.push(result.report);
  }
  return { model: current, reports };
}
