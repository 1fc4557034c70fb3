// The simulated tensor arena (DESIGN.md §3): one byte array of the planned size, read by kernels
// through whole-arena typed views at absolute offsets. Constants are not stored here; they stay
// in the model's read-only region (the tensors' own bytes).
import { UsageError } from '../ir/index.ts';
import type { ArenaViews } from '../kernels/index.ts';
import { makeArenaViews } from '../kernels/index.ts';

export class Arena {
  readonly sizeBytes: number;
  /** Exactly `sizeBytes` long; the backing buffer is padded to a multiple of 8 for the views. */
  readonly bytes: Uint8Array;
  readonly views: ArenaViews;

  /** `buffer`: memory to hold the arena at its start (the WebAssembly kernels' linear memory). */
  constructor(sizeBytes: number, buffer?: ArrayBuffer) {
    if (!Number.isInteger(sizeBytes) || sizeBytes < 0 || sizeBytes > 2 ** 31 - 1) throw new UsageError(`invalid arena size ${sizeBytes}`);
    buffer ??= new ArrayBuffer(Math.max(8, Math.ceil(sizeBytes / 8) * 8));
    this.sizeBytes = sizeBytes;
    this.bytes = new Uint8Array(buffer, 0, sizeBytes);
    this.views = makeArenaViews(buffer);
  }

  read(offsetBytes: number, lengthBytes: number): Uint8Array {
    this.check(offsetBytes, lengthBytes);
    return this.bytes.slice(offsetBytes, offsetBytes + lengthBytes);
  }

  write(offsetBytes: number, data: Uint8Array): void {
    this.check(offsetBytes, data.length);
    this.bytes.set(data, offsetBytes);
  }

  fill(value: number): void {
    this.bytes.fill(value);
  }

  private check(offsetBytes: number, lengthBytes: number): void {
    if (offsetBytes < 0 || lengthBytes < 0 || offsetBytes + lengthBytes > this.sizeBytes) {
      throw new UsageError(`arena access [${offsetBytes}, ${offsetBytes + lengthBytes}) outside arena of ${this.sizeBytes} bytes`);
    }
  }
}
