// Option rules every command shares (issue 14 item 3): one meaning per flag name with the old
// spellings kept as hidden aliases (both spellings at once = usage error), flags that do not apply
// to the chosen pass or device refused by name, and output paths checked before any work starts.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Model } from '../ir/index.ts';
import { UsageError } from '../ir/index.ts';
import { isStorageOp } from '../kernels/index.ts';

/** One spelling of an option: its flag as typed and commander's key for it. */
export interface Spelling {
  readonly flag: string;
  readonly key: string;
}

/** The value of the current spelling or its old alias; both given is a usage error. */
export function aliased<T>(opts: object, current: Spelling, old: Spelling): T | undefined {
  const o = opts as Record<string, unknown>;
  const a = o[current.key] as T | undefined;
  const b = o[old.key] as T | undefined;
  if (a !== undefined && b !== undefined) throw new UsageError(`${old.flag} is the old spelling of ${current.flag}; give one of them, not both`);
  return a ?? b;
}

/** Adds `flags` as an option hidden from --help (an old spelling documented in the README). */
export function addHiddenOption(cmd: Command, flags: string, description: string): Command {
  // createOption: the Option class of the commander that made `cmd` (the CLI's bundles each carry
  // their own copy of the library; main's makes the commands).
  return cmd.addOption(cmd.createOption(flags, description).hideHelp());
}

/** A flag that means nothing for the chosen pass, device or mode: a usage error saying why. */
export function refuseFlag(flag: string, why: string): never {
  throw new UsageError(`${flag} does not apply: ${why}`);
}

/**
 * Flags describing spilled tensors (--storage, --compress, ...; each with whether it was given)
 * refused together when the model spills none (no storage ops): nothing for them to describe.
 */
export function refuseSpillFlags(model: Model, given: readonly (readonly [string, boolean])[]): void {
  if (model.graph.ops.some(isStorageOp)) return;
  const bad = given.filter(([, on]) => on).map(([name]) => name);
  if (bad.length > 0) refuseFlag(bad.join(', '), 'the model spills no tensor to storage (optimize it with --passes tinyseg first)');
}

function writableFolder(path: string, flag: string, dir: string): void {
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${flag} '${path}': folder '${dir}' is not writable`);
  }
}

/** A file output (`-o FILE`, `--svg FILE`, ...): its folder exists and is writable, the path is not a folder. */
export function checkOutputFile(path: string | undefined, flag: string): void {
  if (path === undefined) return;
  if (path === '') throw new UsageError(`${flag} needs a file name`);
  const full = resolve(path);
  if (existsSync(full)) {
    if (statSync(full).isDirectory()) throw new UsageError(`${flag} '${path}' is a folder; give a file name`);
    try {
      accessSync(full, constants.W_OK);
    } catch {
      throw new UsageError(`${flag} '${path}' is not writable`);
    }
    return;
  }
  const dir = dirname(full);
  if (!existsSync(dir)) throw new UsageError(`${flag} '${path}': folder '${dir}' does not exist`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`${flag} '${path}': '${dir}' is not a folder`);
  writableFolder(path, flag, dir);
}

/** A folder output (`--out-dir DIR`): a writable folder, or creatable under the nearest existing one. */
export function checkOutputDir(path: string | undefined, flag: string): void {
  if (path === undefined) return;
  if (path === '') throw new UsageError(`${flag} needs a folder name`);
  let dir = resolve(path);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`${flag} '${path}' is a file; give a folder`);
  while (!existsSync(dir)) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (!statSync(dir).isDirectory()) throw new UsageError(`${flag} '${path}': '${dir}' is a file, not a folder`);
  writableFolder(path, flag, dir);
}

/** Progress lines on stderr (stdout stays the report or the --json document); `--quiet` silences them. */
export function progressLog(opts: { readonly quiet?: boolean }): (line: string) => void {
  return opts.quiet === true ? () => undefined : (line) => void process.stderr.write(`${line}\n`);
}

/** `--quiet` for commands that print progress on stderr. */
export function addQuietOption(cmd: Command): Command {
  return cmd.option('-q, --quiet', 'no progress lines on stderr (errors and warnings still print)');
}

/** --arena-align BYTES: the declared tensor_arena's start alignment (a power of two, default 16). */
export function parseArenaAlign(s: string | undefined): number {
  if (s === undefined) return 16;
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 1 || (n & (n - 1)) !== 0) throw new UsageError(`--arena-align must be a power of two (bytes), got '${s}'`);
  return n;
}
