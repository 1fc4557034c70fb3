// Options latency and sweep share. `--board NAME` picks a built-in board profile; `--board-file
// FILE.json` starts from the profile its "base" key names (default nicla-vision) and replaces the
// numbers it gives (overrideTarget), e.g. a link cost measured on a real board:
//   { "base": "nicla-vision", "remoteHost": { "readCyclesPerByte": 2300 } }
// `--seed N` / `--zero-input` choose the inputs of the run whose spilled bytes --compress encodes.
// `--target NAME` / `--target-file FILE` are the old spellings (hidden aliases).
import type { Command } from 'commander';
import { UsageError } from '../ir/index.ts';
import type { PayloadInputs } from '../optimizer/index.ts';
import { DEFAULT_PAYLOAD_INPUTS, describePayloadInputs } from '../optimizer/index.ts';
import type { TargetProfile } from '../sim/index.ts';
import { DEFAULT_TARGET_NAME, getTarget, listTargets, overrideTarget } from '../sim/index.ts';
import { addHiddenOption, aliased } from './cli-options.ts';
import { readInputFile } from './load-model.ts';

export interface TargetCliOptions {
  readonly board?: string;
  readonly boardFile?: string;
  /** Old spellings of --board / --board-file. */
  readonly target?: string;
  readonly targetFile?: string;
}

function readTargetFile(path: string): TargetProfile {
  const text = new TextDecoder().decode(readInputFile(path, 'target file'));
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`target file '${path}' is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError(`target file '${path}': must hold one JSON object`);
  const { base, ...overrides } = doc as Record<string, unknown>;
  if (base !== undefined && typeof base !== 'string') throw new UsageError(`target file '${path}': "base" must name a built-in target (${listTargets().join(', ')})`);
  const baseProfile = getTarget(base ?? DEFAULT_TARGET_NAME);
  const named = 'name' in overrides ? overrides : { ...overrides, name: `${baseProfile.name}+${path}` };
  try {
    return overrideTarget(baseProfile, named);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`target file '${path}': ${e.message}`);
    throw e;
  }
}

/** The profile the options name: a built-in one, or a target file's base with its overrides. */
export function resolveTarget(opts: TargetCliOptions): TargetProfile {
  const board = aliased<string>(opts, { flag: '--board', key: 'board' }, { flag: '--target', key: 'target' });
  const file = aliased<string>(opts, { flag: '--board-file', key: 'boardFile' }, { flag: '--target-file', key: 'targetFile' });
  if (file !== undefined) {
    if (board !== undefined) throw new UsageError('--board and --board-file exclude each other (the file names its base board)');
    return readTargetFile(file);
  }
  return getTarget(board ?? DEFAULT_TARGET_NAME);
}

/** Commander options for resolveTarget. */
export function addTargetOptions(cmd: Command): Command {
  cmd
    .option('--board <name>', `board profile (${listTargets().join(', ')}; default ${DEFAULT_TARGET_NAME})`)
    .option('--board-file <file>', 'board profile as JSON: {"base": NAME, ...numbers replacing the base profile\'s}');
  addHiddenOption(cmd, '--target <name>', 'old spelling of --board');
  return addHiddenOption(cmd, '--target-file <file>', 'old spelling of --board-file');
}

/** The compression run's inputs from `--seed N` / `--zero-input` (latency, sweep). */
export function payloadInputsOf(opts: { readonly seed?: string; readonly zeroInput?: boolean }): PayloadInputs {
  if (opts.zeroInput === true) {
    if (opts.seed !== undefined) throw new UsageError('--seed and --zero-input exclude each other');
    return 'zero';
  }
  if (opts.seed === undefined) return DEFAULT_PAYLOAD_INPUTS;
  const n = Number(opts.seed);
  if (opts.seed.trim() === '' || !Number.isSafeInteger(n) || n < 0) throw new UsageError(`--seed must be a non-negative integer, got '${opts.seed}'`);
  return { seed: n };
}

/** Commander options for payloadInputsOf. */
export function addPayloadInputOptions(cmd: Command): Command {
  return cmd
    .option('--seed <n>', `seeded random inputs for the compression run (default ${describePayloadInputs()})`)
    .option('--zero-input', 'all-zero inputs for the compression run, as TinySeg\'s benchmark sketch');
}
