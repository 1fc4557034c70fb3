#!/usr/bin/env node
// mcusim command-line entry: runs the compiled CLI (dist/, from `npm run build`, which `npm ci`
// and `npm install` run through `prepare`) and hands it argv; src/cli/main.ts maps every error to
// an exit code and a one-line message. A checkout without dist/ gets told to build, never a
// silent fallback to the TypeScript sources.
//
// A reader that closes the pipe early (`mcusim inspect M --json | head -c 100`) makes the next
// write fail with EPIPE: nobody reads any more, so stop quietly with the code reached so far
// instead of an unhandled-error stack trace. Any other stream error is rethrown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e?.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
}
// The CLI runs from CommonJS bundles loaded with their V8 code caches (src/cli/bundle-loader.ts):
// main, then the commands bundle on its first command import.
const loader = new URL('../dist/cli/bundle-loader.js', import.meta.url);
const bundle = new URL('../dist/cli/bundle/main.cjs', import.meta.url);
let main;
try {
  const { loadBundle } = await import(loader.href);
  ({ main } = loadBundle('main'));
} catch (e) {
  const missing = (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(loader.pathname)) || (e?.code === 'ENOENT' && e.path === bundle.pathname);
  process.stderr.write(missing
    ? `E_INTERNAL: mcusim is not built (${e?.code === 'ENOENT' ? bundle.pathname : loader.pathname} is missing): run \`npm run build\` in ${new URL('..', import.meta.url).pathname}\n`
    : `E_INTERNAL: mcusim failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(70);
}
process.exitCode = await main(process.argv);
