// sizeof / alignof of a C struct described as a field list (kernels/tflm-memory.ts) under one
// arch's ABI: each field at the next multiple of its alignment, the struct aligned to its most
// aligned field and padded to a multiple of it (the C rule both GCC targets follow).
import type { CFieldType, CScalar, CStruct } from '../../kernels/index.ts';
import type { SizeAlign, TflmArch } from './arch.ts';

export const alignUp = (x: number, a: number): number => Math.ceil(x / a) * a;

function scalarLayout(t: CScalar, arch: TflmArch): SizeAlign {
  switch (t) {
    case 'bool':
    case 'int8':
    case 'uint8':
      return { sizeBytes: 1, alignBytes: 1 };
    case 'int16':
    case 'uint16':
      return { sizeBytes: 2, alignBytes: 2 };
    case 'int32':
    case 'float':
      return { sizeBytes: 4, alignBytes: 4 };
    case 'double':
    case 'int64':
      return { sizeBytes: 8, alignBytes: arch.doubleAlignBytes };
    case 'enum':
      return { sizeBytes: arch.enumBytes, alignBytes: arch.enumBytes };
    case 'ptr':
    case 'size_t':
      return { sizeBytes: arch.pointerBytes, alignBytes: arch.pointerBytes };
  }
}

function fieldLayout(t: CFieldType, arch: TflmArch): SizeAlign {
  if (typeof t === 'string') return scalarLayout(t, arch);
  if ('fields' in t) return structLayout(t, arch);
  const one = fieldLayout(t.of, arch);
  return { sizeBytes: one.sizeBytes * t.count, alignBytes: one.alignBytes };
}

/** Layouts by struct and arch: both are constants (kernel specs, the arch table), and a tiling
 * search lays out every op's structs once per candidate (about 7% of person_detect's search). */
const LAYOUTS = new WeakMap<CStruct, WeakMap<TflmArch, SizeAlign>>();

export function structLayout(s: CStruct, arch: TflmArch): SizeAlign {
  let byArch = LAYOUTS.get(s);
  if (byArch === undefined) {
    byArch = new WeakMap();
    LAYOUTS.set(s, byArch);
  }
  let l = byArch.get(arch);
  if (l === undefined) {
    l = computeLayout(s, arch);
    byArch.set(arch, l);
  }
  return l;
}

function computeLayout(s: CStruct, arch: TflmArch): SizeAlign {
  let offset = 0;
  let align = 1;
  for (const [, type] of s.fields) {
    const f = fieldLayout(type, arch);
    offset = alignUp(offset, f.alignBytes) + f.sizeBytes;
    align = Math.max(align, f.alignBytes);
  }
  return { sizeBytes: alignUp(offset, align), alignBytes: align };
}
