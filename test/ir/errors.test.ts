import { describe, expect, it } from 'vitest';
import { ModelError, describeIssue } from '../../src/ir/index.ts';

describe('ModelError', () => {
  it('collects every issue and keeps the first code', () => {
    const e = ModelError.fromIssues([
      { code: 'E_MODEL_SHAPE', message: 'bad shape', opIndex: 3, opKind: 'conv2d' },
      { code: 'E_MODEL_DTYPE', message: 'bad dtype', tensorIndex: 7, tensorName: 'x' },
    ]);
    expect(e.code).toBe('E_MODEL_SHAPE');
    expect(e.issues).toHaveLength(2);
    expect(describeIssue(e.issues[1]!)).toContain("tensor 7 'x'");
  });
});
