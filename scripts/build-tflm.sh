#!/usr/bin/env bash
# Builds TFLM's microlite library for the host (or, with MCUSIM_TFLM_TARGET=cortex-m7, for Cortex-M7 under
# QEMU mps2-an500: TFLM's cortex_m_generic target, cortex-m7+fp = -mcpu=cortex-m7 -mfpu=auto (fpv5-d16)
# -mfloat-abi=hard, reference kernels, the system arm-none-eabi-gcc) from the tree named by MCUSIM_TFLM_DIR (tflite-micro
# at 90b983c, e.g. `git archive` of a clone) and the generic runner test/codegen/tflm/ links with the
# kernels `mcusim codegen --tflm` writes (docs/deploy-tflm.md). TFLM's Makefile downloads flatbuffers,
# gemmlowp, ruy and kissfft; where there is no network, name local git clones and they are exported
# at the commits / tags the Makefile pins (third_party_downloads.inc) and patched as its scripts do:
#   MCUSIM_TFLM_DEPS=DIR   DIR/{flatbuffers,gemmlowp,ruy,kissfft} are git directories (bare or not)
# Build once per machine (about 20 minutes on 2 cores); it prints the library's path.
# MCUSIM_TFLM_KERNEL_LIB=cmsis-nn (cortex-m7 only) builds TFLM with OPTIMIZED_KERNEL_DIR=cmsis_nn (its
# kernels/cmsis_nn/*.cc and CMSIS-NN's C sources, gen/..._default_cmsis_nn_gcc) from the CMSIS-NN tree
# named by MCUSIM_CMSIS_NN_DIR (ARM-software/CMSIS-NN at 4ab83cc3, the commit cmsis_nn_download.sh pins)
# instead of the download.
#   usage: MCUSIM_TFLM_DIR=/path/to/tflite-micro [MCUSIM_TFLM_DEPS=DIR] [MCUSIM_TFLM_KERNELS="..."]
#          [MCUSIM_TFLM_TARGET=host|cortex-m7] [MCUSIM_TFLM_KERNEL_LIB=reference|cmsis-nn]
#          [MCUSIM_CMSIS_NN_DIR=DIR] scripts/build-tflm.sh [JOBS]
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

# The examples, integration tests and benchmarks generate sources with Python (PIL) when the
# Makefile is read, and emptying the test list would put the tests into the library: so the library's
# sources are listed once (tests dropped) and handed to the Makefile, which compiles them with its
# own flags. MCUSIM_TFLM_KERNELS="add conv ..." keeps only those kernels (each with its _common.cc;
# kernel_util and micro_tensor_utils always) and drops the signal library: the runner's set builds
# in a fraction of the time on a busy machine. Unset: every kernel. The runner's set (RUNNER_KERNELS,
# what test/codegen/tflm/runner.cc registers):
#   MCUSIM_TFLM_KERNELS="add pooling concatenation conv depthwise_conv dequantize fully_connected reduce pad
#     quantize reshape resize_nearest_neighbor softmax strided_slice transpose transpose_conv"
# cortex-m7: the toolchain is the system's (TARGET_TOOLCHAIN_ROOT, no download) and CMSIS is not
# downloaded: CMSIS_PATH names a folder holding only the device header cortex_m_generic/micro_time.cc
# includes, written here with the two registers it touches (ARMv7-M Architecture Reference Manual,
# C1.6.5 DEMCR at 0xE000EDFC, C1.8.7 DWT_CTRL / CYCCNT at 0xE0001000, DWT_LAR at 0xE0001FB0). The
# runner never reads the cycle counter (no profiler).
target="${MCUSIM_TFLM_TARGET:-host}"
case "$target" in
  host) TARGET_ARGS=(TARGET=linux TARGET_ARCH=x86_64); gen=linux_x86_64_default ;;
  cortex-m7)
    command -v arm-none-eabi-gcc > /dev/null || { echo "build-tflm: arm-none-eabi-gcc not found" >&2; exit 2; }
    h="$T/gen/no-cmsis/Cortex_DFP/Device/ARMCM7/Include"
    mkdir -p "$h"
    cat > "$h/ARMCM7.h.new" <<'EOF_H'
/* Written by mcusim's scripts/build-tflm.sh in place of CMSIS's ARMCM7.h: the DWT cycle counter and
 * DEMCR that TFLM's cortex_m_generic/micro_time.cc uses (ARMv7-M ARM C1.6.5, C1.8.7). */
#ifndef MCUSIM_ARMCM7_H
#define MCUSIM_ARMCM7_H
#include <stdint.h>
typedef struct { volatile uint32_t CTRL, CYCCNT; uint32_t reserved[1002]; volatile uint32_t LAR; } DWT_Type;
typedef struct { volatile uint32_t DHCSR, DCRSR, DCRDR, DEMCR; } DCB_Type;
#define DWT ((DWT_Type*)0xE0001000UL)
#define DCB ((DCB_Type*)0xE000EDF0UL)
#define DCB_DEMCR_TRCENA_Msk (1UL << 24)
#endif
EOF_H
    # Rewritten only when it changed: its date would otherwise rebuild micro_time.o every time.
    if cmp -s "$h/ARMCM7.h.new" "$h/ARMCM7.h"; then rm "$h/ARMCM7.h.new"; else mv "$h/ARMCM7.h.new" "$h/ARMCM7.h"; fi
    TARGET_ARGS=(TARGET=cortex_m_generic TARGET_ARCH=cortex-m7+fp TOOLCHAIN=gcc
      TARGET_TOOLCHAIN_ROOT="$(dirname "$(command -v arm-none-eabi-gcc)")/" CMSIS_PATH="$T/gen/no-cmsis")
    gen=cortex_m_generic_cortex-m7+fp_default ;;
  *) echo "build-tflm: MCUSIM_TFLM_TARGET must be host or cortex-m7, not $target" >&2; exit 2 ;;
esac
# The kernel library: reference (default) or cmsis-nn (TFLM's OPTIMIZED_KERNEL_DIR=cmsis_nn; its
# Makefile substitutes kernels/cmsis_nn/X.cc for kernels/X.cc and compiles CMSIS-NN's Source/*.c, float
# ones dropped as cmsis_nn.inc does with ARM_NN_ENABLE_F16/F32=0). CMSIS-NN needs no CMSIS-Core header.
klib="${MCUSIM_TFLM_KERNEL_LIB:-reference}"
case "$klib" in
  reference) ;;
  cmsis-nn)
    [ "$target" = cortex-m7 ] || { echo "build-tflm: MCUSIM_TFLM_KERNEL_LIB=cmsis-nn needs MCUSIM_TFLM_TARGET=cortex-m7" >&2; exit 2; }
    TARGET_ARGS+=(OPTIMIZED_KERNEL_DIR=cmsis_nn)
    if [ -n "${MCUSIM_CMSIS_NN_DIR:-}" ]; then
      [ -f "$MCUSIM_CMSIS_NN_DIR/Include/arm_nnfunctions.h" ] || { echo "build-tflm: $MCUSIM_CMSIS_NN_DIR is not a CMSIS-NN tree (no Include/arm_nnfunctions.h)" >&2; exit 2; }
      TARGET_ARGS+=(CMSIS_NN_PATH="$(cd "$MCUSIM_CMSIS_NN_DIR" && pwd)")
    fi
    gen="${gen}_cmsis_nn" ;;
  *) echo "build-tflm: MCUSIM_TFLM_KERNEL_LIB must be reference or cmsis-nn, not $klib" >&2; exit 2 ;;
esac
MK_ARGS=(-f tensorflow/lite/micro/tools/make/Makefile "${TARGET_ARGS[@]}" BUILD_TYPE=default
  MICRO_LITE_EXAMPLE_TESTS= MICRO_LITE_INTEGRATION_TESTS= MICRO_LITE_GEN_MUTABLE_OP_RESOLVER_TEST=
  MICRO_LITE_LAYER_BY_LAYER_OUTPUT= OLD_MICRO_LITE_BENCHMARKS= MICRO_LITE_BENCHMARKS= MICROLITE_TEST_SRCS=)
all=$(make -s -C "$T" "${MK_ARGS[@]}" list_library_sources 2>/dev/null | tr ' ' '\n' | grep -E '\.(cc|c|S)$' \
  | grep -vE '_test\.cc$|/test_helpers\.cc$|/test_helper_custom_ops\.cc$|/mock_micro_graph\.cc$|/fake_micro_context\.cc$|/kernel_runner\.cc$')
base=$(echo "$all" | grep -vE '(^|/)micro/kernels/')
kernels=$(echo "$all" | grep -E '(^|/)micro/kernels/')
third=()
if [ -n "${MCUSIM_TFLM_KERNELS:-}" ]; then
  keep="kernel_util micro_tensor_utils $MCUSIM_TFLM_KERNELS"
  kernels=$(echo "$kernels" | grep '^tensorflow/lite/micro/kernels/' | while read -r f; do
    b=$(basename "$f" .cc); b=${b%_common}
    for k in $keep; do if [ "$b" = "$k" ]; then echo "$f"; fi; done
  done)
  base=$(echo "$base" | grep -v '^signal/')
  third=(THIRD_PARTY_CC_SRCS= MICROLITE_CC_SIGNAL_KERNEL_SRCS=)
fi
echo "build-tflm: $(echo "$base" | wc -l) framework + $(echo "$kernels" | wc -l) kernel sources" >&2
nice -n 10 make -C "$T" "${MK_ARGS[@]}" -j"$JOBS" "${third[@]}" MICROLITE_CC_BASE_SRCS="$(echo $base)" MICROLITE_CC_KERNEL_SRCS="$(echo $kernels)" microlite >&2
lib=$(ls -1 "$T"/gen/"$gen"_gcc/lib/libtensorflow-microlite.a 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "build-tflm: no libtensorflow-microlite.a under $T/gen" >&2; exit 1; }
echo "$lib"
