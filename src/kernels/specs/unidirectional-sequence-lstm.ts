// UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations / int8 weights / int16 cell state / int32 biases:
// TFLM unidirectional_sequence_lstm.cc + lstm_eval_common.cc (UnidirectionalSequenceLstmPrepare,
// PrepareGateParametersInteger) and lstm_eval.h EvalLstm<int8, int8, int16, int32>. Per step
// (time-major: all batches at once; batch-major: one batch row, batches outermost), each gate is
// an input FC (with the gate bias) into its buffer, a recurrent FC from the hidden state into
// buffer 3, a saturating int16 add and sigmoid / tanh on Q3.12 (gate FC output scale 2^-12):
// forget -> buffer 0, input -> 1, cell -> 2; then cell = forget*cell + input*cell_gate (+ clip),
// output gate -> 1, tanh(cell) -> 0, hidden = tanh(cell)*output gate (int8), copied to the output.
// Hidden (input 18) and cell (input 19) states are variable tensors updated in place; the four
// scratch buffers are TFLM's four RequestScratchBufferInArena(batch x units x 2 bytes).
import type { Tensor } from '../../ir/index.ts';
import type { Nest, Stmt } from '../nest.ts';
import { For, If, Let, Set, Store, Val } from '../nest.ts';
import { quantizeMultiplier } from '../quant.ts';
import type { BufferRef, KernelSpec } from '../spec.ts';
import { constraint, count, dim, isInt8Quantized, rank, scaleOf, zeroPointOf } from './common.ts';
import { OP_DATA_LSTM, TFLITE_UNIDIRECTIONAL_SEQUENCE_LSTM_PARAMS, stock } from '../tflm-memory.ts';

const INPUT = 0;
const HIDDEN = 18;
const CELL = 19;
/** Gate name -> [input weights, recurrent weights, bias] input slots (lstm_shared.h). */
const GATES = { i: [1, 5, 12], f: [2, 6, 13], c: [3, 7, 14], o: [4, 8, 15] } as const;
type Gate = keyof typeof GATES;
const ABSENT_SLOTS = [9, 10, 11, 16, 17, 20, 21, 22, 23];
const WEIGHT_SLOTS = [1, 2, 3, 4, 5, 6, 7, 8];
const BIAS_SLOTS = [12, 13, 14, 15];
/** Gate FC outputs (nonlinearity inputs) are Q3.12; nonlinearity outputs Q0.15. */
const GATE_IN_SCALE = Math.fround(2 ** -12);
const GATE_OUT_SCALE = Math.fround(2 ** -15);

const perTensor = (t: Tensor | null): boolean => t !== null && t.quant !== null && t.quant.scale.length === 1;

/** log2 of a power-of-two scale (TFLM CheckedLog2), else null. */
function checkedLog2(scale: number): number | null {
  const e = Math.round(Math.log2(scale));
  return Math.abs(Math.log2(scale) - e) < 1e-3 ? e : null;
}

/** Input offset of the step's rows: `ob` (outer batch) and `t` (time). */
const STEP_LETS: Nest = [
  Let('inOff', 'ob * inOuterStride + t * inTimeStride'),
  Let('outOff', 'ob * outOuterStride + t * outTimeStride'),
  Let('stOff', 'ob * units'),
];

/** reference_integer_ops::FullyConnected<int8, int8, int16, int32> over the step's rows. */
function fc(src: string, srcOff: string, srcOffset: string, depth: string, w: string, g: Gate, kind: 'I' | 'R', dst: string, bias: boolean): Stmt {
  return For('r', '0', 'rows', [
    Let('sBase', `${srcOff} + r * ${depth}`),
    For('u', '0', 'units', [
      Let('wBase', `u * ${depth}`),
      Val('acc', '0'),
      For('d', '0', depth, [Set('acc', `acc + (${w}[wBase + d] + wOff${kind}_${g}) * (${src}[sBase + d] + ${srcOffset})`, 'mac')]),
      ...(bias ? [Set('acc', `acc + b_${g}[u]`)] : []),
      Store(dst, 'r * units + u', `clamp(mbqm(acc, m${kind}_${g}, s${kind}_${g}), -32768, 32767)`),
    ]),
  ]);
}

/** CalculateLstmGate: input FC (+ bias) -> gate, recurrent FC -> s3, add, activation in place. */
function gate(g: Gate, dst: string): Nest {
  const act = g === 'c' ? `tanh16(${dst}[k], 3, 0)` : `sigmoid16(${dst}[k], 3, 0)`;
  return [
    fc('input', 'inOff', 'inOffset', 'inputSize', `wi_${g}`, g, 'I', dst, true),
    fc('hidden', 'stOff', 'hOffset', 'units', `wr_${g}`, g, 'R', 's3', false),
    For('k', '0', 'n', [Store(dst, 'k', `clamp(${dst}[k] + s3[k], -32768, 32767)`)]),
    For('k', '0', 'n', [Store(dst, 'k', act)]),
  ];
}

const STEP: Nest = [
  ...STEP_LETS,
  ...gate('f', 's0'),
  ...gate('i', 's1'),
  ...gate('c', 's2'),
  // UpdateLstmCell: forget x cell -> cell, input x cell gate -> s1, saturating add, clip.
  For('k', '0', 'n', [Store('cell', 'stOff + k', 'clamp(mbqm(s0[k] * cell[stOff + k], mFC, sFC), -32768, 32767)')]),
  For('k', '0', 'n', [Store('s1', 'k', 'clamp(mbqm(s1[k] * s2[k], mIC, sIC), -32768, 32767)')]),
  For('k', '0', 'n', [Store('cell', 'stOff + k', 'clamp(cell[stOff + k] + s1[k], -32768, 32767)')]),
  If('hasClip', [For('k', '0', 'n', [Store('cell', 'stOff + k', 'clamp(cell[stOff + k], -cellClip, cellClip)')])]),
  ...gate('o', 's1'),
  // UpdateLstmHidden: tanh(cell) -> s0, then tanh x output gate -> hidden (int8, zero point).
  For('k', '0', 'n', [Store('s0', 'k', 'tanh16(cell[stOff + k], tanhMult, tanhShift)')]),
  For('k', '0', 'n', [Store('hidden', 'stOff + k', 'clamp(mbqm(s0[k] * s1[k], mHid, sHid) + hiddenZp, -128, 127)')]),
  For('k', '0', 'n', [Store('output', 'outOff + k', 'hidden[stOff + k]')]),
];

export const unidirectionalSequenceLstmSpec: KernelSpec<'unidirectionalSequenceLstm'> = {
  kind: 'unidirectionalSequenceLstm',
  // Prepare requests four scratch buffers (those mcusim declares); hidden and cell state are
  // variable tensors (the tail model allocates them).
  tflmPersistent: stock(TFLITE_UNIDIRECTIONAL_SEQUENCE_LSTM_PARAMS, OP_DATA_LSTM),
  requestsScratch: true,
  constraints: [
    constraint('unidirectionalSequenceLstm.types', 'input, hidden state and output must be int8 quantized (int8 activations only)', (c) =>
      isInt8Quantized(c.input(INPUT)) && isInt8Quantized(c.input(HIDDEN)) && isInt8Quantized(c.output(0))),
    constraint('unidirectionalSequenceLstm.cell-state', 'cell state (input 19) must be an int16 variable tensor with a power-of-two scale', (c) => {
      const cell = c.input(CELL);
      return cell !== null && cell.dtype === 'int16' && cell.isVariable && perTensor(cell) && checkedLog2(scaleOf(cell)) !== null;
    }),
    constraint('unidirectionalSequenceLstm.hidden-variable', 'hidden state (input 18) must be a variable tensor', (c) => c.input(HIDDEN)?.isVariable === true),
    constraint('unidirectionalSequenceLstm.variant', 'CIFG, peephole, projection and layer-norm LSTMs are not supported (TFLM requires the 8 gate weights and 4 biases and nothing else)', (c) =>
      [...WEIGHT_SLOTS, ...BIAS_SLOTS].every((s) => c.input(s) !== null) && ABSENT_SLOTS.every((s) => c.input(s) === null)),
    constraint('unidirectionalSequenceLstm.weights', 'gate weights must be int8 quantized per tensor, biases int32', (c) =>
      WEIGHT_SLOTS.every((s) => c.input(s)?.dtype === 'int8' && perTensor(c.input(s))) && BIAS_SLOTS.every((s) => c.input(s)?.dtype === 'int32')),
    constraint('unidirectionalSequenceLstm.shapes', 'input [B,T,I] (or [T,B,I]), weights [U,I] and [U,U], biases [U], states of B x U elements, output [.., .., U]', (c) => {
      const x = c.input(INPUT);
      const o = c.op.options;
      const units = dim(c.input(HIDDEN), 1);
      const batch = dim(x, o.timeMajor ? 1 : 0);
      const inputSize = dim(x, 2);
      return rank(x) === 3 && rank(c.output(0)) === 3 && units > 0 &&
        [1, 2, 3, 4].every((s) => dim(c.input(s), 0) === units && dim(c.input(s), 1) === inputSize && rank(c.input(s)) === 2) &&
        [5, 6, 7, 8].every((s) => dim(c.input(s), 0) === units && dim(c.input(s), 1) === units && rank(c.input(s)) === 2) &&
        BIAS_SLOTS.every((s) => rank(c.input(s)) === 1 && dim(c.input(s), 0) === units) &&
        count(c.input(HIDDEN)) === batch * units && count(c.input(CELL)) === batch * units &&
        dim(c.output(0), 0) === dim(x, 0) && dim(c.output(0), 1) === dim(x, 1) && dim(c.output(0), 2) === units;
    }),
    constraint('unidirectionalSequenceLstm.activation', 'cell gate activation must be tanh', (c) => c.op.options.activation === 'tanh'),
    constraint('unidirectionalSequenceLstm.cell-clip', 'cell clip must be >= 0', (c) => c.op.options.cellClip >= 0),
  ],
  prepare(c) {
    const o = c.op.options;
    const x = c.input(INPUT)!;
    const hidden = c.input(HIDDEN)!;
    const cell = c.input(CELL)!;
    const units = dim(hidden, 1);
    const [d0, d1, inputSize] = [dim(x, 0), dim(x, 1), dim(x, 2)];
    const [batches, steps] = o.timeMajor ? [d1, d0] : [d0, d1];
    const rows = o.timeMajor ? batches : 1;
    const scalars: Record<string, number> = {
      units, inputSize, steps, rows, n: rows * units,
      outerBatches: o.timeMajor ? 1 : batches,
      inOuterStride: o.timeMajor ? 0 : steps * inputSize,
      inTimeStride: rows * inputSize,
      outOuterStride: o.timeMajor ? 0 : steps * units,
      outTimeStride: rows * units,
      inOffset: -zeroPointOf(x),
      hOffset: -zeroPointOf(hidden),
      hiddenZp: zeroPointOf(hidden),
    };
    const buffers: Record<string, BufferRef> = {
      input: { kind: 'input', slot: INPUT },
      hidden: { kind: 'input', slot: HIDDEN },
      cell: { kind: 'input', slot: CELL },
      output: { kind: 'output', slot: 0 },
      s0: { kind: 'scratch', index: 0 },
      s1: { kind: 'scratch', index: 1 },
      s2: { kind: 'scratch', index: 2 },
      s3: { kind: 'scratch', index: 3 },
    };
    for (const g of Object.keys(GATES) as Gate[]) {
      const [wi, wr, b] = GATES[g];
      buffers[`wi_${g}`] = { kind: 'input', slot: wi };
      buffers[`wr_${g}`] = { kind: 'input', slot: wr };
      buffers[`b_${g}`] = { kind: 'input', slot: b };
      // GetQuantizedConvolutionMultipler: double(float(in_s * w_s)) / double(2^-12).
      const qi = quantizeMultiplier(Math.fround(scaleOf(x) * scaleOf(c.input(wi))) / GATE_IN_SCALE);
      const qr = quantizeMultiplier(Math.fround(scaleOf(hidden) * scaleOf(c.input(wr))) / GATE_IN_SCALE);
      Object.assign(scalars, {
        [`mI_${g}`]: qi.multiplier, [`sI_${g}`]: qi.shift, [`wOffI_${g}`]: -zeroPointOf(c.input(wi)),
        [`mR_${g}`]: qr.multiplier, [`sR_${g}`]: qr.shift, [`wOffR_${g}`]: -zeroPointOf(c.input(wr)),
      });
    }
    // CreateInterGateMulParams: double products and quotient.
    const cellS = scaleOf(cell);
    const fcm = quantizeMultiplier((GATE_OUT_SCALE * cellS) / cellS);
    const icm = quantizeMultiplier((GATE_OUT_SCALE * GATE_OUT_SCALE) / cellS);
    const hm = quantizeMultiplier((GATE_OUT_SCALE * GATE_OUT_SCALE) / scaleOf(hidden));
    Object.assign(scalars, { mFC: fcm.multiplier, sFC: fcm.shift, mIC: icm.multiplier, sIC: icm.shift, mHid: hm.multiplier, sHid: hm.shift });
    // Tanh(cell_state_scale_power): left shift 15 + p - 3; negative -> multiplier 3 and a right
    // shift; reference Tanh then turns multiplier 0 into 3 << shift with shift 0.
    const p = checkedLog2(cellS) ?? 0;
    let tanhShift = 15 + p - 3;
    let tanhMult = 0;
    if (tanhShift < 0) (tanhShift = -tanhShift), (tanhMult = 3);
    if (tanhMult === 0) (tanhMult = 3 << tanhShift), (tanhShift = 0);
    // quantized_cell_clip: static_cast<int16_t>(clamp(double(clip) / double(scale))), truncating.
    const clip = Math.trunc(Math.min(Math.max(Math.fround(o.cellClip) / cellS, -32768), 32767));
    Object.assign(scalars, { tanhMult, tanhShift, cellClip: clip });
    const scratchBytes = batches * units * 2;
    return {
      flags: { hasClip: o.cellClip > 0 ? 1 : 0 },
      scalars,
      arrays: {},
      buffers,
      scratch: [0, 1, 2, 3].map((k) => ({ name: `lstm_buffer${k}`, dtype: 'int16' as const, sizeBytes: scratchBytes })),
    };
  },
  body: [For('ob', '0', 'outerBatches', [For('t', '0', 'steps', STEP)])],
};
