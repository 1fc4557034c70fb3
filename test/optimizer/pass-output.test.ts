// checkPassOutput: a pass that builds a model mcusim would refuse is an internal error (exit 70,
// E_INTERNAL, InvalidPassOutputError naming the pass and the op), never bad input, and nothing is
// written. A test-only pass stands in for 'dmo' (vi.mock) and corrupts one op's output shape.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InternalError, buildZooModel } from '../../src/ir/index.ts';
import type { Model } from '../../src/ir/index.ts';
import type { OptimizerPass } from '../../src/optimizer/index.ts';

/** The first conv2d's output tensor gets one channel too many: its shape rule fails. */
function corrupt(model: Model): Model {
  const g = model.graph;
  const op = g.ops.findIndex((o) => o.kind === 'conv2d');
  const t = g.ops[op]!.outputs[0]!;
  const tensors = g.tensors.map((x, i) => (i === t ? { ...x, shape: x.shape.map((d, k) => (k === x.shape.length - 1 ? d + 1 : d)) } : x));
  return { ...model, graph: { ...g, tensors } };
}

vi.mock('../../src/optimizer/dmo/dmo-pass.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/optimizer/dmo/dmo-pass.ts')>();
  const broken: OptimizerPass = {
    name: 'dmo',
    description: 'test-only: corrupts the first conv2d output shape',
    run: (model) => ({ model: corrupt(model), report: { pass: 'dmo', peakBytesBefore: 0, peakBytesAfter: 0, applied: true, notes: [] } }),
  };
  return { ...original, dmoPass: broken };
});

const { InvalidPassOutputError, checkPassOutput, runPipeline } = await import('../../src/optimizer/index.ts');
const { main } = await import('../../src/cli/main.ts');

const dir = mkdtempSync(join(tmpdir(), 'mcusim-pass-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkPassOutput', () => {
  const model = buildZooModel('cifar10-cnn');

  it('accepts what the real passes build', () => {
    const r = runPipeline(model, ['replacement'], { flags: {} });
    expect(r.reports[0]?.applied).toBe(true);
    expect(() => checkPassOutput('replacement', r.model)).not.toThrow();
  });

  it('turns an invalid pass output into InvalidPassOutputError (E_INTERNAL) naming the pass and the op', () => {
    let err: unknown;
    try {
      runPipeline(model, ['dmo'], { flags: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidPassOutputError);
    expect(err).toBeInstanceOf(InternalError);
    const e = err as InstanceType<typeof InvalidPassOutputError>;
    expect(e.code).toBe('E_INTERNAL');
    expect(e.pass).toBe('dmo');
    expect(e.issues).toContainEqual(expect.objectContaining({ code: 'E_MODEL_SHAPE', opKind: 'conv2d' }));
    expect(e.message).toMatch(/pass 'dmo'.*\n.*op \d+ \(conv2d\)/);
  });

  it('through the CLI: exit 70, E_INTERNAL on stderr with the op, no file written', async () => {
    const out = join(dir, 'x.tflite');
    const errors: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      errors.push(String(s));
      return true;
    });
    let code: number;
    try {
      code = await main(['node', 'mcusim', 'optimize', 'zoo:cifar10-cnn', '--passes', 'dmo', '-o', out, '--json', '--quiet']);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(70);
    expect(errors.join('')).toMatch(/^E_INTERNAL: pass 'dmo' built an invalid model[^]*op \d+ \(conv2d\)/);
    expect(existsSync(out)).toBe(false);
  });
});
