// Looks board profiles up by name (`--target NAME`). The table is a constant; adding a
// board means adding a profile file and one entry here.

import { UsageError } from '../../ir/index.ts';
import { BOARDS } from './boards.ts';
import { niclaVision } from './nicla-vision.ts';
import type { TargetProfile } from './target-profile.ts';

const TARGETS: Readonly<Record<string, TargetProfile>> = Object.freeze(Object.fromEntries(
  [niclaVision, ...BOARDS].map((t) => [t.name, t]),
));

export const DEFAULT_TARGET_NAME = niclaVision.name;

export function listTargets(): readonly string[] {
  return Object.keys(TARGETS).sort();
}

/** The profile called `name`; an unknown name is a UsageError that lists the known ones. */
export function getTarget(name: string): TargetProfile {
  const target = Object.prototype.hasOwnProperty.call(TARGETS, name) ? TARGETS[name] : undefined;
  if (target === undefined) {
    throw new UsageError(`unknown target '${name}'; known targets: ${listTargets().join(', ')}`);
  }
  return target;
}
