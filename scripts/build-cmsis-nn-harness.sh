#!/usr/bin/env bash
# Builds the real-library harness of test/kernels/cmsis-nn/real-library.test.ts: ARM's CMSIS-NN C
# sources (Source/**/*.c of the tree given, integer kernels) compiled with the flags of TFLM's
# cortex_m_generic build for the CPU (cortex-m7: cortex-m7+fp, DSP, as scripts/run-tflm.sh; cortex-m55:
# MVE; cortex-m3: plain C), archived, and linked with test/kernels/cmsis-nn/real/harness.c, the startup of
# test/codegen/tflm/, the machine's linker script (QEMU mps2-an500: test/codegen/tflm/mps2_an500.ld;
# mps3-an547 and mps2-an385: test/kernels/cmsis-nn/real/*.ld) and newlib's librdimon (semihosting
# files). No CMSIS-NN source is kept here: the tree comes from the user (git clone https://github.com/ARM-software/CMSIS-NN).
#   usage: scripts/build-cmsis-nn-harness.sh CMSIS_NN_DIR OUT_DIR [cortex-m7|cortex-m55|cortex-m3]   (writes OUT_DIR/harness.elf)
# Exit 2 on a usage or build problem.
set -euo pipefail
src="${1:?usage: scripts/build-cmsis-nn-harness.sh CMSIS_NN_DIR OUT_DIR}"
out="${2:?usage: scripts/build-cmsis-nn-harness.sh CMSIS_NN_DIR OUT_DIR}"
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$src/Include/arm_nnfunctions.h" ] || { echo "build-cmsis-nn-harness: $src is not a CMSIS-NN tree (no Include/arm_nnfunctions.h)" >&2; exit 2; }
command -v arm-none-eabi-gcc > /dev/null || { echo "build-cmsis-nn-harness: arm-none-eabi-gcc not found" >&2; exit 2; }
t="$root/test/codegen/tflm"
# TFLM's cortex_m_generic flags that change code (its Makefile; scripts/run-tflm.sh).
case "${3:-cortex-m7}" in
  cortex-m7) cpu=(-mcpu=cortex-m7 -mfpu=auto -mfloat-abi=hard); ld="$t/mps2_an500.ld" ;;
  cortex-m55) cpu=(-mcpu=cortex-m55 -mfloat-abi=hard); ld="$root/test/kernels/cmsis-nn/real/mps3_an547.ld" ;;
  cortex-m3) cpu=(-mcpu=cortex-m3 -mfloat-abi=soft); ld="$root/test/kernels/cmsis-nn/real/mps2_an385.ld" ;;
  *) echo "build-cmsis-nn-harness: CPU must be cortex-m7, cortex-m55 or cortex-m3, not $3" >&2; exit 2 ;;
esac
cpu+=(-mthumb -mlittle-endian -funsigned-char)
cflags=(-std=c99 -O2 -ffunction-sections -fdata-sections "${cpu[@]}" -I"$src/Include")
mkdir -p "$out/obj"
lib="$out/libcmsis-nn.a"
if [ ! -f "$lib" ]; then
  # Floating-point kernels (_f16, _f32) are off in TFLM's build (ARM_NN_ENABLE_F32/F16 = 0).
  find "$src/Source" -name '*.c' ! -name '*_f16.c' ! -name '*_f32.c' -print0 \
    | xargs -0 -P "$(nproc)" -I{} sh -c 'arm-none-eabi-gcc "$@" -c "$0" -o "'"$out"'/obj/$(basename "$0" .c).o"' {} "${cflags[@]}" \
    || { echo "build-cmsis-nn-harness: compiling CMSIS-NN failed" >&2; exit 2; }
  arm-none-eabi-ar rcs "$lib.tmp" "$out"/obj/*.o && mv "$lib.tmp" "$lib"
fi
arm-none-eabi-gcc -std=c99 -O2 "${cpu[@]}" -c "$t/startup_m7.c" -o "$out/startup_m7.o"
arm-none-eabi-gcc "${cflags[@]}" -Wall -Wextra -c "$root/test/kernels/cmsis-nn/real/harness.c" -o "$out/harness.o"
arm-none-eabi-gcc "${cpu[@]}" -nostartfiles --specs=rdimon.specs -L "$root/test/kernels/cmsis-nn/real" -T "$ld" -Wl,--gc-sections \
  "$out/startup_m7.o" "$out/harness.o" "$lib" -lm -o "$out/harness.elf.tmp" \
  || { echo "build-cmsis-nn-harness: linking the harness failed" >&2; exit 2; }
mv "$out/harness.elf.tmp" "$out/harness.elf"
