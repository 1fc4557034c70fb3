// Adds lockfile entries for platform-specific optional packages that the npm mirror used here
// does not serve (e.g. @rollup/rollup-android-arm-eabi): `npm install` then leaves them out of
// package-lock.json, and npm 11's `npm ci` refuses a lockfile that misses any optional
// dependency. Each added entry carries its os/cpu/libc so npm skips it on this platform.
// Run after `npm install` whenever package-lock.json changes: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const pkgs = lock.packages;

/** os / cpu / libc of a platform package, from its name (rollup and esbuild naming). */
function platformOf(name) {
  const tail = name.split('/').pop();
  const os = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'netbsd', 'sunos', 'aix'].find((o) => tail.includes(o));
  const cpuMap = [['arm64', 'arm64'], ['x64', 'x64'], ['ia32', 'ia32'], ['loong64', 'loong64'], ['ppc64', 'ppc64'], ['riscv64', 'riscv64'], ['s390x', 's390x'], ['arm', 'arm']];
  const cpu = cpuMap.find(([k]) => tail.includes(k))?.[1];
  const libc = tail.includes('musl') ? 'musl' : os === 'linux' && tail.includes('gnu') ? 'glibc' : undefined;
  return os && cpu ? { os, cpu, libc } : null;
}

let added = 0;
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `${path ? `${path}/` : ''}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (pkgs[key] || pkgs[hoisted]) continue;
    const p = platformOf(dep);
    if (p === null) continue;
    pkgs[hoisted] = {
      version,
      cpu: [p.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(p.libc ? { libc: [p.libc] } : {}),
      optional: true,
      os: [p.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
