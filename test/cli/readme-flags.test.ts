// Every `npx mcusim` command in the README uses the current flag names (issue 14 item 3): each flag
// it passes is listed in that command's --help, where the old spellings are hidden, and no command
// keeps a placeholder where a model goes. The old spellings are documented, in the conventions table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMcusim } from './bin-helpers.ts';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** [subcommand words, flags] of each `npx mcusim ...` command in the fenced shell blocks. */
function readmeCommands(): { readonly words: string[]; readonly flags: string[]; readonly line: string }[] {
  const blocks = [...README.matchAll(/```(?:sh|bash)?\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').replace(/\\\n\s*/g, ' '));
  const out: { words: string[]; flags: string[]; line: string }[] = [];
  for (const line of blocks.flatMap((b) => b.split('\n'))) {
    const m = /npx mcusim\s+(.*)$/.exec(line.replace(/\s#.*$/, ''));
    if (!m) continue;
    const args = (m[1] ?? '').split(/\s+/).filter((a) => a !== '');
    const words = args[0] === 'zoo' ? args.slice(0, 2) : args.slice(0, 1);
    const flags = args.flatMap((a) => [...a.matchAll(/(?:^|\[)(--?[a-z][a-z0-9-]*)/g)].map((x) => x[1] ?? ''));
    out.push({ words, flags, line });
  }
  return out;
}

describe('README commands', () => {
  it('pass only flags their command lists in --help (current spellings), and no MODEL placeholder', () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThan(25);
    const help = new Map<string, string>();
    const bad: string[] = [];
    for (const c of commands) {
      const key = c.words.join(' ');
      if (!help.has(key)) help.set(key, runMcusim([...c.words, '--help']).stdout);
      const text = help.get(key) ?? '';
      for (const f of c.flags) {
        if (f === '--help' || f === '--version') continue;
        if (!new RegExp(`(^|[\\s,])${f}([\\s,]|$)`, 'm').test(text)) bad.push(`${f} in: ${c.line.trim()}`);
      }
      if (/\bMODEL\b/.test(c.line.replace(/\s#.*$/, ''))) bad.push(`placeholder in: ${c.line.trim()}`);
    }
    expect(bad).toEqual([]);
  });

  it('documents every old spelling next to its new name', () => {
    const pairs: readonly (readonly [string, string])[] = [['--target-bytes BYTES', '--target BYTES'], ['--board NAME', '--target NAME'], ['--make-goal host', '--target host'], ['--out-dir DIR', 'run --out DIR'], ['--out-dir DIR', 'codegen -o DIR'], ['--board-file FILE.json', '--target-file FILE']];
    for (const [now, old] of pairs) {
      const row = README.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${now}`) && l.includes(old));
      expect(row, `${now} / ${old}`).toBeDefined();
    }
  });
});
