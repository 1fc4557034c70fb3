// The page's stand-in for `node:crypto` (scripts/build.mjs maps the import here in the web bundle
// only): createHash as src/kernels/lower-js.ts uses it, a memo key of the O_s walks (updates of
// text and bytes, then one digest). A browser has no synchronous SHA-256, so the "digest" is the
// hashed text itself: equal keys still mean equal inputs (every update there is length-prefixed),
// and no two inputs can share a key, which a hash only makes unlikely. The Node build keeps Node's.

export interface Hash {
  update(data: string | ArrayBufferView): Hash;
  digest(encoding?: string): string;
}

function bytesText(data: ArrayBufferView): string {
  const u8 = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let s = '';
  for (let i = 0; i < u8.length; i += 8192) s += String.fromCharCode(...u8.subarray(i, i + 8192));
  return s;
}

export function createHash(algorithm: string): Hash {
  const parts: string[] = [`${algorithm}:`];
  const hash: Hash = {
    update(data) {
      parts.push(typeof data === 'string' ? `s${data.length}:${data}` : `b${data.byteLength}:${bytesText(data)}`);
      return hash;
    },
    digest: () => parts.join(''),
  };
  return hash;
}
