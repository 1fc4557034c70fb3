#!/usr/bin/env bash
# Refreshes testdata/ (the public test data the suite and the README's examples read) from the
# shared oracle folder: ../shared/oracle beside the repository, or the folder given as $1.
# Copies the listed parts whole and leaves out any file over 5 MB; testdata/README.md (ours) stays,
# the oracle's own README becomes testdata/ORACLE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:-../shared/oracle}"
[ -d "$src" ] || { echo "no oracle folder at $src (give its path as the first argument)" >&2; exit 2; }
dirs=(vectors models models-extra models-real op-models latency cmsis-nn-m7)
for p in "${dirs[@]}" README.md arena-cortex-m7.json; do
  [ -e "$src/$p" ] || { echo "missing $src/$p" >&2; exit 2; }
done
mkdir -p testdata
for p in "${dirs[@]}"; do
  rm -rf "testdata/$p"
  cp -R "$src/$p" "testdata/$p"
  chmod -R u+w "testdata/$p"
done
cp "$src/README.md" testdata/ORACLE.md
cp "$src/arena-cortex-m7.json" testdata/arena-cortex-m7.json
chmod u+w testdata/ORACLE.md testdata/arena-cortex-m7.json
big=$(find testdata -type f -size +5M -print)
[ -z "$big" ] || { echo "left out (over 5 MB):"; echo "$big"; echo "$big" | xargs rm -f; }
echo "testdata/ refreshed from $src: $(find testdata -type f | wc -l) files, $(du -sh testdata | cut -f1)"
