// What TFLM's kernels/cmsis_nn/*.cc (90b983c) keep in the persistent arena where it differs from the
// reference kernel: their OpData structs (Init's AllocatePersistentBuffer), as C field lists like
// tflm-memory.ts. add, mul, softmax, pad, transpose, maximum/minimum and svdf keep the reference
// sizes (cmsis_nn/softmax.cc CMSISNNSoftmaxParams and svdf.cc CmsisNnOpDataSvdf round to the same
// 16-byte blocks; add.cc's OpData is OpDataAdd field for field).
import { OP_DATA_FULLY_CONNECTED, OP_DATA_LSTM, OP_DATA_POOLING, cStruct } from '../../tflm-memory.ts';

/** cmsis_nn/fully_connected.cc OpData. */
export const CMSIS_OP_DATA_FULLY_CONNECTED = cStruct('OpData (cmsis_nn fully_connected)', [
  ['reference_op_data', OP_DATA_FULLY_CONNECTED], ['buffer_conv_1x1_idx', 'int32'], ['buffer_idx', 'int32'], ['kernel_sums', 'ptr'],
  ['batches', 'int32'], ['accum_depth', 'int32'], ['output_depth', 'int32'],
]);

/** cmsis_nn/pooling.cc OpData (AVERAGE_POOL_2D and MAX_POOL_2D). */
export const CMSIS_OP_DATA_POOLING = cStruct('OpData (cmsis_nn pooling)', [['reference_op_data', OP_DATA_POOLING], ['buffer_idx', 'int32']]);

/** CMSIS-NN arm_nn_types.h cmsis_nn_lstm_gate (arm_nn_activation_type is a plain C enum). */
const CMSIS_NN_LSTM_GATE = cStruct('cmsis_nn_lstm_gate', [
  ['input_multiplier', 'int32'], ['input_shift', 'int32'], ['input_weights', 'ptr'], ['input_effective_bias', 'ptr'],
  ['hidden_multiplier', 'int32'], ['hidden_shift', 'int32'], ['hidden_weights', 'ptr'], ['hidden_effective_bias', 'ptr'],
  ['bias', 'ptr'], ['activation_type', 'enum'],
]);

/** CMSIS-NN arm_nn_types.h cmsis_nn_lstm_params. */
const CMSIS_NN_LSTM_PARAMS = cStruct('cmsis_nn_lstm_params', [
  ['time_major', 'int32'], ['batch_size', 'int32'], ['time_steps', 'int32'], ['input_size', 'int32'], ['hidden_size', 'int32'],
  ['input_offset', 'int32'], ['forget_to_cell_multiplier', 'int32'], ['forget_to_cell_shift', 'int32'],
  ['input_to_cell_multiplier', 'int32'], ['input_to_cell_shift', 'int32'], ['cell_clip', 'int32'], ['cell_scale_power', 'int32'],
  ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['output_offset', 'int32'],
  ['forget_gate', CMSIS_NN_LSTM_GATE], ['input_gate', CMSIS_NN_LSTM_GATE], ['cell_gate', CMSIS_NN_LSTM_GATE], ['output_gate', CMSIS_NN_LSTM_GATE],
]);

/** cmsis_nn/unidirectional_sequence_lstm.cc OpData. */
export const CMSIS_OP_DATA_LSTM = cStruct('OpData (cmsis_nn unidirectional_sequence_lstm)', [['params_ref', OP_DATA_LSTM], ['params_cmsis_nn', CMSIS_NN_LSTM_PARAMS]]);
