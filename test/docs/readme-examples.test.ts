// The README is a newcomer's page (issue 47): at most 250 lines, the two commands and one example
// of each user job in its first 60 lines, and every example marked `<!-- example -->` runs as
// written on a clone (in a scratch folder holding the repository's docs/ and testdata/) and prints
// the lines the README shows under it.
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from '../cli/bin-helpers.ts';
import type { BinRun } from '../cli/bin-helpers.ts';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BIN = join(ROOT, 'bin/mcusim.mjs');

interface Example {
  readonly line: number;
  readonly commands: string[];
  readonly shown: string[];
}

/** Each `<!-- example -->` block: its shell commands and the lines of the ```text block after it. */
export function readmeExamples(md: string): Example[] {
  const lines = md.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '<!-- example -->') continue;
    let j = i + 1;
    if (!/^```(sh|bash)$/.test(lines[j] ?? '')) throw new Error(`README line ${i + 1}: an example marker must stand right above a sh block`);
    const commands: string[] = [];
    for (j++; j < lines.length && lines[j] !== '```'; j++) commands.push((lines[j] ?? '').replace(/\s#.*$/, '').trim());
    for (j++; j < lines.length && (lines[j] ?? '').trim() === ''; j++);
    const shown: string[] = [];
    if (lines[j] === '```text') for (j++; j < lines.length && lines[j] !== '```'; j++) shown.push((lines[j] ?? '').trimEnd());
    out.push({ line: i + 1, commands: commands.filter((c) => c !== ''), shown });
  }
  return out;
}

function runLine(command: string, cwd: string): Promise<BinRun> {
  const words = command.split(/\s+/);
  const argv = words[0] === 'npx' && words[1] === 'mcusim' ? [BIN, ...words.slice(2)] : words[0] === 'node' ? words.slice(1) : null;
  if (argv === null) throw new Error(`README example: only 'npx mcusim ...' and 'node ...' lines run here: ${command}`);
  return runNode(argv, { cwd });
}

describe('README', () => {
  const examples = readmeExamples(README);

  it('is at most 250 lines, with the two commands and three examples in its first 60', () => {
    const lines = README.split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
    const head = lines.slice(0, 60).join('\n');
    expect(head).toContain('npm ci && npm run demo');
    expect(head).toMatch(/^npm test\b/m);
    expect(examples.filter((e) => e.line <= 60).length).toBeGreaterThanOrEqual(3);
    // The three user jobs: verify an optimization, estimate latency, check an O_s formula.
    const commands = examples.flatMap((e) => e.commands).join('\n');
    for (const job of [/npx mcusim verify /, /npx mcusim latency /, /npx mcusim overlap |check-formula/]) expect(commands).toMatch(job);
  });

  it('reads example blocks as written (a scan that finds nothing would pass vacuously)', () => {
    const sample = readmeExamples('x\n<!-- example -->\n```sh\nnpx mcusim zoo list   # all\n```\n\n```text\ntiny-unet  \n```\n');
    expect(sample).toEqual([{ line: 2, commands: ['npx mcusim zoo list'], shown: ['tiny-unet'] }]);
  });

  const dir = mkdtempSync(join(tmpdir(), 'mcusim-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, 'docs'), join(dir, 'docs'));
  symlinkSync(join(ROOT, 'testdata'), join(dir, 'testdata'));

  it.each(examples.map((e) => [e.line, e] as const))('example at line %i runs as written and prints what the README shows', async (_line, example) => {
    let stdout = '';
    for (const command of example.commands) {
      const r = await runLine(command, dir);
      expect(r.code, `${command}\n${r.stderr}`).toBe(0);
      stdout += r.stdout;
    }
    const printed = stdout.split('\n').map((l) => l.trimEnd());
    const missing = example.shown.filter((s) => !printed.some((p) => p.startsWith(s)));
    expect(missing).toEqual([]);
  });
});
