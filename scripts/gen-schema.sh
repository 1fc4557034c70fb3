#!/usr/bin/env bash
# Regenerates src/ir/tflite/schema-generated.ts from ../shared/tflite/schema.fbs.
# Needs flatc 2.0.8 (Debian: apt-get install flatbuffers-compiler). Debian's flatc rejects
# attributes on enum values, so the `(deprecated)` markers are stripped in a temp copy.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
sed -E 's/ *\(deprecated\)//g' "$here/../shared/tflite/schema.fbs" > "$tmp/schema.fbs"
flatc --ts --ts-flat-files -o "$tmp/out" "$tmp/schema.fbs"
out="$here/src/ir/tflite/schema-generated.ts"
{
  echo "// GENERATED FILE, do not edit. Made by scripts/gen-schema.sh:"
  echo "//   flatc $(flatc --version | awk '{print $3}') --ts --ts-flat-files schema.fbs (../shared/tflite/schema.fbs, '(deprecated)' stripped)"
  echo "// Runtime: the 'flatbuffers' npm package pinned in package.json."
  echo "/* eslint-disable */"
  cat "$tmp/out/schema_generated.ts"
} > "$out"
echo "wrote $out"
