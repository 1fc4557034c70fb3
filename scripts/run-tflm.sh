#!/usr/bin/env bash
# Runs an mcusim-optimized .tflite in real TFLM (issue 45): `mcusim codegen FILE --tflm`, links the
# generated kernels and test/codegen/tflm/runner.cc with the libtensorflow-microlite.a that
# scripts/build-tflm.sh built in MCUSIM_TFLM_DIR, runs it on seeded random inputs and checks
#   outputs == `mcusim run FILE` (and == ORIGINAL.tflite's when given), arena_used_bytes ==
#   `mcusim inspect FILE --runtime tflm --arch ARCH` .arena.totalBytes.
# --arch host64 (default): the host build, run natively. --arch cortex-m: the Cortex-M7 build
# (MCUSIM_TFLM_TARGET=cortex-m7 scripts/build-tflm.sh), linked with newlib + librdimon, startup_m7.c
# and mps2_an500.ld, run under `qemu-system-arm -M mps2-an500` with files through semihosting.
# --kernels cmsis-nn (cortex-m only): the TFLM + CMSIS-NN build (MCUSIM_TFLM_KERNEL_LIB=cmsis-nn
# build-tflm.sh), kernels made with `codegen --tflm --kernels cmsis-nn --cpu cortex-m7`, compared with
# `mcusim run --kernels cmsis-nn`, the prediction `inspect --kernels cmsis-nn --cpu cortex-m7`; ORIGINAL
# then also runs on that real build and its outputs must be the same.
# --storage internal|external: the device `codegen --storage` lays Spill blocks out for (default
# internal: Nicla Vision's internal flash, 128 KB sectors, 32-byte flash words); the runner backs it
# with the RAM device of that geometry and NOR rules and prints its call counts.
# Prints one line `FILE: ...`; exit 0 when all hold, 1 when not, 2 on a usage or build problem.
#   usage: MCUSIM_TFLM_DIR=... scripts/run-tflm.sh [--arch host64|cortex-m] [--kernels reference|cmsis-nn]
#          [--storage internal|external] FILE.tflite [ORIGINAL.tflite] [SEED]
set -euo pipefail
: "${MCUSIM_TFLM_DIR:?set MCUSIM_TFLM_DIR to the tree scripts/build-tflm.sh built}"
arch=host64; klib=reference; storage=internal
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="${2:?--arch needs host64 or cortex-m}"; shift 2 ;;
    --kernels) klib="${2:?--kernels needs reference or cmsis-nn}"; shift 2 ;;
    --storage) storage="${2:?--storage needs internal or external}"; shift 2 ;;
    *) break ;;
  esac
done
file="${1:?usage: scripts/run-tflm.sh [--arch host64|cortex-m] [--kernels reference|cmsis-nn] [--storage internal|external] FILE.tflite [ORIGINAL.tflite] [SEED]}"
orig="${2:-}"
seed="${3:-1}"
root=$(cd "$(dirname "$0")/.." && pwd)
T="$MCUSIM_TFLM_DIR"
case "$storage" in internal | external) ;; *) echo "run-tflm: --storage must be internal or external, not $storage" >&2; exit 2 ;; esac
case "$arch" in
  host64) gen=linux_x86_64_default; how="scripts/build-tflm.sh" ;;
  cortex-m) gen=cortex_m_generic_cortex-m7+fp_default; how="MCUSIM_TFLM_TARGET=cortex-m7 scripts/build-tflm.sh"
    for t in arm-none-eabi-g++ qemu-system-arm; do command -v $t > /dev/null || { echo "run-tflm: $t not found" >&2; exit 2; }; done ;;
  *) echo "run-tflm: --arch must be host64 or cortex-m, not $arch" >&2; exit 2 ;;
esac
case "$klib" in
  reference) kflags=() ;;
  cmsis-nn)
    [ "$arch" = cortex-m ] || { echo "run-tflm: --kernels cmsis-nn needs --arch cortex-m (TFLM's CMSIS-NN build is for Cortex-M7)" >&2; exit 2; }
    gen="${gen}_cmsis_nn"; how="MCUSIM_TFLM_TARGET=cortex-m7 MCUSIM_TFLM_KERNEL_LIB=cmsis-nn scripts/build-tflm.sh"
    kflags=(--kernels cmsis-nn --cpu cortex-m7) ;;
  *) echo "run-tflm: --kernels must be reference or cmsis-nn, not $klib" >&2; exit 2 ;;
esac
lib="$T/gen/${gen}_gcc/lib/libtensorflow-microlite.a"
[ -f "$lib" ] || { echo "run-tflm: no $lib: run $how first" >&2; exit 2; }
mcusim() { node "$root/bin/mcusim.mjs" "$@"; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/sim" "$w/tflm" "$w/orig" "$w/tflm-orig"

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
mcusim run "$file" "${kflags[@]}" "${inputs[@]}" --out-dir "$w/sim" -q > /dev/null
[ -z "$orig" ] || mcusim run "$orig" "${kflags[@]}" "${inputs[@]}" --out-dir "$w/orig" -q > /dev/null
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).arena.totalBytes))'; }
predicted=$(mcusim inspect "$file" --runtime tflm --arch "$arch" "${kflags[@]}" --json -q | json)

dl="$T/tensorflow/lite/micro/tools/make/downloads"
inc=(-I"$T" -I"$dl" -I"$dl/gemmlowp" -I"$dl/flatbuffers/include" -I"$dl/ruy")
# run_tflm MODEL KERNEL_DIR OUT_DIR ARENA_PREDICTION: builds the runner with KERNEL_DIR's generated
# kernels, runs MODEL in an arena of twice the prediction plus 64 KB, sets `out` to its last line
# (`arena_used_bytes N`) and `store` to its storage line.
run_tflm() {
  local m="$1" k="$2" o="$3" pred="$4" b="$w/build-$(basename "$3")" raw
  mkdir -p "$b"
  # --storage only for a file that spills (codegen refuses it otherwise).
  local slots
  slots=$(mcusim codegen "$m" --tflm "${kflags[@]}" --out-dir "$k" --json -q | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).storageSlots))')
  [ "$slots" = 0 ] || mcusim codegen "$m" --tflm "${kflags[@]}" --storage "$storage" --out-dir "$k" -q > /dev/null
  if [ "$arch" = host64 ]; then
    local flags=(-std=c++17 -O2 -fno-rtti -fno-exceptions -fno-threadsafe-statics -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -Wall -Wno-unused-parameter)
    for c in mcusim_kernels mcusim_storage_ram; do cc -std=c99 -O2 -fno-strict-aliasing -c "$k/$c.c" -o "$b/$c.o"; done
    g++ "${flags[@]}" -I"$k" "${inc[@]}" "$root/test/codegen/tflm/runner.cc" "$k/mcusim_ops.cc" "$b/mcusim_kernels.o" "$b/mcusim_storage_ram.o" "$lib" -o "$b/runner" \
      || { echo "run-tflm: cannot build the runner" >&2; exit 2; }
    raw=$("$b/runner" "$m" $((pred * 2 + 65536)) "$o" "${ins[@]}") || { echo "$m: the TFLM runner failed" >&2; exit 1; }
  else
    # The flags of TFLM's cortex_m_generic cortex-m7+fp build that change code or types (its Makefile).
    local cpu=(-mcpu=cortex-m7 -mfpu=auto -mfloat-abi=hard -mthumb -mlittle-endian -funsigned-char)
    local flags=(-std=c++17 -O2 -fno-rtti -fno-exceptions -fno-threadsafe-statics -fno-unwind-tables -ffunction-sections -fdata-sections
      -DTF_LITE_STATIC_MEMORY -DTF_LITE_MCU_DEBUG_LOG -DMCUSIM_TFLM_CORTEX_M -Wall -Wno-unused-parameter "${cpu[@]}")
    for c in mcusim_kernels mcusim_storage_ram; do
      arm-none-eabi-gcc -std=c99 -O2 -fno-strict-aliasing -ffunction-sections -fdata-sections "${cpu[@]}" -c "$k/$c.c" -o "$b/$c.o"
    done
    arm-none-eabi-gcc -std=c99 -O2 "${cpu[@]}" -c "$root/test/codegen/tflm/startup_m7.c" -o "$b/startup_m7.o"
    arm-none-eabi-g++ "${flags[@]}" -I"$k" "${inc[@]}" -nostartfiles --specs=rdimon.specs -T "$root/test/codegen/tflm/mps2_an500.ld" -Wl,--gc-sections \
      "$b/startup_m7.o" "$root/test/codegen/tflm/runner.cc" "$k/mcusim_ops.cc" "$b/mcusim_kernels.o" "$b/mcusim_storage_ram.o" "$lib" -lm -o "$b/runner.elf" \
      || { echo "run-tflm: cannot build the Cortex-M7 runner" >&2; exit 2; }
    local args="arg=runner,arg=$m,arg=$((pred * 2 + 65536)),arg=$o" f
    for f in "${ins[@]}"; do args="$args,arg=$f"; done
    raw=$(timeout 1800 qemu-system-arm -M mps2-an500 -nographic -monitor none -semihosting-config "enable=on,target=native,$args" -kernel "$b/runner.elf" </dev/null) \
      || { echo "$m: the TFLM runner failed under QEMU: $raw" >&2; exit 1; }
  fi
  raw=$(echo "$raw" | tr -d '\r')
  store=$(echo "$raw" | grep '^storage ' | tail -1 || true)
  out=$(echo "$raw" | grep '^arena_used_bytes ' | tail -1 || true)
  [ -n "$out" ] || { echo "$m: the TFLM runner printed no arena_used_bytes" >&2; exit 1; }
}

run_tflm "$file" "$w/k" "$w/tflm" "$predicted"
used=${out##* }
device=""
if [ -n "$store" ]; then
  read -r _ _ sector _ unit _ erases _ programs _ pbytes _ reads <<< "$store"
  device=", storage $storage (RAM device, $sector B sectors, $unit B program units: $erases erase(s), $programs program(s) of $pbytes B, $reads read(s))"
fi
real_orig=""
if [ -n "$orig" ] && [ "$klib" = cmsis-nn ]; then
  orig_file="$orig"
  if [[ "$orig" == zoo:* ]]; then orig_file="$w/original.tflite"; mcusim zoo export "${orig#zoo:}" -o "$orig_file" > /dev/null; fi
  # The original's own prediction sizes its arena (an optimized file's can be far smaller).
  run_tflm "$orig_file" "$w/k-orig" "$w/tflm-orig" "$(mcusim inspect "$orig_file" --runtime tflm --arch "$arch" "${kflags[@]}" --json -q | json)"
  real_orig=", original's arena_used_bytes ${out##* } on this build"
fi

ok=1; same=0; total=0
for s in "$w"/sim/output*.bin; do
  total=$((total + 1)); b=$(basename "$s")
  if cmp -s "$s" "$w/tflm/$b" && { [ -z "$orig" ] || cmp -s "$s" "$w/orig/$b"; } && { [ -z "$real_orig" ] || cmp -s "$s" "$w/tflm-orig/$b"; }; then
    same=$((same + 1))
  else ok=0; fi
done
[ "$used" = "$predicted" ] || ok=0
what="TFLM = mcusim run${orig:+ = original}${real_orig:+ = original on this TFLM build}"
echo "$file ($arch, $klib): outputs identical $same/$total ($what), arena_used_bytes $used, predicted $predicted$([ "$used" = "$predicted" ] && echo ' (equal)' || echo ' (DIFFERENT)')$device$real_orig"
[ $ok = 1 ]
