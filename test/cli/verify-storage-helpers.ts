// The in-process half of verify's TinySeg storage round trip, one device per call so each device's
// traced Tiny U-Net runs can sit in their own test file (the forks share them, issue 15):
// verify-storage.test.ts (internal), verify-storage-external.test.ts, verify-storage-remote.test.ts.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';
import { verifyModels, verifyPassed } from '../../src/api/index.ts';

export type StorageKind = 'internal' | 'external' | 'remote';

/** verifyModels on Tiny U-Net spilled by TinySeg (plain Fetching), on each device given. */
export function describeStorageRoundTrip(devices: readonly StorageKind[]): void {
  describe('verify runs the TinySeg storage round trip on the chosen device', () => {
    const unet = buildZooModel('tiny-unet');
    // Without fused fetching the slot is read by a plain Fetching, which decodes MFV as it streams.
    let plainModel: ReturnType<typeof runPipeline>['model'] | null = null;
    const plain = (): ReturnType<typeof runPipeline>['model'] => (plainModel ??= runPipeline(unet, ['tinyseg'], { flags: { fusedFetching: false } }).model);
    for (const storage of devices) {
      it(`in process: ${storage}${storage !== 'internal' ? ', compressed' : ''}: round trip clean and reported`, () => {
        const r = verifyModels(unet, plain(), 1, { storage, compress: storage !== 'internal' });
        expect(verifyPassed(r), storage).toBe(true);
        expect(r.storage, storage).toMatchObject({ transfers: 2, violations: [], compressed: storage !== 'internal' });
        if (storage === 'internal') expect(r.storage?.storedBytes).toBe(76800);
        else expect(r.storage?.storedBytes).toBeLessThan(76800);
      });
    }
  });
}
