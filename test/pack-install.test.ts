// The package as a user gets it: `npm pack`, install the tarball into an empty project, then there
// import 'mcusim' (every documented export present), run docs/examples' plain-Node script and
// vitest file on the made-up depthwise O_s formula (200 seeded configurations), and the same with
// the deliberately unsafe variant, which must fail naming the case and the clobber, and every README
// example as a user runs it in that folder (zoo models only: nothing else is there). Slow (npm
// install from the registry or its cache): one run per suite, generous hang guards. Packs the
// dist/ this run's global setup built (the prepack build is the same scripts/build.mjs).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { testTempDir } from './cli/bin-helpers.ts';
import { missingLines, readmeExamples } from './docs/readme-helpers.ts';

const ROOT = join(import.meta.dirname, '..');
const VITEST_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version;
const INSTALL_TIMEOUT_MS = 540_000;

interface Run {
  readonly code: number | null;
  readonly out: string;
}

/** Runs without blocking the test worker (a blocking npm install kept its event loop busy for minutes). */
function sh(cmd: string, args: readonly string[], cwd: string, timeoutMs = 300_000, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, timeout: timeoutMs, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (x: string) => { stdout += x; });
    child.stderr.setEncoding('utf8').on('data', (x: string) => { stderr += x; });
    let failed = '';
    child.on('error', (e) => { failed = `\n${e.message}`; });
    child.on('close', (code) => resolve({ code, out: `${stdout}${stderr}${failed}` }));
  });
}

describe('npm pack -> install -> import mcusim', () => {
  const tmp = testTempDir('mcusim-pack-');
  const proj = join(tmp, 'proj');
  let tarball = '';

  beforeAll(async () => {
    // --ignore-scripts: prepack and prepare would run scripts/build.mjs twice more (9 s of CPU);
    // the global setup (test/global-build.ts) ran that same build at the start of this run.
    const pack = (await sh('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', tmp], ROOT));
    expect(pack.code, pack.out).toBe(0);
    tarball = join(tmp, pack.out.trim().split('\n').pop() ?? '');
    mkdirSync(proj);
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'uses-mcusim', private: true, type: 'module' }));
    const install = (await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `vitest@${VITEST_VERSION}`], proj, INSTALL_TIMEOUT_MS));
    expect(install.code, install.out).toBe(0);
    cpSync(join(ROOT, 'docs/examples'), join(proj, 'examples'), { recursive: true });
    // The README's examples run here as a user runs them after `npm install mcusim` in an empty
    // folder: `npx mcusim ...`, and the docs' example scripts copied beside (docs/examples/).
    cpSync(join(ROOT, 'docs/examples'), join(proj, 'docs/examples'), { recursive: true });
  }, INSTALL_TIMEOUT_MS + 120_000);

  it('the tarball holds the compiled build, the bin and the API docs, not the sources or tests', async () => {
    const list = (await sh('tar', ['-tzf', tarball], tmp));
    expect(list.code, list.out).toBe(0);
    const files = list.out.trim().split('\n');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/bin/mcusim.mjs');
    // The bin runs the esbuild bundles of the CLI and its worker threads with their V8 code caches
    // (scripts/build.mjs); a worker starts from its stub.
    for (const f of ['main', 'commands', 'verify-worker', 'pool-worker']) {
      expect(files).toContain(`package/dist/cli/bundle/${f}.cjs`);
      expect(files).toContain(`package/dist/cli/bundle/${f}.cjs.cache`);
    }
    for (const f of ['verify-worker', 'pool-worker']) expect(files).toContain(`package/dist/cli/bundle/${f}.js`);
    expect(files).toContain('package/docs/api.md');
    // The web page `mcusim web` serves (scripts/build.mjs, src/web).
    for (const f of ['index.html', 'style.css', 'main.js', 'engine-worker.js', 'verify-worker.js']) expect(files).toContain(`package/dist/web/${f}`);
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/') || f.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  it('import("mcusim") lists every function and class docs/api.md documents, and nothing undocumented', async () => {
    const r = (await sh('node', ['--input-type=module', '-e', "const m = await import('mcusim'); console.log(JSON.stringify(Object.keys(m).sort()))"], proj));
    expect(r.code, r.out).toBe(0);
    const names = JSON.parse(r.out) as string[];
    const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const documented = [...doc.matchAll(/^### (.*)$/gm)].flatMap((h) => [...(h[1] as string).matchAll(/`(\w+)`/g)].map((m) => m[1] as string)).sort();
    expect(names).toEqual(documented);
    for (const k of ['checkOverlapFormula', 'safeOverlap', 'verify', 'estimateLatency', 'loadModel', 'planModel', 'runModel', 'Tracer']) expect(names).toContain(k);
  });

  it('V8 takes the installed bundles\' code caches (made where the package was built)', async () => {
    const loader = join(proj, 'node_modules/mcusim/dist/cli/bundle-loader.js');
    const r = (await sh('node', ['--input-type=module', '-e', `const { bundleCacheStates } = await import(${JSON.stringify(loader)}); console.log(JSON.stringify(bundleCacheStates()));`], proj));
    expect(r.code, r.out).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ main: 'accepted', commands: 'accepted', 'verify-worker': 'accepted', 'pool-worker': 'accepted' });
  });

  const examples = readmeExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  it.each(examples.map((e) => [e.line, e] as const))('README example at line %i runs from the installed package in an empty folder and prints what the README shows', async (_line, example) => {
    let stdout = '';
    for (const command of example.commands) {
      const words = command.split(/\s+/);
      const r = words[0] === 'npx' ? await sh('npx', ['--no-install', ...words.slice(1)], proj, 600_000, { MCUSIM_DATA: '' }) : await sh(words[0] ?? '', words.slice(1), proj, 600_000);
      expect(r.code, `${command}\n${r.out}`).toBe(0);
      stdout += r.out;
    }
    expect(missingLines(example, stdout)).toEqual([]);
  }, 900_000);

  it('the installed bin runs the compiled CLI', async () => {
    const r = (await sh(join(proj, 'node_modules/.bin/mcusim'), ['--version'], proj, 60_000));
    expect(r).toEqual({ code: 0, out: `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n` });
  });

  it('plain Node: the made-up depthwise formula is safe on 200 configurations, tightness reported', async () => {
    const r = (await sh('node', ['examples/check-formula.mjs'], proj));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^200 cases of depthwiseConv2d \(seed 'docs'\): all safe; tightness over 200 safe cases: mean 0\.\d+/);
  });

  it('plain Node: the unsafe variant exits 1 naming each unsafe case and its clobber', async () => {
    const r = (await sh('node', ['examples/check-formula.mjs', 'unsafe'], proj));
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/\d+ UNSAFE/);
    expect(r.out).toMatch(/case \d+ \(seed 'docs\/depthwiseConv2d\/\d+'\) depthwiseConv2d input [\dx]+ .*formula \d+ B > exact O_s \d+ B; tracer: clobber: op 0/);
  });

  it('vitest example passes with the formula, and fails on the unsafe variant naming case and clobber', async () => {
    const vitest = join(proj, 'node_modules/vitest/vitest.mjs');
    // The example's 200 cases take a few seconds idle but over 9 s on a loaded 2-core machine,
    // past vitest's 5 s default: the user's project gets a hang guard, not a race (issue 15).
    const run = ['run', '--testTimeout=300000', 'examples/depthwise-overlap.test.js'];
    const ok = (await sh('node', [vitest, ...run], proj));
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/all safe; tightness over 200 safe cases: mean 0\.\d+/);
    const bad = (await sh('node', [vitest, ...run], proj, 300_000, { MCUSIM_EXAMPLE_UNSAFE: '1' }));
    expect(bad.code, bad.out).toBe(1);
    expect(bad.out).toMatch(/case \d+ \(seed 'docs\/depthwiseConv2d\/\d+'\).*tracer: clobber/);
  });
});
