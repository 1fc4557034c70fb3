#!/usr/bin/env bash
# Runs an mcusim-optimized .tflite in real TFLM (issue 45): `mcusim codegen FILE --tflm`, links the
# generated kernels and test/codegen/tflm/runner.cc with the libtensorflow-microlite.a that
# scripts/build-tflm.sh built in MCUSIM_TFLM_DIR, runs it on seeded random inputs and checks
#   outputs == `mcusim run FILE` (and == ORIGINAL.tflite's when given), arena_used_bytes ==
#   `mcusim inspect FILE --runtime tflm --arch ARCH` .arena.totalBytes.
# --arch host64 (default): the host build, run natively. --arch cortex-m: the Cortex-M7 build
# (MCUSIM_TFLM_TARGET=cortex-m7 scripts/build-tflm.sh), linked with newlib + librdimon, startup_m7.c
# and mps2_an500.ld, run under `qemu-system-arm -M mps2-an500` with files through semihosting.
# Prints one line `FILE: ...`; exit 0 when both hold, 1 when not, 2 on a usage or build problem.
#   usage: MCUSIM_TFLM_DIR=... scripts/run-tflm.sh [--arch host64|cortex-m] FILE.tflite [ORIGINAL.tflite] [SEED]
set -euo pipefail
: "${MCUSIM_TFLM_DIR:?set MCUSIM_TFLM_DIR to the tree scripts/build-tflm.sh built}"
arch=host64
if [ "${1:-}" = "--arch" ]; then arch="${2:?--arch needs host64 or cortex-m}"; shift 2; fi
file="${1:?usage: scripts/run-tflm.sh [--arch host64|cortex-m] FILE.tflite [ORIGINAL.tflite] [SEED]}"
orig="${2:-}"
seed="${3:-1}"
root=$(cd "$(dirname "$0")/.." && pwd)
T="$MCUSIM_TFLM_DIR"
case "$arch" in
  host64) gen=linux_x86_64_default; how="scripts/build-tflm.sh" ;;
  cortex-m) gen=cortex_m_generic_cortex-m7+fp_default; how="MCUSIM_TFLM_TARGET=cortex-m7 scripts/build-tflm.sh"
    for t in arm-none-eabi-g++ qemu-system-arm; do command -v $t > /dev/null || { echo "run-tflm: $t not found" >&2; exit 2; }; done ;;
  *) echo "run-tflm: --arch must be host64 or cortex-m, not $arch" >&2; exit 2 ;;
esac
lib=$(ls -1 "$T"/gen/"$gen"*/lib/libtensorflow-microlite.a 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "run-tflm: no libtensorflow-microlite.a in $T/gen/$gen*: run $how first" >&2; exit 2; }
mcusim() { node "$root/bin/mcusim.mjs" "$@"; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/sim" "$w/tflm" "$w/orig"

mcusim codegen "$file" --tflm --out-dir "$w/k" -q > /dev/null
# Seeded inputs, written as raw bytes (the simulator's random inputs, src/optimizer randomInputs).
n=$(node --input-type=module -e "
  import { readFileSync, writeFileSync } from 'node:fs';
  import { loadModel, randomInputs } from '$root/dist/index.js';
  const m = loadModel(new Uint8Array(readFileSync('$file')));
  const ins = randomInputs(m.graph, $seed);
  ins.forEach((b, i) => writeFileSync('$w/in' + i + '.bin', b));
  console.log(ins.length);")
ins=()
for ((i = 0; i < n; i++)); do ins+=("$w/in$i.bin"); done
inputs=()
for f in "${ins[@]}"; do inputs+=(--input "$f"); done
mcusim run "$file" "${inputs[@]}" --out-dir "$w/sim" -q > /dev/null
[ -z "$orig" ] || mcusim run "$orig" "${inputs[@]}" --out-dir "$w/orig" -q > /dev/null
predicted=$(mcusim inspect "$file" --runtime tflm --arch "$arch" --json -q | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).arena.totalBytes))')

dl="$T/tensorflow/lite/micro/tools/make/downloads"
inc=(-I"$w/k" -I"$T" -I"$dl" -I"$dl/gemmlowp" -I"$dl/flatbuffers/include" -I"$dl/ruy")
if [ "$arch" = host64 ]; then
  flags=(-std=c++17 -O2 -fno-rtti -fno-exceptions -fno-threadsafe-statics -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -Wall -Wno-unused-parameter)
  for c in mcusim_kernels mcusim_storage_ram; do cc -std=c99 -O2 -fno-strict-aliasing -c "$w/k/$c.c" -o "$w/$c.o"; done
  g++ "${flags[@]}" "${inc[@]}" "$root/test/codegen/tflm/runner.cc" "$w/k/mcusim_ops.cc" "$w/mcusim_kernels.o" "$w/mcusim_storage_ram.o" "$lib" -o "$w/runner" \
    || { echo "run-tflm: cannot build the runner" >&2; exit 2; }
  out=$("$w/runner" "$file" $((predicted * 2 + 65536)) "$w/tflm" "${ins[@]}") || { echo "$file: the TFLM runner failed" >&2; exit 1; }
else
  # The flags of TFLM's cortex_m_generic cortex-m7+fp build that change code or types (its Makefile).
  cpu=(-mcpu=cortex-m7 -mfpu=auto -mfloat-abi=hard -mthumb -mlittle-endian -funsigned-char)
  flags=(-std=c++17 -O2 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables -ffunction-sections -fdata-sections
    -DTF_LITE_STATIC_MEMORY -DTF_LITE_MCU_DEBUG_LOG -DMCUSIM_TFLM_CORTEX_M -Wall -Wno-unused-parameter "${cpu[@]}")
  for c in mcusim_kernels mcusim_storage_ram; do
    arm-none-eabi-gcc -std=c99 -O2 -fno-strict-aliasing -ffunction-sections -fdata-sections "${cpu[@]}" -c "$w/k/$c.c" -o "$w/$c.o"
  done
  arm-none-eabi-gcc -std=c99 -O2 "${cpu[@]}" -c "$root/test/codegen/tflm/startup_m7.c" -o "$w/startup_m7.o"
  arm-none-eabi-g++ "${flags[@]}" "${inc[@]}" -nostartfiles --specs=rdimon.specs -T "$root/test/codegen/tflm/mps2_an500.ld" -Wl,--gc-sections \
    "$w/startup_m7.o" "$root/test/codegen/tflm/runner.cc" "$w/k/mcusim_ops.cc" "$w/mcusim_kernels.o" "$w/mcusim_storage_ram.o" "$lib" -lm -o "$w/runner.elf" \
    || { echo "run-tflm: cannot build the Cortex-M7 runner" >&2; exit 2; }
  args="arg=runner,arg=$file,arg=$((predicted * 2 + 65536)),arg=$w/tflm"
  for f in "${ins[@]}"; do args="$args,arg=$f"; done
  out=$(timeout 1800 qemu-system-arm -M mps2-an500 -nographic -monitor none -semihosting-config "enable=on,target=native,$args" -kernel "$w/runner.elf" </dev/null) \
    || { echo "$file: the TFLM runner failed under QEMU: $out" >&2; exit 1; }
  out=$(echo "$out" | grep '^arena_used_bytes ' | tail -1 | tr -d '\r')
  [ -n "$out" ] || { echo "$file: the TFLM runner under QEMU printed no arena_used_bytes" >&2; exit 1; }
fi
used=${out##* }

ok=1; same=0; total=0
for s in "$w"/sim/output*.bin; do
  total=$((total + 1)); b=$(basename "$s")
  if cmp -s "$s" "$w/tflm/$b" && { [ -z "$orig" ] || cmp -s "$s" "$w/orig/$b"; }; then same=$((same + 1)); else ok=0; fi
done
[ "$used" = "$predicted" ] || ok=0
echo "$file ($arch): outputs identical $same/$total (TFLM = mcusim run${orig:+ = original}), arena_used_bytes $used, predicted $predicted$([ "$used" = "$predicted" ] && echo ' (equal)' || echo ' (DIFFERENT)')"
[ $ok = 1 ]
