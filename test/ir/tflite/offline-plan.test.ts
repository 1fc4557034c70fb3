// OfflineMemoryAllocation metadata: write, read back through a .tflite round trip, and refuse
// malformed plans with E_MODEL_METADATA.
import { ByteBuffer } from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/ir/graph.ts';
import { OFFLINE_PLAN_METADATA_NAME, readOfflinePlan, withOfflinePlan } from '../../../src/ir/offline-plan.ts';
import { encodeTflite, exportTflite } from '../../../src/ir/tflite/export-tflite.ts';
import { importTflite } from '../../../src/ir/tflite/import-tflite.ts';
import * as S from '../../../src/ir/tflite/schema-generated.ts';
import { buildZooModel } from '../../../src/ir/zoo/index.ts';
import { computeModelBufferRequests, planBuffers, planGreedy } from '../../../src/optimizer/index.ts';
import { codeOf, convModel } from './fixtures.ts';

function words(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  values.forEach((v, i) => new DataView(bytes.buffer).setInt32(i * 4, v, true));
  return bytes;
}
const withRawPlan = (m: Model, data: Uint8Array): Model => ({ ...m, metadata: [...m.metadata, { name: OFFLINE_PLAN_METADATA_NAME, data }] });

describe('offline plan metadata', () => {
  it('is absent by default', () => {
    expect(readOfflinePlan(convModel())).toBeNull();
  });

  it('round-trips through a .tflite file as TFLM reads it', () => {
    const m = withOfflinePlan(convModel(), [0, -1, -1, 192]);
    expect([...(readOfflinePlan(m) ?? [])]).toEqual([0, -1, -1, 192]);
    const bytes = exportTflite(m);
    const back = importTflite(bytes);
    expect([...(readOfflinePlan(back) ?? [])]).toEqual([0, -1, -1, 192]);

    const fb = S.Model.getRootAsModel(new ByteBuffer(bytes));
    expect(fb.metadata(0)?.name()).toBe(OFFLINE_PLAN_METADATA_NAME);
    const data = fb.buffers(fb.metadata(0)!.buffer())!.dataArray()!;
    expect(data.byteOffset % 4).toBe(0);
    expect([...new Int32Array(data.buffer, data.byteOffset, data.length / 4)]).toEqual([1, 0, 4, 0, -1, -1, 192]);
  });

  it('replaces an existing plan instead of adding a second one', () => {
    const m = withOfflinePlan(withOfflinePlan(convModel(), [0, 0, 0, 0]), [16, -1, -1, 32]);
    expect(m.metadata.filter((e) => e.name === OFFLINE_PLAN_METADATA_NAME)).toHaveLength(1);
    expect([...(readOfflinePlan(m) ?? [])]).toEqual([16, -1, -1, 32]);
  });

  it('refuses offsets that do not fit the graph', () => {
    expect(codeOf(() => withOfflinePlan(convModel(), [0, 1]))).toBe('E_MODEL_METADATA');
    expect(codeOf(() => withOfflinePlan(convModel(), [0, -2, 0, 0]))).toBe('E_MODEL_METADATA');
    expect(codeOf(() => withOfflinePlan(convModel(), [0, 0.5, 0, 0]))).toBe('E_MODEL_METADATA');
  });

  it('refuses malformed plans on read and on import', () => {
    const bad = [
      words([1, 0, 3, 0, 0, 0]), // tensor count
      words([1, 0, 4, 0, 0, 0]), // too short for the count
      words([1, 0, 4, 0, -7, 0, 0]), // offset
      new Uint8Array(13),
      new Uint8Array(0),
    ];
    for (const data of bad) {
      const m = withRawPlan(convModel(), data);
      expect(codeOf(() => readOfflinePlan(m))).toBe('E_MODEL_METADATA');
      expect(codeOf(() => importTflite(encodeTflite(m)))).toBe('E_MODEL_METADATA');
    }
    const twice = withRawPlan(withOfflinePlan(convModel(), [0, 0, 0, 0]), words([1, 0, 4, 0, 0, 0, 0]));
    expect(codeOf(() => readOfflinePlan(twice))).toBe('E_MODEL_METADATA');
  });

  // TFLM's GetOfflinePlannedOffsets reads only word 2 (the count) and the offsets after it.
  it.each([
    ['XMOS', [0, 0]],
    ['Vela', [0, 1]],
    ['arbitrary', [-7, 12345]],
  ])('reads a file whose header words are %s-style %j, with its offsets', (_who, head) => {
    const zoo = buildZooModel('ds-cnn-kws');
    const requests = computeModelBufferRequests(zoo);
    const plan = planGreedy(requests);
    const offsets = zoo.graph.tensors.map(() => -1);
    requests.forEach((r, i) => {
      if (r.tensor !== null) offsets[r.tensor] = plan.offsets[i] ?? -1;
    });
    const bytes = exportTflite(withOfflinePlan(zoo, offsets));
    // Rewrite the first two words in the file, as the other compilers write them.
    const fb = S.Model.getRootAsModel(new ByteBuffer(bytes));
    const data = fb.buffers(fb.metadata(0)!.buffer())!.dataArray()!;
    const view = new DataView(data.buffer, data.byteOffset, data.length);
    expect([view.getInt32(0, true), view.getInt32(4, true), view.getInt32(8, true)]).toEqual([1, 0, offsets.length]);
    view.setInt32(0, head[0]!, true);
    view.setInt32(4, head[1]!, true);

    const back = importTflite(bytes);
    expect([...(readOfflinePlan(back) ?? [])]).toEqual(offsets);
    const again = computeModelBufferRequests(back);
    expect(again.filter((r) => r.tensor !== null).map((r) => r.offlineOffsetBytes)).toEqual(requests.filter((r) => r.tensor !== null).map((r) => offsets[r.tensor!]));
    const replanned = planBuffers('tflm-greedy', again, back.graph);
    expect(replanned.offsets).toEqual(plan.offsets);
    // A plan mcusim writes still starts [1, 0, n].
    const out = exportTflite(withOfflinePlan(back, offsets));
    const fb2 = S.Model.getRootAsModel(new ByteBuffer(out));
    const d2 = fb2.buffers(fb2.metadata(0)!.buffer())!.dataArray()!;
    expect([...new Int32Array(d2.slice().buffer, 0, 3)]).toEqual([1, 0, offsets.length]);
  });
});
