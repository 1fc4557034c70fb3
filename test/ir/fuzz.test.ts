// Seeded mutation fuzzing of importTflite on every oracle model (2,000 mutants each) and every real
// public model (1,000 each): bit flips, byte overwrites,
// truncations and corruption of the uoffset / vector-length / vtable fields found by walking the
// file. Every case must load or throw a ModelError; the slowest case is printed (no timing
// assertion). Each file is mutated in place and restored, so the 4 MB model is never copied.
import { readFileSync } from 'node:fs';
import { ByteBuffer } from 'flatbuffers';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/ir/errors.ts';
import { exportTflite } from '../../src/ir/tflite/export-tflite.ts';
import { importTflite } from '../../src/ir/tflite/import-tflite.ts';
import * as S from '../../src/ir/tflite/schema-generated.ts';

import { ORACLE, ORACLE_MODELS as MODELS, describeWithData, tfliteNames } from '../oracle-paths.ts';
const CASES_PER_MODEL = 2000;
/** Real public models (issue 13): 1,000 mutants each. */
const REAL_MODELS = `${ORACLE}/models-real`;
const CASES_PER_REAL_MODEL = 1000;
/** Re-export loaded mutants of models below this size (export of the 4 MB model is too slow to repeat). */
const REEXPORT_MAX_BYTES = 1 << 20;

/** Records where the generated accessors read int32 (uoffsets, soffsets, lengths) and int16 (vtables). */
class RecordingBuffer extends ByteBuffer {
  readonly int32s = new Set<number>();
  readonly int16s = new Set<number>();
  override readInt32(offset: number): number {
    this.int32s.add(offset);
    return super.readInt32(offset);
  }
  override readInt16(offset: number): number {
    this.int16s.add(offset);
    return super.readInt16(offset);
  }
}

/** Positions of the structural fields of a well-formed model, found by walking it. */
function structuralFields(bytes: Uint8Array): { int32s: number[]; int16s: number[] } {
  const bb = new RecordingBuffer(bytes);
  const m = S.Model.getRootAsModel(bb);
  m.version();
  m.description();
  for (let i = 0; i < m.operatorCodesLength(); i++) {
    const c = m.operatorCodes(i)!;
    c.builtinCode();
    c.deprecatedBuiltinCode();
    c.customCode();
  }
  const sg = m.subgraphs(0)!;
  for (let i = 0; i < sg.tensorsLength(); i++) {
    const t = sg.tensors(i)!;
    for (let k = 0; k < t.shapeLength(); k++) t.shape(k);
    t.type();
    t.buffer();
    t.name();
    const q = t.quantization();
    if (q) {
      for (let k = 0; k < Math.min(2, q.scaleLength()); k++) q.scale(k);
      for (let k = 0; k < Math.min(2, q.zeroPointLength()); k++) q.zeroPoint(k);
      q.quantizedDimension();
    }
  }
  for (let i = 0; i < sg.operatorsLength(); i++) {
    const o = sg.operators(i)!;
    o.opcodeIndex();
    for (let k = 0; k < o.inputsLength(); k++) o.inputs(k);
    for (let k = 0; k < o.outputsLength(); k++) o.outputs(k);
    o.builtinOptionsType();
    o.builtinOptions(new S.Conv2DOptions())?.strideH();
    o.customOptionsLength();
  }
  for (let i = 0; i < sg.inputsLength(); i++) sg.inputs(i);
  for (let i = 0; i < sg.outputsLength(); i++) sg.outputs(i);
  for (let i = 0; i < m.buffersLength(); i++) m.buffers(i)!.dataLength();
  for (let i = 0; i < m.metadataLength(); i++) m.metadata(i)!.name();
  for (let i = 0; i < m.signatureDefsLength(); i++) {
    const s = m.signatureDefs(i)!;
    s.signatureKey();
    for (let k = 0; k < s.inputsLength(); k++) s.inputs(k)!.name();
  }
  return { int32s: [...bb.int32s].sort((a, b) => a - b), int16s: [...bb.int16s].sort((a, b) => a - b) };
}

interface FuzzResult {
  readonly loaded: number;
  readonly codes: Record<string, number>;
  readonly maxMs: number;
  readonly failures: string[];
}

function fuzzModel(name: string, bytes: Uint8Array, cases: number): FuzzResult {
  const rng = seedrandom(`mcusim-fuzz:${name}`);
  const int = (n: number): number => Math.floor(rng() * n);
  const { int32s, int16s } = structuralFields(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const saved: [number, number][] = [];
  const setByte = (pos: number, value: number): void => {
    saved.push([pos, bytes[pos] ?? 0]);
    bytes[pos] = value & 0xff;
  };
  const setWord = (pos: number, value: number, width: 2 | 4): void => {
    for (let k = 0; k < width; k++) setByte(pos + k, Math.floor(value / 2 ** (8 * k)) & 0xff);
  };
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  /** A position anywhere, or near a structural field (where damage matters most). */
  const position = (): number => (rng() < 0.5 ? int(bytes.length) : Math.min(bytes.length - 1, pick(int32s) + int(4)));

  const codes: Record<string, number> = {};
  const failures: string[] = [];
  let loaded = 0;
  let maxMs = 0;
  for (let c = 0; c < cases; c++) {
    let input = bytes;
    const kind = int(5);
    const count = 1 + int(3);
    for (let k = 0; k < count; k++) {
      if (kind === 0) {
        const p = position();
        setByte(p, (bytes[p] ?? 0) ^ (1 << int(8)));
      } else if (kind === 1) {
        setByte(position(), pick([0, 0xff, 0x7f, 0x80, int(256)]));
      } else if (kind === 2) {
        const p = pick(int32s);
        const old = view.getUint32(p, true);
        setWord(p, pick([0, 0xffffffff, 0x7fffffff, 0x80000000, int(2 ** 32), old + int(129) - 64, old * 2, bytes.length - p, bytes.length - p - 2]) >>> 0, 4);
      } else if (kind === 3) {
        const p = pick(int16s);
        setWord(p, pick([0, 0xffff, 0x8000, int(2 ** 16), view.getUint16(p, true) + int(17) - 8]) & 0xffff, 2);
      }
    }
    if (kind === 4) input = bytes.subarray(0, rng() < 0.5 ? int(bytes.length) : Math.min(bytes.length, (int32s.at(-1) ?? 0) + 8) - int(64));

    const t0 = performance.now();
    try {
      const model = importTflite(input);
      loaded++;
      if (bytes.length <= REEXPORT_MAX_BYTES) importTflite(exportTflite(model));
    } catch (e) {
      if (e instanceof ModelError) codes[e.code] = (codes[e.code] ?? 0) + 1;
      else failures.push(`${name} seed 'mcusim-fuzz:${name}' case ${c} (mutation ${kind}): ${String(e)}`);
    }
    maxMs = Math.max(maxMs, performance.now() - t0);
    for (let k = saved.length - 1; k >= 0; k--) {
      const [p, v] = saved[k]!;
      bytes[p] = v;
    }
    saved.length = 0;
  }
  return { loaded, codes, maxMs, failures };
}

function fuzzFolder(dir: string, cases: number, atLeast: number): void {
  const models = tfliteNames(dir).map((n) => `${n}.tflite`);
  it(`has the models of ${dir}`, () => expect(models.length).toBeGreaterThanOrEqual(atLeast));

  for (const name of models) {
    it(`${name}: ${cases} mutants load or throw ModelError`, () => {
      const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
      const pristine = Buffer.from(bytes);
      const r = fuzzModel(name, bytes, cases);
      console.log(`fuzz ${name}: ${cases} cases, ${r.loaded} loaded, refused ${JSON.stringify(r.codes)}, max ${r.maxMs.toFixed(1)} ms/case`);
      expect(r.failures).toEqual([]);
      expect(Buffer.from(bytes).equals(pristine)).toBe(true);
      expect(r.loaded + Object.values(r.codes).reduce((a, b) => a + b, 0)).toBe(cases);
    });
  }
}

describe('importTflite under seeded mutation', () => {
  describeWithData('models', 'TFLM example models', () => fuzzFolder(MODELS, CASES_PER_MODEL, 5));
  describeWithData('models-real', 'real public models', () => fuzzFolder(REAL_MODELS, CASES_PER_REAL_MODEL, 10));
});
