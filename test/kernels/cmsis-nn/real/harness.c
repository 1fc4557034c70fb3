/* Runs ARM's real CMSIS-NN kernels on a batch of cases under QEMU (test/kernels/cmsis-nn/real-library.test.ts).
 * Each case calls the function TFLM 90b983c's kernels/cmsis_nn/{conv,depthwise_conv,fully_connected,
 * pooling,add,mul,softmax,transpose_conv}.cc calls, with the cmsis_nn structs filled as those files
 * fill them, on one "arena" array holding the input(s) and the output at the offsets the case gives
 * (apart, or overlapping as a DMO plan places them), and scratch buffers of the *_get_buffer_size the
 * kernel's Prepare asks for. Input (argv[1]) and output (argv[2]) are files read and written through
 * semihosting; the record layout is real-cases.ts's (int32 little-endian words, byte blobs padded to 4). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arm_nnfunctions.h"

enum { OP_CONV = 1, OP_DW = 2, OP_FC = 3, OP_AVG = 4, OP_MAX = 5, OP_ADD = 6, OP_MUL = 7, OP_SOFTMAX = 8, OP_TCONV = 9 };
/* Parameter slots (real-cases.ts P). */
enum {
  N, H, W, C, FH, FW, OC, OH, OW, SH, SW, PH, PW, DH, DW, IN_OFF, OUT_OFF, ACT_MIN, ACT_MAX, CH_MULT,
  A_IN0, A_IN1, A_OUT, ARENA, HAS_BIAS, X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, NPARAMS = 40
};
enum { B_ARENA, B_FILTER, B_BIAS, B_MULT, B_SHIFT, NBLOBS };
#define SCRATCH_FILL 0x5a

static int32_t read_word(FILE* f) {
  uint8_t b[4];
  if (fread(b, 1, 4, f) != 4) { fprintf(stderr, "harness: truncated input\n"); exit(1); }
  return (int32_t)((uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24));
}

static void write_word(FILE* f, int32_t v) {
  uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
  fwrite(b, 1, 4, f);
}

static void* scratch(int32_t bytes) {
  void* p;
  if (bytes <= 0) return NULL;
  p = malloc((size_t)bytes);
  if (p == NULL) { fprintf(stderr, "harness: no memory for %ld scratch bytes\n", (long)bytes); exit(1); }
  memset(p, SCRATCH_FILL, (size_t)bytes);
  return p;
}

static cmsis_nn_dims dims(int32_t n, int32_t h, int32_t w, int32_t c) {
  cmsis_nn_dims d;
  d.n = n; d.h = h; d.w = w; d.c = c;
  return d;
}

/* One case: returns the kernel's status; buf[0..1] the scratch sizes its Prepare requests (fully
 * connected: buf[1] its persistent kernel sums). */
static int32_t run_case(int32_t op, const int32_t* p, uint8_t** blob, int32_t* buf) {
  int8_t* arena = (int8_t*)blob[B_ARENA];
  const int8_t* in0 = arena + p[A_IN0];
  const int8_t* in1 = arena + p[A_IN1];
  int8_t* out = arena + p[A_OUT];
  const int8_t* filter = (const int8_t*)blob[B_FILTER];
  const int32_t* bias = p[HAS_BIAS] ? (const int32_t*)blob[B_BIAS] : NULL;
  cmsis_nn_per_channel_quant_params quant;
  cmsis_nn_context ctx, ctx2;
  cmsis_nn_dims in_d = dims(p[N], p[H], p[W], p[C]);
  cmsis_nn_dims out_d = dims(p[N], p[OH], p[OW], p[OC]);
  cmsis_nn_dims bias_d = dims(1, 1, 1, p[OC]);
  int32_t status = -100;
  quant.multiplier = (int32_t*)blob[B_MULT];
  quant.shift = (int32_t*)blob[B_SHIFT];
  ctx.buf = NULL; ctx.size = 0;
  ctx2.buf = NULL; ctx2.size = 0;
  buf[0] = 0; buf[1] = 0;
  switch (op) {
    case OP_CONV: { /* cmsis_nn/conv.cc Prepare + EvalQuantizedPerChannel */
      cmsis_nn_conv_params cp;
      cmsis_nn_dims f_d = dims(1, p[FH], p[FW], p[C]);
      cp.input_offset = p[IN_OFF]; cp.output_offset = p[OUT_OFF];
      cp.stride.h = p[SH]; cp.stride.w = p[SW]; cp.dilation.h = p[DH]; cp.dilation.w = p[DW];
      cp.padding.h = p[PH]; cp.padding.w = p[PW]; cp.activation.min = p[ACT_MIN]; cp.activation.max = p[ACT_MAX];
      buf[0] = arm_convolve_wrapper_s8_get_buffer_size(&cp, &in_d, &f_d, &out_d);
      ctx.buf = scratch(buf[0]);
      status = arm_convolve_wrapper_s8(&ctx, &cp, &quant, &in_d, in0, &f_d, filter, &bias_d, bias, &out_d, out);
      break;
    }
    case OP_DW: { /* cmsis_nn/depthwise_conv.cc Prepare + PopulateDwConvParams */
      cmsis_nn_dw_conv_params dp;
      cmsis_nn_dims f_d = dims(1, p[FH], p[FW], p[OC]);
      dp.input_offset = p[IN_OFF]; dp.output_offset = p[OUT_OFF]; dp.ch_mult = p[CH_MULT];
      dp.stride.h = p[SH]; dp.stride.w = p[SW]; dp.dilation.h = p[DH]; dp.dilation.w = p[DW];
      dp.padding.h = p[PH]; dp.padding.w = p[PW]; dp.activation.min = p[ACT_MIN]; dp.activation.max = p[ACT_MAX];
      buf[0] = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &in_d, &f_d, &out_d);
      ctx.buf = scratch(buf[0]);
      status = arm_depthwise_conv_wrapper_s8(&ctx, &dp, &quant, &in_d, in0, &f_d, filter, &bias_d, bias, &out_d, out);
      break;
    }
    case OP_FC: { /* cmsis_nn/fully_connected.cc PopulateCommonParams + EvalQuantizedInt8 (wrapper path) */
      cmsis_nn_fc_params fp;
      cmsis_nn_quant_params q;
      cmsis_nn_dims fin_d = dims(p[X2], 1, 1, p[X3]);
      cmsis_nn_dims f_d = dims(p[X3], 1, 1, p[X4]);
      cmsis_nn_dims fout_d = dims(p[X2], 1, 1, p[X4]);
      cmsis_nn_dims fb_d = dims(1, 1, 1, p[X4]);
      fp.input_offset = p[IN_OFF]; fp.filter_offset = p[X0]; fp.output_offset = p[OUT_OFF];
      fp.activation.min = p[ACT_MIN]; fp.activation.max = p[ACT_MAX];
      q.is_per_channel = p[X1];
      q.multiplier = (int32_t*)blob[B_MULT];
      q.shift = (int32_t*)blob[B_SHIFT];
      /* Prepare, KERNELS_OPTIMIZED_FOR_SPEED (TFLM's default), constant filter and bias: the kernel sums
       * are a persistent buffer (buf[1]) filled once by arm_vector_sum_s8, and no scratch is requested. */
      buf[1] = arm_fully_connected_s8_get_buffer_size(&f_d);
      ctx.buf = scratch(buf[1]);
      if (ctx.buf != NULL) arm_vector_sum_s8((int32_t*)ctx.buf, f_d.n, p[X4], filter, fp.input_offset, fp.filter_offset, bias);
      status = arm_fully_connected_wrapper_s8(&ctx, &fp, &q, &fin_d, in0, &f_d, filter, &fb_d, bias, &fout_d, out);
      break;
    }
    case OP_AVG:
    case OP_MAX: { /* cmsis_nn/pooling.cc PopulateCommonParams (+ AveragePrepare's buffer) */
      cmsis_nn_pool_params pp;
      cmsis_nn_dims f_d = dims(1, p[FH], p[FW], 1);
      pp.stride.h = p[SH]; pp.stride.w = p[SW]; pp.padding.h = p[PH]; pp.padding.w = p[PW];
      pp.activation.min = p[ACT_MIN]; pp.activation.max = p[ACT_MAX];
      if (op == OP_AVG) {
        buf[0] = arm_avgpool_s8_get_buffer_size(p[OW], p[C]);
        ctx.buf = scratch(buf[0]);
        status = arm_avgpool_s8(&ctx, &pp, &in_d, in0, &f_d, &out_d, out);
      } else {
        status = arm_max_pool_s8(&ctx, &pp, &in_d, in0, &f_d, &out_d, out);
      }
      break;
    }
    case OP_ADD: /* cmsis_nn/add.cc EvalAddQuantizedInt8, no broadcast */
      status = arm_elementwise_add_s8(in0, in1, p[IN_OFF], p[X0], p[X1], p[X7], p[X2], p[X3], p[X4], out, p[OUT_OFF], p[X5], p[X6],
                                      p[ACT_MIN], p[ACT_MAX], p[X8]);
      break;
    case OP_MUL: /* cmsis_nn/mul.cc EvalQuantized, no broadcast */
      status = arm_elementwise_mul_s8(in0, in1, p[IN_OFF], p[X7], out, p[OUT_OFF], p[X0], p[X1], p[ACT_MIN], p[ACT_MAX], p[X8]);
      break;
    case OP_SOFTMAX: /* cmsis_nn/softmax.cc SoftmaxEval, int8 -> int8 */
      arm_softmax_s8(in0, p[X0], p[X1], p[X2], p[X3], p[X4], out);
      status = 0;
      break;
    case OP_TCONV: { /* cmsis_nn/transpose_conv.cc Prepare + EvalQuantizedPerChannel */
      cmsis_nn_transpose_conv_params tp;
      cmsis_nn_dims f_d = dims(p[OC], p[FH], p[FW], p[C]);
      tp.input_offset = p[IN_OFF]; tp.output_offset = p[OUT_OFF];
      tp.stride.h = p[SH]; tp.stride.w = p[SW]; tp.dilation.h = 1; tp.dilation.w = 1;
      tp.padding.h = p[PH]; tp.padding.w = p[PW]; tp.padding_offsets.h = p[X0]; tp.padding_offsets.w = p[X1];
      tp.activation.min = p[ACT_MIN]; tp.activation.max = p[ACT_MAX];
      buf[0] = arm_transpose_conv_s8_get_buffer_size(&tp, &in_d, &f_d, &out_d);
      buf[1] = arm_transpose_conv_s8_get_reverse_conv_buffer_size(&tp, &in_d, &f_d);
      ctx.buf = scratch(buf[0]);
      ctx2.buf = scratch(buf[1]);
      status = arm_transpose_conv_wrapper_s8(&ctx, &ctx2, &tp, &quant, &in_d, in0, &f_d, filter, &bias_d, bias, &out_d, out);
      break;
    }
    default:
      fprintf(stderr, "harness: unknown op %ld\n", (long)op);
      exit(1);
  }
  free(ctx.buf);
  free(ctx2.buf);
  return status;
}

/* crti's _fini, which newlib's exit() calls through __libc_fini_array (linked -nostartfiles). */
void _fini(void);
void _fini(void) {}

int main(int argc, char** argv) {
  FILE* in;
  FILE* out;
  int32_t cases;
  if (argc < 3) { fprintf(stderr, "usage: harness CASES.bin RESULTS.bin\n"); return 1; }
  in = fopen(argv[1], "rb");
  out = fopen(argv[2], "wb");
  if (in == NULL || out == NULL) { fprintf(stderr, "harness: cannot open %s or %s\n", argv[1], argv[2]); return 1; }
  if (read_word(in) != 0x524e434d) { fprintf(stderr, "harness: bad magic\n"); return 1; }
  cases = read_word(in);
  for (int32_t i = 0; i < cases; ++i) {
    int32_t p[NPARAMS];
    uint8_t* blob[NBLOBS];
    int32_t lens[NBLOBS];
    int32_t buf[2];
    int32_t op = read_word(in);
    int32_t status;
    for (int k = 0; k < NPARAMS; ++k) p[k] = read_word(in);
    for (int k = 0; k < NBLOBS; ++k) {
      int32_t n = read_word(in);
      int32_t padded = (n + 3) & ~3;
      lens[k] = n;
      /* 8-byte aligned storage (malloc), at least one word so a zero-length blob is not NULL. */
      blob[k] = (uint8_t*)malloc((size_t)(padded > 0 ? padded : 4));
      if (blob[k] == NULL) { fprintf(stderr, "harness: no memory for case %ld\n", (long)i); return 1; }
      if (padded > 0 && fread(blob[k], 1, (size_t)padded, in) != (size_t)padded) { fprintf(stderr, "harness: truncated case %ld\n", (long)i); return 1; }
    }
    status = run_case(op, p, blob, buf);
    write_word(out, status);
    write_word(out, buf[0]);
    write_word(out, buf[1]);
    write_word(out, lens[B_ARENA]);
    fwrite(blob[B_ARENA], 1, (size_t)((lens[B_ARENA] + 3) & ~3), out);
    for (int k = 0; k < NBLOBS; ++k) free(blob[k]);
  }
  fclose(out);
  fclose(in);
  printf("harness: %ld cases\n", (long)cases);
  return 0;
}
