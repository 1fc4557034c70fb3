// Runner for the real-TFLM test (tflm-real.test.ts): a plain TFLM application, as a user writes one
// (docs/deploy-tflm.md), linking libtensorflow-microlite.a and the sources `mcusim codegen --tflm`
// wrote. Host: stdio. Cortex-M7 under QEMU (-DMCUSIM_TFLM_CORTEX_M, startup_m7.c): the same stdio
// through newlib's librdimon (ARM semihosting), TFLM's log through cortex_m_generic's callback. usage: runner MODEL.tflite ARENA_BYTES OUTDIR IN0.bin [IN1.bin ...]
// Writes OUTDIR/output<i>.bin and prints `arena_used_bytes N` (after a `storage ...` line of device
// geometry and call counts when the file spills). Exit 2: bad arguments or files,
// 3: AllocateTensors or Invoke failed.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mcusim_ops.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"
extern "C" {
#include "mcusim_kernels.h"
#include "mcusim_storage_ram.h"
}

#ifdef MCUSIM_TFLM_CORTEX_M
#include "tensorflow/lite/micro/cortex_m_generic/debug_log_callback.h"
#endif

namespace {

// 16-aligned and never freed (newlib has no std::aligned_alloc).
uint8_t* AlignedAlloc(size_t n) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(std::malloc(n + 16));
  return p == 0 ? nullptr : reinterpret_cast<uint8_t*>((p + 15) / 16 * 16);
}

uint8_t* ReadFile(const char* path, size_t* size) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return nullptr;
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  // 16-aligned like a model in flash: TFLM reads constant buffers in place.
  uint8_t* data = AlignedAlloc((static_cast<size_t>(n) + 15) / 16 * 16 + 16);
  if (data == nullptr || std::fread(data, 1, static_cast<size_t>(n), f) != static_cast<size_t>(n)) {
    std::fclose(f);
    return nullptr;
  }
  std::fclose(f);
  *size = static_cast<size_t>(n);
  return data;
}

// The builtins of the models the issue runs (mobilenet_v2, mcunet_detection, mltk_kws, the zoo's MobileNetV2 and
// Tiny U-Net) and of mcusim's passes (FDT / auto add STRIDED_SLICE); build-tflm.sh's RUNNER_KERNELS compiles exactly these. TRANSPOSE_CONV:
// AddMcusimOps may own it.
template <unsigned int N>
TfLiteStatus AddBuiltins(tflite::MicroMutableOpResolver<N>& r) {
  TF_LITE_ENSURE_STATUS(r.AddAdd());
  TF_LITE_ENSURE_STATUS(r.AddAveragePool2D());
  TF_LITE_ENSURE_STATUS(r.AddConcatenation());
  TF_LITE_ENSURE_STATUS(r.AddConv2D());
  TF_LITE_ENSURE_STATUS(r.AddDepthwiseConv2D());
  TF_LITE_ENSURE_STATUS(r.AddDequantize());
  TF_LITE_ENSURE_STATUS(r.AddFullyConnected());
  TF_LITE_ENSURE_STATUS(r.AddMaxPool2D());
  TF_LITE_ENSURE_STATUS(r.AddMean());
  TF_LITE_ENSURE_STATUS(r.AddPad());
  TF_LITE_ENSURE_STATUS(r.AddQuantize());
  TF_LITE_ENSURE_STATUS(r.AddReshape());
  TF_LITE_ENSURE_STATUS(r.AddResizeNearestNeighbor());
  TF_LITE_ENSURE_STATUS(r.AddSoftmax());
  TF_LITE_ENSURE_STATUS(r.AddStridedSlice());
  TF_LITE_ENSURE_STATUS(r.AddTranspose());
#if !MCUSIM_OPS_REPLACE_TRANSPOSE_CONV
  TF_LITE_ENSURE_STATUS(r.AddTransposeConv());
#endif
  return kTfLiteOk;
}

#if MODEL_STORAGE_SLOTS > 0
// The RAM-backed device with the simulator's geometry (the one `codegen --storage` laid the blocks
// out for: internal flash 128 KB sectors / 32-byte flash words, QSPI NOR 4 KB / 256 B) and its NOR
// rules (erase before program, no second program of a unit), trimmed to the sectors the slots use.
// The runner counts the calls through it, so a run shows the spills really went to the device.
uint8_t storage_cells[MODEL_STORAGE_USED_BYTES];
uint8_t storage_units[MODEL_STORAGE_USED_BYTES / MODEL_STORAGE_PROGRAM_UNIT_BYTES];
mcusim_storage_ram storage_ram;
mcusim_storage storage;
const mcusim_storage_ops* ram_ops = nullptr;
unsigned long storage_erases = 0, storage_programs = 0, storage_program_bytes = 0, storage_reads = 0;

int CountErase(void* d, uint32_t sector) {
  ++storage_erases;
  return ram_ops->erase(d, sector);
}
int CountProgram(void* d, uint32_t addr, const uint8_t* src, uint32_t len) {
  ++storage_programs;
  storage_program_bytes += len;
  return ram_ops->program(d, addr, src, len);
}
int CountRead(void* d, uint32_t addr, uint8_t* dst, uint32_t len) {
  ++storage_reads;
  return ram_ops->read(d, addr, dst, len);
}
mcusim_storage_ops counting_ops;
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: runner MODEL.tflite ARENA_BYTES OUTDIR IN0.bin [IN1.bin ...]\n");
    return 2;
  }
#ifdef MCUSIM_TFLM_CORTEX_M
  RegisterDebugLogCallback([](const char* s) { std::fputs(s, stderr); });
#endif
  size_t model_size = 0;
  const uint8_t* model_data = ReadFile(argv[1], &model_size);
  if (model_data == nullptr) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  const size_t arena_bytes = (std::strtoul(argv[2], nullptr, 10) + 15) / 16 * 16;
  uint8_t* arena = AlignedAlloc(arena_bytes);
  static tflite::MicroMutableOpResolver<32 + MCUSIM_OPS_COUNT> resolver;
  if (AddBuiltins(resolver) != kTfLiteOk || AddMcusimOps(resolver) != kTfLiteOk) return 3;
#if MODEL_STORAGE_SLOTS > 0
  const mcusim_storage_geometry g = {MODEL_STORAGE_USED_BYTES, MODEL_STORAGE_SECTOR_BYTES, MODEL_STORAGE_PROGRAM_UNIT_BYTES};
  if (mcusim_storage_ram_open(&storage, &storage_ram, storage_cells, storage_units, g) != MCUSIM_STORAGE_OK) return 2;
  ram_ops = storage.ops;
  counting_ops = {CountErase, CountProgram, CountRead, ram_ops->is_erased};
  storage.ops = &counting_ops;
  model_set_storage(&storage);
#endif
  const tflite::Model* model = tflite::GetModel(model_data);
  tflite::MicroInterpreter interpreter(model, resolver, arena, arena_bytes);
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    std::fprintf(stderr, "AllocateTensors failed\n");
    return 3;
  }
  if (static_cast<int>(interpreter.inputs_size()) != argc - 4) {
    std::fprintf(stderr, "the model has %d inputs\n", static_cast<int>(interpreter.inputs_size()));
    return 2;
  }
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    size_t n = 0;
    const uint8_t* in = ReadFile(argv[4 + i], &n);
    TfLiteTensor* t = interpreter.input(i);
    if (in == nullptr || n != t->bytes) {
      std::fprintf(stderr, "input %d: cannot read %s or not %d bytes\n", static_cast<int>(i), argv[4 + i], static_cast<int>(t->bytes));
      return 2;
    }
    std::memcpy(t->data.raw, in, n);
  }
  if (interpreter.Invoke() != kTfLiteOk) {
    std::fprintf(stderr, "Invoke failed\n");
    return 3;
  }
  for (size_t i = 0; i < interpreter.outputs_size(); ++i) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s/output%d.bin", argv[3], static_cast<int>(i));
    FILE* f = std::fopen(path, "wb");
    const TfLiteTensor* t = interpreter.output(i);
    if (f == nullptr || std::fwrite(t->data.raw, 1, t->bytes, f) != t->bytes) return 2;
    std::fclose(f);
  }
#if MODEL_STORAGE_SLOTS > 0
  std::printf("storage sector_bytes %lu program_unit_bytes %lu erases %lu programs %lu program_bytes %lu reads %lu\n",
              static_cast<unsigned long>(MODEL_STORAGE_SECTOR_BYTES), static_cast<unsigned long>(MODEL_STORAGE_PROGRAM_UNIT_BYTES),
              storage_erases, storage_programs, storage_program_bytes, storage_reads);
#endif
  std::printf("arena_used_bytes %d\n", static_cast<int>(interpreter.arena_used_bytes()));
  return 0;
}
