#!/usr/bin/env node
// mcusim command-line entry: registers tsx so the TypeScript sources run as they are, then
// hands argv to src/cli/main.ts, which maps every error to an exit code and a one-line message.
import { register } from 'tsx/esm/api';

register();
try {
  const { main } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
  process.exitCode = await main(process.argv);
} catch (e) {
  process.stderr.write(`E_INTERNAL: mcusim failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 70;
}
