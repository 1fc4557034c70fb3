// Minimal stand-ins for the TFLM 90b983c headers the generated C++ includes (the declarations it
// uses, with TFLM's names and signatures), so that `g++ -fsyntax-only` checks mcusim_ops.cc on any
// machine. A syntax check only: that the generated code links and runs in real TFLM is the recorded
// evidence testdata/real-builds/tflm/ (replayed by tflm-replay.test.ts) and, for a user, their own build.
export const STAND_IN_HEADERS: Readonly<Record<string, string>> = {
  'tensorflow/lite/micro/micro_mutable_op_resolver.h': `#pragma once
#include <cstddef>
#include <cstdint>
typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;
typedef struct { int size; int data[1]; } TfLiteIntArray;
typedef union { void* data; int8_t* int8; } TfLitePtrUnion;
typedef struct { TfLitePtrUnion data; TfLiteIntArray* dims; int type; } TfLiteEvalTensor;
typedef struct { TfLiteIntArray* inputs; TfLiteIntArray* outputs; TfLiteIntArray* intermediates; void* user_data; void* builtin_data; const void* custom_initial_data; int custom_initial_data_size; } TfLiteNode;
struct TfLiteContext {
  void* (*AllocatePersistentBuffer)(TfLiteContext* ctx, size_t bytes);
  TfLiteStatus (*RequestScratchBufferInArena)(TfLiteContext* ctx, size_t bytes, int* buffer_idx);
  void* (*GetScratchBuffer)(TfLiteContext* ctx, int buffer_idx);
  TfLiteEvalTensor* (*GetEvalTensor)(const TfLiteContext* context, int tensor_idx);
  void (*ReportError)(TfLiteContext* ctx, const char* format, ...);
};
typedef struct {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  void (*reset)(TfLiteContext* context, void* buffer);
  int32_t builtin_code;
  const char* custom_name;
} TFLMRegistration;
#define TF_LITE_ENSURE_STATUS(a) do { const TfLiteStatus s = (a); if (s != kTfLiteOk) return s; } while (0)
#define TF_LITE_ENSURE(context, a) do { if (!(a)) { (context)->ReportError((context), "%s", #a); return kTfLiteError; } } while (0)
namespace tflite {
template <unsigned int tOpCount>
class MicroMutableOpResolver {
 public:
  TfLiteStatus AddCustom(const char* name, const TFLMRegistration* registration);
  TfLiteStatus AddTransposeConv(const TFLMRegistration& registration);
};
}  // namespace tflite
`,
  'tensorflow/lite/micro/kernels/kernel_util.h': `#pragma once
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
namespace tflite { namespace micro {
TFLMRegistration RegisterOp(void* (*init)(TfLiteContext*, const char*, size_t), TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                            TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*), void (*free)(TfLiteContext*, void*) = nullptr,
                            void (*reset)(TfLiteContext*, void*) = nullptr);
} }  // namespace tflite::micro
`,
  'tensorflow/lite/micro/kernels/transpose_conv.h': `#pragma once
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
namespace tflite { TFLMRegistration Register_TRANSPOSE_CONV(); }
`,
  'tensorflow/lite/micro/micro_log.h': `#pragma once
void MicroPrintf(const char* format, ...);
`,
};
