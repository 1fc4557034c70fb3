#!/usr/bin/env bash
# Refreshes the project's own test data in testdata/ from the oracle folder (../shared/oracle beside
# the repository, or the folder given as $1): the kernel vectors, the op-models made with
# TensorFlow's converter, and the Cortex-M7 arena figures. Nothing fetched is copied (TFLM's example
# models, the real public models, the MLPerf models: the tests read those from the oracle folder);
# testdata/README.md, testdata/vectors/README.md and testdata/real-builds/ are the project's own and stay.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:-../shared/oracle}"
[ -d "$src" ] || { echo "no oracle folder at $src (give its path as the first argument)" >&2; exit 2; }
for p in vectors op-models arena-cortex-m7.json; do
  [ -e "$src/$p" ] || { echo "missing $src/$p" >&2; exit 2; }
done
keep=$(mktemp)
cp testdata/vectors/README.md "$keep"
for p in vectors op-models; do
  rm -rf "testdata/$p"
  cp -R "$src/$p" "testdata/$p"
  chmod -R u+w "testdata/$p"
done
cp "$keep" testdata/vectors/README.md && rm -f "$keep"
cp "$src/arena-cortex-m7.json" testdata/arena-cortex-m7.json
chmod u+w testdata/arena-cortex-m7.json
echo "testdata/ refreshed from $src: $(find testdata -type f | wc -l) files, $(du -sh testdata | cut -f1)"
