// Builds the spill store a `--storage internal|external|remote` option names, with the
// timing parameters of the chosen target profile.

import { UsageError } from '../../ir/index.ts';
import type { TargetProfile } from '../targets/index.ts';
import { spillPart } from '../targets/index.ts';
import type { FlashOptions } from './internal-flash.ts';
import { InternalFlash } from './internal-flash.ts';
import { QspiFlash } from './qspi-flash.ts';
import { RemoteHost } from './remote-host.ts';
import type { StorageDevice, StorageKind } from './storage-device.ts';

export const STORAGE_KINDS: readonly StorageKind[] = ['internal', 'external', 'remote'];

export function isStorageKind(name: string): name is StorageKind {
  return (STORAGE_KINDS as readonly string[]).includes(name);
}

export function createStorage(target: TargetProfile, kind: string, options: FlashOptions = {}): StorageDevice {
  if (!isStorageKind(kind)) {
    throw new UsageError(`unknown storage '${kind}'; known: ${STORAGE_KINDS.join(', ')}`);
  }
  switch (kind) {
    case 'internal':
      return new InternalFlash(spillPart(target, 'internalFlash', '--storage internal'), options);
    case 'external':
      return new QspiFlash(spillPart(target, 'qspiFlash', '--storage external'), options);
    case 'remote':
      return new RemoteHost(spillPart(target, 'remoteHost', '--storage remote'), target.mainCore);
    default: {
      const never: never = kind;
      throw new UsageError(`unknown storage '${String(never)}'`);
    }
  }
}
