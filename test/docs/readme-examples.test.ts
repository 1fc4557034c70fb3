// The README is a newcomer's page (issue 47): at most 250 lines, the two commands and one example
// of each user job in its first 60 lines, and every example marked `<!-- example -->` runs as
// written on a clone (in a scratch folder holding the repository's docs/ only: the examples use zoo models) and prints
// the lines the README shows under it (test/pack-install.test.ts runs them again from the installed
// tarball in an empty folder).
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from '../cli/bin-helpers.ts';
import type { BinRun } from '../cli/bin-helpers.ts';
import { missingLines, readmeExamples } from './readme-helpers.ts';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BIN = join(ROOT, 'bin/mcusim.mjs');

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

  it.each(examples.map((e) => [e.line, e] as const))('example at line %i runs as written and prints what the README shows', async (_line, example) => {
    let stdout = '';
    for (const command of example.commands) {
      const r = await runLine(command, dir);
      expect(r.code, `${command}\n${r.stderr}`).toBe(0);
      stdout += r.stdout;
    }
    expect(missingLines(example, stdout)).toEqual([]);
  });
});
