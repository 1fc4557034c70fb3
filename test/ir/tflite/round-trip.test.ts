// import -> export -> import round trip of every oracle model, export determinism, and the
// extra models that must load or be refused as unsupported.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ModelError } from '../../../src/ir/errors.ts';
import type { Model } from '../../../src/ir/graph.ts';
import { exportTflite } from '../../../src/ir/tflite/export-tflite.ts';
import { importTflite } from '../../../src/ir/tflite/import-tflite.ts';
import * as S from '../../../src/ir/tflite/schema-generated.ts';
import { ByteBuffer } from 'flatbuffers';
import { describeWithData, tfliteNames } from '../../oracle-paths.ts';
import { ORACLE } from './fixtures.ts';

/** The model with every byte array replaced by its length and hash (fast deep equality). */
function digest(model: Model): unknown {
  return JSON.parse(
    JSON.stringify(model, (_k, v: unknown) =>
      v instanceof Uint8Array ? { bytes: v.length, sha1: createHash('sha1').update(v).digest('hex') } : v,
    ),
  );
}

const models = tfliteNames(`${ORACLE}/models`).map((n) => `${n}.tflite`);
const extra = tfliteNames(`${ORACLE}/models-extra`).map((n) => `${n}.tflite`);

describeWithData('models', 'oracle models round-trip', () => {
  it('finds the oracle models', () => {
    expect(models.length).toBeGreaterThanOrEqual(5);
  });

  for (const name of models) {
    it(name, () => {
      const bytes = new Uint8Array(readFileSync(`${ORACLE}/models/${name}`));
      const t0 = performance.now();
      const m1 = importTflite(bytes);
      const importMs = performance.now() - t0;
      const out1 = exportTflite(m1);
      const out2 = exportTflite(m1);
      expect(Buffer.from(out1).equals(Buffer.from(out2))).toBe(true);
      const m2 = importTflite(out1);
      expect(digest(m2)).toEqual(digest(m1));
      // Also exact on the values the digest hashes.
      m1.graph.tensors.forEach((t, i) => {
        const d2 = m2.graph.tensors[i]?.data ?? null;
        expect(t.data === null ? d2 === null : d2 !== null && Buffer.from(d2).equals(Buffer.from(t.data))).toBe(true);
      });
      expect(Buffer.from(exportTflite(m2)).equals(Buffer.from(out1))).toBe(true);
      console.log(`${name}: ${bytes.length} B, ${m1.graph.tensors.length} tensors, ${m1.graph.ops.length} ops, import ${importMs.toFixed(1)} ms, export ${out1.length} B`);
    });
  }

  it('keeps description, metadata entries and signature defs', () => {
    const m = importTflite(new Uint8Array(readFileSync(`${ORACLE}/models/hello_world_int8.tflite`)));
    expect(m.version).toBe(3);
    expect(m.description).toBe('MLIR Converted.');
    expect(m.metadata.map((e) => e.name)).toEqual(['min_runtime_version', 'CONVERSION_METADATA']);
    expect(m.signatureDefs).toHaveLength(1);
    const again = importTflite(exportTflite(m));
    expect(again.metadata).toEqual(m.metadata);
    expect(again.signatureDefs).toEqual(m.signatureDefs);
  });

  it('writes the layout TFLM expects: TFL3, version 3, empty buffer 0, 16-byte aligned data', () => {
    const m = importTflite(new Uint8Array(readFileSync(`${ORACLE}/models/person_detect.tflite`)));
    const out = exportTflite(m);
    expect(String.fromCharCode(...out.subarray(4, 8))).toBe('TFL3');
    const fb = S.Model.getRootAsModel(new ByteBuffer(out));
    expect(fb.version()).toBe(3);
    expect(fb.buffers(0)?.dataLength()).toBe(0);
    const constants = m.graph.tensors.filter((t) => t.data !== null).length;
    expect(fb.buffersLength()).toBe(1 + constants + m.metadata.length);
    for (let i = 1; i < fb.buffersLength(); i++) {
      const data = fb.buffers(i)?.dataArray();
      if (data) expect(data.byteOffset % 16).toBe(0);
    }
    const sg = fb.subgraphs(0)!;
    for (let i = 0; i < sg.tensorsLength(); i++) {
      const t = sg.tensors(i)!;
      expect(fb.buffers(t.buffer())!.dataLength() > 0).toBe(m.graph.tensors[i]!.data !== null);
    }
    for (let i = 0; i < fb.operatorCodesLength(); i++) {
      const c = fb.operatorCodes(i)!;
      expect(c.deprecatedBuiltinCode()).toBe(Math.min(c.builtinCode(), 127));
    }
  });
});

describeWithData('models-extra', 'models-extra', () => {
  for (const name of extra) {
    it(`${name} loads or is refused as unsupported`, () => {
      const bytes = new Uint8Array(readFileSync(`${ORACLE}/models-extra/${name}`));
      try {
        const m = importTflite(bytes);
        expect(digest(importTflite(exportTflite(m)))).toEqual(digest(m));
      } catch (e) {
        expect(e).toBeInstanceOf(ModelError);
        const err = e as ModelError;
        expect(err.code).toBe('E_MODEL_UNSUPPORTED_OP');
        for (const issue of err.issues) {
          expect(issue.opIndex).toBeTypeOf('number');
          expect(issue.opKind).toMatch(/^[A-Z0-9_]+$/);
        }
      }
    });
  }
});
