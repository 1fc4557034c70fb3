// docs/cli.md documents everything a user can type (issue 47): every command of `mcusim --help`
// (and `zoo list` / `zoo export`) has a `## mcusim COMMAND` section, and every flag its --help
// lists appears in that section.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMcusim } from '../cli/bin-helpers.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');

/** The text of each `## mcusim NAME` section, by NAME. */
export function cliSections(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of md.split(/^## /m).slice(1)) {
    const m = /^mcusim ([a-z-]+)\s*\n/.exec(part);
    if (m?.[1]) out.set(m[1], part);
  }
  return out;
}

/** Commands listed under `Commands:` of a --help text (without `help`). */
export function helpCommands(help: string): string[] {
  const i = help.indexOf('Commands:');
  if (i < 0) return [];
  return [...help.slice(i).matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1] ?? '').filter((c) => c !== 'help');
}

/** Long and short flags listed under `Options:` of a --help text (without --help / --version). */
export function helpFlags(help: string): string[] {
  const i = help.indexOf('Options:');
  const j = help.indexOf('Commands:', i);
  const block = help.slice(i, j < 0 ? undefined : j);
  return [...block.matchAll(/^ {2}(-[a-zA-Z], )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[2] ?? '').filter((f) => f !== '--help' && f !== '--version');
}

const HELP = new Map<string, string>();
beforeAll(async () => {
  const top = (await runMcusim(['--help'])).stdout;
  HELP.set('', top);
  for (const c of helpCommands(top)) {
    const help = (await runMcusim([c, '--help'])).stdout;
    HELP.set(c, help);
    for (const sub of helpCommands(help)) HELP.set(`${c} ${sub}`, (await runMcusim([c, sub, '--help'])).stdout);
  }
});

describe('docs/cli.md', () => {
  it('parses --help as commander prints it', () => {
    const help = 'Usage: x\n\nOptions:\n  -o, --output <file>  out\n  --json      print\n  -h, --help  help\n\nCommands:\n  list [options]  l\n  help [command]  h\n';
    expect(helpFlags(help)).toEqual(['--output', '--json']);
    expect(helpCommands(help)).toEqual(['list']);
    expect([...cliSections('# t\n## mcusim run\n--seed\n## Rules\nx\n').keys()]).toEqual(['run']);
  });

  it('has a section for every command', () => {
    const commands = helpCommands(HELP.get('') ?? '');
    expect(commands.length).toBeGreaterThan(8);
    const sections = cliSections(DOC);
    expect(commands.filter((c) => !sections.has(c))).toEqual([]);
  });

  it("names every flag of each command's --help in that command's section", () => {
    const sections = cliSections(DOC);
    const missing: string[] = [];
    for (const [name, help] of HELP) {
      if (name === '') continue;
      const section = sections.get(name.split(' ')[0] ?? '') ?? '';
      for (const flag of helpFlags(help)) {
        if (!new RegExp(`${flag}(?![a-z0-9-])`).test(section)) missing.push(`mcusim ${name} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
