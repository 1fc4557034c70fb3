// Every `npx mcusim` command in the README and every mcusim command line in docs/*.md uses the
// current flag names (issue 14 item 3): each flag it passes is listed in that command's --help,
// where the old spellings are hidden, and no README command keeps a placeholder where a model goes.
// The old spellings are documented in docs/cli.md's conventions table, and nowhere else in docs/.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMcusim } from './bin-helpers.ts';
import { fencedShellLines } from './md-shell-blocks.ts';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CLI_DOC = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');

/** `md` without the table of old spellings (its header row names the column, then its rows). */
function withoutSpellingTable(md: string): string {
  const out: string[] = [];
  let inTable = false;
  for (const line of md.split('\n')) {
    if (/^\| flag \|.*old spelling/.test(line)) inTable = true;
    else if (inTable && !line.startsWith('|')) inTable = false;
    if (!inTable) out.push(line);
  }
  return out.join('\n');
}

const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort()
  .map((f) => ({ file: `docs/${f}`, text: withoutSpellingTable(readFileSync(join(ROOT, 'docs', f), 'utf8')) }));

/** The CLI's subcommands (`zoo` has its own: `zoo list`, `zoo export`). */
const SUBCOMMANDS = ['inspect', 'zoo', 'run', 'optimize', 'verify', 'overlap', 'conformance', 'codegen', 'latency', 'sweep', 'report', 'boards', 'web'];

interface CommandLine {
  /** Subcommand words (`['zoo', 'export']`), or [] for a span of flags only (`--passes dmo --json`). */
  readonly words: string[];
  readonly flags: string[];
  readonly line: string;
}

function flagsOf(args: readonly string[]): string[] {
  return args.flatMap((a) => [...a.matchAll(/(?:^|\[)(--?[a-z][a-z0-9-]*)/g)].map((x) => x[1] ?? ''));
}

function commandLine(argText: string, line: string): CommandLine {
  const args = argText.split(/\s+/).filter((a) => a !== '');
  const words = args[0] === 'zoo' ? args.slice(0, 2) : args.slice(0, 1);
  return { words, flags: flagsOf(args), line };
}

/**
 * Lines of the shell code blocks: fenced (``` , ```sh or ```bash; other languages skipped) and
 * 4-space indented ones outside fences, with `\` continuations joined.
 */
function codeBlockLines(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  let prevBlank = true;
  let inIndented = false;
  for (const line of md.replace(/\\\n\s*/g, ' ').split('\n')) {
    const f = /^```(\w*)/.exec(line);
    if (f) {
      fence = fence === null ? (f[1] ?? '') : null;
      inIndented = false;
      prevBlank = false;
      continue;
    }
    if (fence !== null) {
      if (['', 'sh', 'bash'].includes(fence)) out.push(line);
      continue;
    }
    inIndented = line.startsWith('    ') && (inIndented || prevBlank);
    if (inIndented) out.push(line.slice(4));
    prevBlank = line.trim() === '';
  }
  return out;
}

/** [subcommand words, flags] of each `npx mcusim ...` command in the README's fenced shell blocks. */
function readmeCommands(): CommandLine[] {
  const out: CommandLine[] = [];
  for (const line of fencedShellLines(README)) {
    const m = /npx mcusim\s+(.*)$/.exec(line.replace(/\s#.*$/, ''));
    if (m) out.push(commandLine(m[1] ?? '', line));
  }
  return out;
}

/**
 * Command lines of one docs page: `mcusim ...` lines in its code blocks, inline code spans
 * `mcusim SUB ...` or `SUB ... --flag ...` (SUB a subcommand), and spans of long flags only (`--arch`;
 * not `-fno-strict-aliasing`, a compiler flag).
 */
function docCommands(md: string): CommandLine[] {
  const out: CommandLine[] = [];
  for (const line of codeBlockLines(md)) {
    const m = /(?:^|\s)(?:npx )?mcusim\s+(.*)$/.exec(line.replace(/\s#.*$/, ''));
    if (m) out.push(commandLine(m[1] ?? '', line));
  }
  const prose = md.replace(/^```[\s\S]*?^```/gm, '');
  for (const span of [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => (m[1] ?? '').trim())) {
    const sub = /^(?:npx )?mcusim\s+(.*)$/.exec(span);
    const first = span.split(/\s+/)[0] ?? '';
    if (sub) out.push(commandLine(sub[1] ?? '', span));
    else if (SUBCOMMANDS.includes(first) && /\s--?[a-z]/.test(span)) out.push(commandLine(span, span));
    else if (/^--[a-z]/.test(span)) out.push({ words: [], flags: flagsOf(span.split(/\s+/)), line: span });
  }
  return out;
}

/** Every command's word list (`zoo list`, `zoo export` for `zoo`). */
const COMMAND_WORDS = SUBCOMMANDS.flatMap((s) => (s === 'zoo' ? [['zoo', 'list'], ['zoo', 'export']] : [[s]]));

/** `--help` of every command, read once before the tests (without blocking the worker). */
const HELP = new Map<string, string>();
beforeAll(async () => {
  for (const words of COMMAND_WORDS) HELP.set(words.join(' '), (await runMcusim([...words, '--help'])).stdout);
});

function helpOf(words: readonly string[]): string {
  const text = HELP.get(words.join(' '));
  if (text === undefined) throw new Error(`no --help read for '${words.join(' ')}' (not a command)`);
  return text;
}

function listed(flag: string, help: string): boolean {
  return new RegExp(`(^|[\\s,])${flag}([\\s,]|$)`, 'm').test(help);
}

/** Flags of `commands` that their command's --help does not list (a span of flags only: no command lists it). */
function unlistedFlags(commands: readonly CommandLine[]): string[] {
  const everyHelp = (): string[] => COMMAND_WORDS.map(helpOf);
  const bad: string[] = [];
  for (const c of commands) {
    const helps = c.words.length > 0 ? [helpOf(c.words)] : everyHelp();
    for (const f of c.flags) {
      if (f === '--help' || f === '--version') continue;
      if (!helps.some((h) => listed(f, h))) bad.push(`${f} in: ${c.line.trim()}`);
    }
  }
  return bad;
}

describe('README commands', () => {
  it('pass only flags their command lists in --help (current spellings), and no MODEL placeholder', () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThanOrEqual(4);
    const bad = unlistedFlags(commands);
    for (const c of commands) {
      if (/\bMODEL\b/.test(c.line.replace(/\s#.*$/, ''))) bad.push(`placeholder in: ${c.line.trim()}`);
    }
    expect(bad).toEqual([]);
  });

  it('docs/cli.md documents every old spelling next to its new name', () => {
    const pairs: readonly (readonly [string, string])[] = [['--target-bytes BYTES', '--target BYTES'], ['--board NAME', '--target NAME'], ['--make-goal host', '--target host'], ['--out-dir DIR', 'run --out DIR'], ['--out-dir DIR', 'codegen -o DIR'], ['--board-file FILE.json', '--target-file FILE']];
    for (const [now, old] of pairs) {
      const row = CLI_DOC.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${now}`) && l.includes(old));
      expect(row, `${now} / ${old}`).toBeDefined();
    }
  });
});

describe('docs/*.md command lines', () => {
  it('finds the command lines of the pages (code blocks, `mcusim SUB ...` and flag spans)', () => {
    const codegen = docCommands(DOCS.find((d) => d.file === 'docs/codegen.md')?.text ?? '');
    expect(codegen.some((c) => c.words[0] === 'codegen' && c.flags.includes('--out-dir'))).toBe(true);
    const sample = docCommands('x\n\n    mcusim codegen M -o D --target host\n\nsee `optimize --target 60000` and `--target-file F`.\n');
    expect(sample.map((c) => [c.words, c.flags])).toEqual([[['codegen'], ['-o', '--target']], [['optimize'], ['--target']], [[], ['--target-file']]]);
    // Prose between two fenced blocks is prose; a js block is not a shell command.
    expect(docCommands('```js\nmcusim run --x\n```\nas mcusim plans it\n```sh\nmcusim inspect M --json\n```\n').map((c) => c.line)).toEqual(['mcusim inspect M --json']);
  });

  it('pass only flags their command lists in --help: no old spelling (--target, --target-file, codegen -o, run --out)', () => {
    const bad = DOCS.flatMap((d) => unlistedFlags(docCommands(d.text)).map((b) => `${d.file}: ${b}`));
    expect(bad).toEqual([]);
  });

  it('name no old spelling anywhere, in code or prose, outside the old-spelling table', () => {
    expect(withoutSpellingTable(CLI_DOC)).not.toContain('`--target BYTES`');
    expect(CLI_DOC).toContain('`--target BYTES`');
    const old = /(?<![\w-])(--target(?![\w-])|--target-file|--out(?![\w-]))/;
    const bad = DOCS.flatMap((d) => d.text.split('\n').filter((l) => old.test(l)).map((l) => `${d.file}: ${l.trim()}`));
    expect(bad).toEqual([]);
  });
});
