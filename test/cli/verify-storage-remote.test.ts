// verify's TinySeg storage round trip in process on the remote device, MFV-compressed: a file of its own
// so the forks share the traced Tiny U-Net runs (issue 15; verify-storage-helpers.ts).
import { describeStorageRoundTrip } from './verify-storage-helpers.ts';

describeStorageRoundTrip(['remote']);
