// vitest setup file: one macrotask turn after every test. A test that runs synchronously is awaited
// through microtasks only, so a file of such tests blocked its worker's event loop from its first
// test to its last; vitest's worker RPC (onTaskUpdate) times out after 60 s without an answer, and
// on a loaded 2-core machine the import fuzz file's 17 tests took 74 s ("Timeout calling
// onTaskUpdate", an unhandled error that fails the run). A turn between tests lets the answers in.
import { afterEach } from 'vitest';

afterEach(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
