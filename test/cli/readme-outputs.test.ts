// Every path the shell commands of the README and docs/*.md write inside the checkout (-o, --out, --svg...,
// --trace-out, codegen's folder, `cat > FILE`) is ignored by .gitignore, so running the README
// as written leaves `git status` clean. Asked of git itself (`git check-ignore --no-index`).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fencedShellLines } from './md-shell-blocks.ts';

const ROOT = join(import.meta.dirname, '../..');
const OUTPUT_FLAG = /(?:^|[\s[])(?:-o|--out|--out-dir|--svg|--svg-before|--svg-after|--trace-out|--trace-svg|>)\s+([A-Za-z0-9_.][A-Za-z0-9_./-]*)/g;

/** The output paths named in the fenced shell blocks of the README and docs/*.md, relative to the checkout. */
function readmeOutputs(): string[] {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const readme = pages.map((p) => readFileSync(join(ROOT, p), 'utf8')).join('\n');
  const paths = new Set<string>();
  // Command lines only: a block may also show what a command printed.
  for (const line of fencedShellLines(readme).filter((l) => /^\s*(npx |node |make |\.\/|cat |mcusim )/.test(l))) {
    const command = line.replace(/\s#.*$/, '');
    for (const m of command.matchAll(OUTPUT_FLAG)) {
      const path = m[1] ?? '';
      if (!path.startsWith('..') && !/^\d+$/.test(path)) paths.add(path);
    }
    // `./pd/build/host/model INPUT OUTDIR/`: the C binary's output folder.
    const bin = /\.\/(\S+)\/build\/host\/model\s+\S+\s+(\S+)/.exec(command);
    if (bin?.[2]) paths.add(bin[2]);
  }
  return [...paths];
}

/** A folder (trailing slash or no extension) is asked about a file inside it. */
const probe = (path: string): string => (path.endsWith('/') ? `${path}probe` : path.includes('.') ? path : `${path}/probe`);

describe('README and docs commands write only to ignored paths', () => {
  it('every output path named in a shell block is ignored by git', () => {
    const paths = readmeOutputs();
    // The scan finds the outputs it is about (a scan that found nothing would pass vacuously).
    expect(paths).toEqual(expect.arrayContaining(['out/', 'pd', 'tu.tflite', 'plan.svg', 'trace.svg', 'tiny-unet.html', 'my-nicla.json', 'sweep.svg', 'mb-dmo.tflite']));
    const notIgnored = paths.filter((p) => spawnSync('git', ['check-ignore', '--no-index', '-q', probe(p)], { cwd: ROOT }).status !== 0);
    expect(notIgnored).toEqual([]);
  });
});
