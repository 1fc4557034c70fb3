// UNIDIRECTIONAL_SEQUENCE_LSTM, int8 x int8 -> int16 cell, as TFLM's cmsis_nn/unidirectional_sequence_lstm.cc
// runs it: arm_lstm_unidirectional_s8 -> arm_nn_lstm_step_s8 (CMSIS-NN 4ab83cc3). Memory: OpData =
// OpDataLSTM + cmsis_nn_lstm_params; Prepare allocates eight kernel-sum arrays (4 gates x input and
// recurrent, units x int32) and requests THREE scratch buffers (batch x units x int16): temp1, temp2
// and the cell state. TFLM passes no hidden state (cmsis_buffers = {}): the cell state scratch is
// zeroed at every Invoke, the first step has no recurrent term and later steps read the previous
// step's OUTPUT; the hidden / cell variable tensors are never read or written, so the state does
// not carry over between Invokes (the reference kernel keeps it). Per step: each gate memsets its
// buffer, accumulates the input FC (effective bias = bias + input offset x weight sums) and, from
// the second step, the recurrent FC into it (arm_nn_vec_mat_mul_result_acc_s8_s16: rows in pairs, the
// source row read once per pair, result = clamp16(requantize(acc) + dst)), then applies the int16
// sigmoid / tanh in place; forget x cell -> cell; input -> temp1, cell gate -> temp2, cell =
// clamp(requantize(temp1 x temp2) + cell) to the clip (Q15 without one); output gate -> temp1,
// tanh(cell) -> temp2, output = requantize(temp1 x temp2) + zero point. Differences from the
// reference kernel's values: weight zero points are ignored (CMSIS-NN assumes symmetric weights),
// a recurrent FC result beyond int16 is not clamped before the add, and the state resets per Invoke.
// The element-wise s16 kernels are modelled one element at a time (their DSP pairs of halfwords
// touch the same bytes in the same order per pair), the FCs in the DSP row pairs on every path.
import type { Nest, Stmt } from '../../nest.ts';
import { For, If, Let, Set, Store, Val } from '../../nest.ts';
import type { BufferRef, KernelSpec } from '../../spec.ts';
import { TFLITE_UNIDIRECTIONAL_SEQUENCE_LSTM_PARAMS, stock } from '../../tflm-memory.ts';
import { dim } from '../common.ts';
import { unidirectionalSequenceLstmSpec } from '../unidirectional-sequence-lstm.ts';
import { CMSIS_OP_DATA_LSTM } from './cmsis-memory.ts';
import type { CmsisNnFeatures } from './conv-family.ts';

const GATES = ['f', 'i', 'c', 'o'] as const;
type Gate = (typeof GATES)[number];

/** arm_nn_vec_mat_mul_result_acc_s8_s16 for the step's rows: units in pairs (then one), into `dst`. */
function fcAcc(src: string, srcOff: string, srcOffset: string, depth: string, w: string, g: Gate, kind: 'I' | 'R', dst: string): Stmt {
  const pair = (u0: string, n: number): Nest => [
    ...Array.from({ length: n }, (_, k) => Val(`acc${k}`, kind === 'I' ? `b_${g}[${u0} + ${k}]` : '0')),
    For('d', '0', depth, [
      Val('x', `${src}[sBase + d] + ${srcOffset}`),
      ...Array.from({ length: n }, (_, k) => Set(`acc${k}`, `acc${k} + x * ${w}[(${u0} + ${k}) * ${depth} + d]`, 'mac')),
    ]),
    ...Array.from({ length: n }, (_, k) => Store(dst, `r * units + ${u0} + ${k}`, `clamp(mbqm(acc${k}, m${kind}_${g}, s${kind}_${g}) + ${dst}[r * units + ${u0} + ${k}], -32768, 32767)`)),
  ];
  return For('r', '0', 'rows', [
    Let('sBase', `${srcOff} + r * ${depth}`),
    For('up', '0', 'units / 2', [Let('u0', 'up * 2'), ...pair('u0', 2)]),
    If('units % 2 > 0', [Let('u1', 'units - 1'), ...pair('u1', 1)]),
  ]);
}

/** arm_nn_lstm_calculate_gate_s8_s16 into `dst`. */
function gate(g: Gate, dst: string): Nest {
  const act = g === 'c' ? `tanh16(${dst}[k], 3, 0)` : `sigmoid16(${dst}[k], 3, 0)`;
  return [
    For('k', '0', 'n', [Store(dst, 'k', '0')]),
    fcAcc('input', 'inOff', 'inOffset', 'inputSize', `wi_${g}`, g, 'I', dst),
    If('t > 0', [fcAcc('output', 'prevOff', 'hOffset', 'units', `wr_${g}`, g, 'R', dst)]),
    For('k', '0', 'n', [Store(dst, 'k', act)]),
  ];
}

const STEP: Nest = [
  Let('inOff', 'ob * inOuterStride + t * inTimeStride'),
  Let('outOff', 'ob * outOuterStride + t * outTimeStride'),
  Let('prevOff', 'outOff - outTimeStride'),
  Let('stOff', 'ob * units'),
  ...gate('f', 'gateA'),
  For('k', '0', 'n', [Store('cellBuf', 'stOff + k', 'clamp(mbqm(gateA[k] * cellBuf[stOff + k], mFC, sFC), -32768, 32767)')]),
  ...gate('i', 'gateA'),
  ...gate('c', 'gateB'),
  For('k', '0', 'n', [Store('cellBuf', 'stOff + k', 'clamp(mbqm(gateA[k] * gateB[k], mIC, sIC) + cellBuf[stOff + k], cellMin, cellMax)')]),
  ...gate('o', 'gateA'),
  For('k', '0', 'n', [Store('gateB', 'k', 'tanh16(cellBuf[stOff + k], tanhMult, tanhShift)')]),
  For('k', '0', 'n', [Store('output', 'outOff + k', 'clamp(mbqm(gateA[k] * gateB[k], mHid, sHid) + hiddenZp, -128, 127)')]),
];

export function cmsisNnUnidirectionalSequenceLstmSpec(f: CmsisNnFeatures): KernelSpec<'unidirectionalSequenceLstm'> {
  void f;
  const ref = unidirectionalSequenceLstmSpec;
  return {
    ...ref,
    tflmPersistent: {
      ...stock(TFLITE_UNIDIRECTIONAL_SEQUENCE_LSTM_PARAMS, CMSIS_OP_DATA_LSTM),
      // CMSIS_NN_PortOpData<int32_t>: input and hidden kernel sums of the four gates.
      prepareBuffers: (c) => Array.from({ length: 8 }, () => dim(c.input(18), 1) * 4),
    },
    prepare(c) {
      const p = ref.prepare(c);
      const s = p.scalars;
      const clip = (p.flags?.['hasClip'] ?? 0) === 1;
      const buffers: Record<string, BufferRef> = Object.fromEntries(Object.entries(p.buffers).filter(([k]) => !['hidden', 'cell', 's0', 's1', 's2', 's3'].includes(k)));
      const bytes = (s.rows ?? 0) * (s.outerBatches ?? 0) * (s.units ?? 0) * 2;
      return {
        ...p,
        scalars: { ...s, cellMin: clip ? -(s.cellClip ?? 0) : -32768, cellMax: clip ? (s.cellClip ?? 0) : 32767 },
        buffers: { ...buffers, gateA: { kind: 'scratch', index: 0 }, gateB: { kind: 'scratch', index: 1 }, cellBuf: { kind: 'scratch', index: 2 } },
        scratch: [['temp1', 0], ['temp2', 1], ['cell_state', 2]].map(([name]) => ({ name: `lstm_${String(name)}`, dtype: 'int16' as const, sizeBytes: bytes })),
      };
    },
    body: [
      For('k', '0', 'outerBatches * rows * units', [Store('cellBuf', 'k', '0')]),
      For('ob', '0', 'outerBatches', [For('t', '0', 'steps', STEP)]),
    ],
  };
}
