#!/usr/bin/env bash
# Builds TFLM's microlite library for the host from the tree named by MCUSIM_TFLM_DIR (tflite-micro
# at 90b983c, e.g. `git archive` of a clone) and the generic runner test/codegen/tflm/ links with the
# kernels `mcusim codegen --tflm` writes (docs/deploy-tflm.md). TFLM's Makefile downloads flatbuffers,
# gemmlowp, ruy and kissfft; where there is no network, name local git clones and they are exported
# at the commits / tags the Makefile pins (third_party_downloads.inc) and patched as its scripts do:
#   MCUSIM_TFLM_DEPS=DIR   DIR/{flatbuffers,gemmlowp,ruy,kissfft} are git directories (bare or not)
# Build once per machine (about 20 minutes on 2 cores); it prints the library's path.
#   usage: MCUSIM_TFLM_DIR=/path/to/tflite-micro [MCUSIM_TFLM_DEPS=DIR] scripts/build-tflm.sh [JOBS]
set -euo pipefail
: "${MCUSIM_TFLM_DIR:?set MCUSIM_TFLM_DIR to a tflite-micro tree (commit 90b983c)}"
JOBS="${1:-1}"
T="$MCUSIM_TFLM_DIR"
MK="$T/tensorflow/lite/micro/tools/make"
DL="$MK/downloads"
[ -f "$MK/Makefile" ] || { echo "build-tflm: $T is not a tflite-micro tree (no $MK/Makefile)" >&2; exit 2; }
mkdir -p "$DL"

# name  revision  patch (relative to the tree, empty = none): as third_party_downloads.inc pins them.
deps=(
  "flatbuffers v25.9.23 tensorflow/lite/micro/tools/make/flatbuffers.patch"
  "gemmlowp 719139ce755a0f31cbf1c37f7f98adcc7fc9f425 -"
  "ruy d37128311b445e758136b8602d1bbd2a755e115d -"
  "kissfft v130 third_party/kissfft/kissfft.patch"
)
for d in "${deps[@]}"; do
  read -r name rev patch <<< "$d"
  [ -d "$DL/$name" ] && continue
  src="${MCUSIM_TFLM_DEPS:+$MCUSIM_TFLM_DEPS/$name}"
  if [ -z "$src" ]; then
    echo "build-tflm: $DL/$name is missing; set MCUSIM_TFLM_DEPS to a folder of git clones, or let TFLM's Makefile download it" >&2
    continue
  fi
  mkdir -p "$DL/$name.tmp"
  git --git-dir="$(git -C "$src" rev-parse --absolute-git-dir 2>/dev/null || echo "$src")" archive "$rev" | tar -x -C "$DL/$name.tmp"
  if [ "$patch" != "-" ]; then patch -s -p1 -d "$DL/$name.tmp" < "$T/$patch"; fi
  mv "$DL/$name.tmp" "$DL/$name"
done
# pigweed is cloned at Makefile parse time but only its test helpers use it; an empty folder skips the clone.
mkdir -p "$DL/pigweed"

# The examples, integration tests and benchmarks generate sources with Python (PIL, numpy) when the
# Makefile is read; microlite needs none of them.
SKIP=(MICRO_LITE_EXAMPLE_TESTS= MICRO_LITE_INTEGRATION_TESTS= MICRO_LITE_GEN_MUTABLE_OP_RESOLVER_TEST=
  MICRO_LITE_LAYER_BY_LAYER_OUTPUT= OLD_MICRO_LITE_BENCHMARKS= MICRO_LITE_BENCHMARKS= MICROLITE_TEST_SRCS=)
nice -n 19 make -C "$T" -f tensorflow/lite/micro/tools/make/Makefile -j"$JOBS" TARGET=linux TARGET_ARCH=x86_64 BUILD_TYPE=default "${SKIP[@]}" microlite >&2
lib=$(ls -1 "$T"/gen/linux_x86_64_default*/lib/libtensorflow-microlite.a 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "build-tflm: no libtensorflow-microlite.a under $T/gen" >&2; exit 1; }
echo "$lib"
