// The CLI entry loads only the invoked command: the help-only stubs must read exactly like the
// loaded commands, argv must name the right command, and a checkout without dist/ is told to build.
import { copyFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, buildProgram, invokedCommand, loadCommands } from '../../src/cli/main.ts';
import { runMcusim, runMcusimClosedStdout, testTempDir } from './bin-helpers.ts';
import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';

describe('lazy command loading', () => {
  it('top-level help from the stubs equals the help of the fully loaded program', async () => {
    const lazy = buildProgram(() => {}, new Map()).helpInformation();
    const full = buildProgram(() => {}, await loadCommands()).helpInformation();
    expect(lazy).toBe(full);
  });

  it('every stub summary is the loaded command\'s description', async () => {
    const full = buildProgram(() => {}, await loadCommands());
    for (const [name, entry] of Object.entries(COMMANDS)) {
      expect(full.commands.find((c) => c.name() === name)?.description(), name).toBe(entry.summary);
    }
  });

  it('argv names the command to load, also after help; options alone name none', async () => {
    expect(invokedCommand(['node', 'mcusim', '--version'])).toBeNull();
    expect(invokedCommand(['node', 'mcusim', '--help'])).toBeNull();
    expect(invokedCommand(['node', 'mcusim', 'run', 'zoo:tiny-unet', '--seed', '1'])).toBe('run');
    expect(invokedCommand(['node', 'mcusim', 'help', 'verify'])).toBe('verify');
    expect(invokedCommand(['node', 'mcusim', 'bogus'])).toBeNull();
  });

  it('the bin prints the version and per-command help', async () => {
    expect((await runMcusim(['--version']))).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const help = (await runMcusim(['help', 'overlap']));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--depth-multiplier');
    expect((await runMcusim(['bogus'])).code).toBe(2);
  });

  it('a bin without dist/ exits 70 and says to run npm run build', async () => {
    const dir = testTempDir('mcusim-nodist-');
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(import.meta.dirname, '../../bin/mcusim.mjs'), join(dir, 'bin', 'mcusim.mjs'));
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'mcusim.mjs'), '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(70);
    expect(r.stderr).toContain('npm run build');
  });

  itWithData('models', 'a reader that closes the pipe early (| head -c 100) ends the bin quietly, no EPIPE trace', async () => {
    // mobilenet_v2's JSON (about 880 kB) is larger than the child's stdout socket buffer (Node
    // spawns stdio pipes as socket pairs, a few hundred kB), so the bin is still writing when the reader leaves.
    const r = await runMcusimClosedStdout(['inspect', `${ORACLE_MODELS}/mobilenet_v2_quantized_1x3x224x224.tflite`, '--json', '--quiet']);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });
});
