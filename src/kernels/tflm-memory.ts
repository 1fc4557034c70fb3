// What each kernel keeps in TFLM's persistent (tail) arena, as data beside its spec: the builtin
// params struct the op's flatbuffer parser allocates (BuiltinDataAllocator, alignof), the OpData its
// Init allocates (context->AllocatePersistentBuffer, 16-aligned), the buffers its Prepare allocates
// (per-channel multipliers / shifts) and how many scratch buffers it requests (one handle each).
// Structs are written as C field lists so that one description gives both builds' sizes
// (sim/tflm-arena lays them out per arch). Sources: TFLM 90b983c, docs/tflm-arena.md.
import type { BuiltinKind, Tensor } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import { cArray, cStruct } from './c-struct.ts';
import type { CStruct } from './c-struct.ts';
import type { NonStockOp, OpContext, StockTflmPersistent } from './spec.ts';

export * from './c-struct.ts';


// --- builtin params (tensorflow/compiler/mlir/lite/core/c/builtin_op_data.h) -------------------

const TFLITE_PADDING_VALUES = cStruct('TfLitePaddingValues', [['width', 'int32'], ['height', 'int32'], ['width_offset', 'int32'], ['height_offset', 'int32']]);

export const TFLITE_CONV_PARAMS = cStruct('TfLiteConvParams', [
  ['padding', 'enum'], ['stride_width', 'int32'], ['stride_height', 'int32'], ['activation', 'enum'],
  ['dilation_width_factor', 'int32'], ['dilation_height_factor', 'int32'], ['quantized_bias_type', 'enum'],
]);
export const TFLITE_DEPTHWISE_CONV_PARAMS = cStruct('TfLiteDepthwiseConvParams', [
  ['padding', 'enum'], ['stride_width', 'int32'], ['stride_height', 'int32'], ['depth_multiplier', 'int32'],
  ['activation', 'enum'], ['dilation_width_factor', 'int32'], ['dilation_height_factor', 'int32'],
]);
export const TFLITE_TRANSPOSE_CONV_PARAMS = cStruct('TfLiteTransposeConvParams', [
  ['padding', 'enum'], ['stride_width', 'int32'], ['stride_height', 'int32'], ['activation', 'enum'], ['quantized_bias_type', 'enum'],
]);
export const TFLITE_POOL_PARAMS = cStruct('TfLitePoolParams', [
  ['padding', 'enum'], ['stride_width', 'int32'], ['stride_height', 'int32'], ['filter_width', 'int32'],
  ['filter_height', 'int32'], ['activation', 'enum'], ['computed_padding', TFLITE_PADDING_VALUES],
]);
export const TFLITE_FULLY_CONNECTED_PARAMS = cStruct('TfLiteFullyConnectedParams', [
  ['activation', 'enum'], ['weights_format', 'enum'], ['keep_num_dims', 'bool'], ['asymmetric_quantize_inputs', 'bool'], ['quantized_bias_type', 'enum'],
]);
export const TFLITE_SOFTMAX_PARAMS = cStruct('TfLiteSoftmaxParams', [['beta', 'float']]);
export const TFLITE_CONCATENATION_PARAMS = cStruct('TfLiteConcatenationParams', [['axis', 'int32'], ['activation', 'enum']]);
export const TFLITE_ADD_PARAMS = cStruct('TfLiteAddParams', [['activation', 'enum'], ['pot_scale_int16', 'bool']]);
export const TFLITE_MUL_PARAMS = cStruct('TfLiteMulParams', [['activation', 'enum']]);
export const TFLITE_RESHAPE_PARAMS = cStruct('TfLiteReshapeParams', [['shape', cArray('int32', 8)], ['num_dimensions', 'int32']]);
export const TFLITE_REDUCER_PARAMS = cStruct('TfLiteReducerParams', [['keep_dims', 'bool']]);
export const TFLITE_SPLIT_PARAMS = cStruct('TfLiteSplitParams', [['num_splits', 'int32']]);
export const TFLITE_SPLIT_V_PARAMS = cStruct('TfLiteSplitVParams', [['num_splits', 'int32']]);
export const TFLITE_STRIDED_SLICE_PARAMS = cStruct('TfLiteStridedSliceParams', [
  ['begin_mask', 'int32'], ['end_mask', 'int32'], ['ellipsis_mask', 'int32'], ['new_axis_mask', 'int32'], ['shrink_axis_mask', 'int32'], ['offset', 'bool'],
]);
export const TFLITE_LEAKY_RELU_PARAMS = cStruct('TfLiteLeakyReluParams', [['alpha', 'float']]);

// --- kernel OpData (tensorflow/lite/micro/kernels/*.h, internal/types.h) ------------------------

/** micro/kernels/conv.h; shared by CONV_2D and DEPTHWISE_CONV_2D (depthwise_conv.cc Init). */
export const OP_DATA_CONV = cStruct('OpDataConv', [
  ['padding', TFLITE_PADDING_VALUES], ['input_zero_point', 'int32'], ['filter_zero_point', 'int32'], ['output_zero_point', 'int32'],
  ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['per_channel_output_multiplier', 'ptr'], ['per_channel_output_shift', 'ptr'],
  ['output_activation_min', 'int32'], ['output_activation_max', 'int32'], ['filter_buffer_index', 'int32'],
]);
/** micro/kernels/fully_connected.h (non-HEXAGON fields, no compression). */
export const OP_DATA_FULLY_CONNECTED = cStruct('OpDataFullyConnected', [
  ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['output_activation_min', 'int32'], ['output_activation_max', 'int32'],
  ['input_quantized_index', 'int32'], ['input_zero_point', 'int32'], ['filter_zero_point', 'int32'], ['output_zero_point', 'int32'],
  ['filter_buffer_index', 'int32'], ['per_channel_output_multiplier', 'ptr'], ['per_channel_output_shift', 'ptr'], ['is_per_channel', 'bool'],
]);
/** micro/kernels/pooling.h, AVERAGE_POOL_2D and MAX_POOL_2D. */
export const OP_DATA_POOLING = cStruct('OpDataPooling', [
  ['padding', TFLITE_PADDING_VALUES], ['activation_min', 'int32'], ['activation_max', 'int32'], ['activation_min_f32', 'float'], ['activation_max_f32', 'float'],
]);
/** kernels/internal/types.h SoftmaxParams: SOFTMAX's Init allocates it directly. */
export const SOFTMAX_PARAMS = cStruct('SoftmaxParams', [
  ['beta', 'double'], ['input_multiplier', 'int32'], ['input_left_shift', 'int32'], ['reverse_scaling_divisor', 'int32'],
  ['reverse_scaling_right_shift', 'int32'], ['diff_min', 'int32'], ['zero_point', 'int32'], ['scale', 'float'],
  ['table', 'ptr'], ['exp_lut', 'ptr'], ['one_over_one_plus_x_lut', 'ptr'], ['uint8_table1', 'ptr'], ['uint8_table2', 'ptr'],
]);
/** micro/kernels/add.h. */
export const OP_DATA_ADD = cStruct('OpDataAdd', [
  ['requires_broadcast', 'bool'], ['input1_shift', 'int32'], ['input2_shift', 'int32'], ['output_activation_min', 'int32'],
  ['output_activation_max', 'int32'], ['input1_multiplier', 'int32'], ['input2_multiplier', 'int32'], ['output_multiplier', 'int32'],
  ['output_shift', 'int32'], ['left_shift', 'int32'], ['input1_offset', 'int32'], ['input2_offset', 'int32'], ['output_offset', 'int32'],
  ['output_activation_min_f32', 'float'], ['output_activation_max_f32', 'float'],
]);
/** micro/kernels/mul.h. */
export const OP_DATA_MUL = cStruct('OpDataMul', [
  ['input1_zero_point', 'int32'], ['input2_zero_point', 'int32'], ['output_activation_min', 'int32'], ['output_activation_max', 'int32'],
  ['output_zero_point', 'int32'], ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['output_activation_min_f32', 'float'], ['output_activation_max_f32', 'float'],
]);
/** micro/kernels/reduce.h (MEAN's InitReduce). */
export const OP_DATA_REDUCE = cStruct('OpDataReduce', [
  ['multiplier', 'int32'], ['shift', 'int32'], ['temp_buffer_idx', 'int32'], ['resolved_axis_idx', 'int32'], ['input_zp', 'int32'],
  ['input_scale', 'float'], ['output_zp', 'int32'], ['output_scale', 'float'], ['num_output_elements', 'int32'],
]);
/** kernels/internal/types.h PadParams (ResizingCategory is a plain enum) inside pad.h's OpData. */
const PAD_PARAMS = cStruct('PadParams', [
  ['left_padding_count', 'int8'], ['left_padding', cArray('int32', 5)], ['right_padding_count', 'int8'], ['right_padding', cArray('int32', 5)],
  ['resizing_category', 'enum'],
]);
export const OP_DATA_PAD = cStruct('OpData (pad)', [['params', PAD_PARAMS], ['output_zero_point', 'int32']]);
/** kernels/internal/types.h ConcatenationParams inside concatenation.cc's OpData. */
export const OP_DATA_CONCATENATION = cStruct('OpData (concatenation)', [['params', cStruct('ConcatenationParams', [
  ['axis', 'int8'], ['input_zeropoint', 'ptr'], ['input_scale', 'ptr'], ['inputs_count', 'uint16'], ['output_zeropoint', 'int32'], ['output_scale', 'float'],
])]]);
/** kernels/internal/types.h ConvParams (PaddingType is `enum class : uint8_t`, PaddingValues int16s). */
const CONV_PARAMS = cStruct('ConvParams', [
  ['padding_type', 'uint8'], ['padding_values', cArray('int16', 4)], ['stride_width', 'int16'], ['stride_height', 'int16'],
  ['dilation_width_factor', 'int16'], ['dilation_height_factor', 'int16'], ['input_offset', 'int32'], ['weights_offset', 'int32'],
  ['output_offset', 'int32'], ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['quantized_activation_min', 'int32'],
  ['quantized_activation_max', 'int32'], ['float_activation_min', 'float'], ['float_activation_max', 'float'],
]);
/** transpose_conv.cc OpData. */
export const OP_DATA_TRANSPOSE_CONV = cStruct('OpData (transpose_conv)', [
  ['params', CONV_PARAMS], ['scratch_buffer_index', 'int32'], ['bias_converted_buffer_index', 'int32'],
  ['per_channel_output_multiplier', 'ptr'], ['per_channel_output_shift', 'ptr'],
]);
/** micro/kernels/quantize.h (QuantizationParams = { int32 zero_point; double scale }). */
export const OP_DATA_QUANTIZE = cStruct('OpDataQuantizeReference', [
  ['quantization_params', cStruct('QuantizationParams', [['zero_point', 'int32'], ['scale', 'double']])],
  ['requantize_output_multiplier', 'int32'], ['requantize_output_shift', 'int32'], ['input_zero_point', 'int32'],
]);
/** micro/kernels/dequantize.h (DequantizationParams = { double scale; int32 zero_point }). */
export const OP_DATA_DEQUANTIZE = cStruct('DequantizeOpData', [
  ['quantization_params', cStruct('DequantizationParams', [['scale', 'double'], ['zero_point', 'int32']])],
  ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['output_zero_point', 'int32'],
]);
/** micro/kernels/logistic.h. */
export const OP_DATA_LOGISTIC = cStruct('OpDataLogistic', [
  ['input_zero_point', 'int32'], ['input_range_radius', 'int32'], ['input_multiplier', 'int32'], ['input_left_shift', 'int32'],
]);
/** micro/kernels/activations.h ReluOpData { ReluParams } (ActivationParams' type is `enum class : uint8_t`). */
export const RELU_OP_DATA = cStruct('ReluOpData', [['params', cStruct('ReluParams', [
  ['activation_type', 'uint8'], ['quantized_activation_min', 'int32'], ['quantized_activation_max', 'int32'],
  ['input_offset', 'int32'], ['output_offset', 'int32'], ['output_multiplier', 'int32'], ['output_shift', 'int32'],
])]]);
/** micro/kernels/activations.h Relu6OpData { six, zero } (not calibrated by oracle data). */
export const RELU6_OP_DATA = cStruct('Relu6OpData', [['six', 'int32'], ['zero', 'int32']]);
/** micro/kernels/leaky_relu.h. */
export const LEAKY_RELU_OP_DATA = cStruct('LeakyReluOpData', [
  ['output_multiplier_alpha', 'int32'], ['output_shift_alpha', 'int32'], ['output_multiplier_identity', 'int32'],
  ['output_shift_identity', 'int32'], ['input_zero_point', 'int32'], ['output_zero_point', 'int32'],
]);
/** kernels/internal/types.h StridedSliceParams: strided_slice_common.cc's Init allocates it directly. */
export const STRIDED_SLICE_PARAMS = cStruct('StridedSliceParams', [
  ['start_indices_count', 'int8'], ['start_indices', cArray('int32', 5)], ['stop_indices_count', 'int8'], ['stop_indices', cArray('int32', 5)],
  ['strides_count', 'int8'], ['strides', cArray('int32', 5)], ['begin_mask', 'uint16'], ['ellipsis_mask', 'uint16'], ['end_mask', 'uint16'],
  ['new_axis_mask', 'uint16'], ['shrink_axis_mask', 'uint16'], ['offset', 'bool'],
]);

/** Prepare's per-channel output multiplier and shift arrays (int32 each, one per output channel). */
export const perChannelArrays = (channels: number): readonly number[] => [4 * channels, 4 * channels];

/** Not a stock TFLM kernel: what mcusim's C runtime keeps (params are `static const`, i.e. flash). */
export function mcusimOnly<K extends BuiltinKind>(why: string, outsideArenaBytes: (ctx: OpContext<K>) => number = () => 0): NonStockOp<K> {
  return { stock: false, why, mcusimPersistentBytes: () => 0, mcusimOutsideArenaBytes: outsideArenaBytes };
}

/** A stock TFLM builtin with these params / OpData structs (either may be null). */
export function stock<K extends BuiltinKind>(builtinData: CStruct | null, opData: CStruct | null): StockTflmPersistent<K> {
  return { stock: true, builtinData, opData };
}


// --- ops added after the first calibration (sizes from the TFLM sources; see docs/tflm-arena.md) ---
export const TFLITE_L2_NORM_PARAMS = cStruct('TfLiteL2NormParams', [['activation', 'enum']]);
export const TFLITE_RESIZE_BILINEAR_PARAMS = cStruct('TfLiteResizeBilinearParams', [['align_corners', 'bool'], ['half_pixel_centers', 'bool']]);
export const TFLITE_RESIZE_NEAREST_NEIGHBOR_PARAMS = cStruct('TfLiteResizeNearestNeighborParams', [['align_corners', 'bool'], ['half_pixel_centers', 'bool']]);
/** elu.cc OpData: the int8 lookup table. */
export const OP_DATA_ELU = cStruct('OpData (elu)', [['table', cArray('int8', 256)]]);
/** kernels/internal/types.h HardSwishParams. */
export const HARD_SWISH_PARAMS = cStruct('HardSwishParams', [
  ['input_zero_point', 'int16'], ['output_zero_point', 'int16'], ['reluish_multiplier_fixedpoint_int16', 'int16'],
  ['reluish_multiplier_exponent', 'int32'], ['output_multiplier_fixedpoint_int16', 'int16'], ['output_multiplier_exponent', 'int32'],
]);
/** kernels/internal/types.h L2NormalizationParams. */
export const L2_NORMALIZATION_PARAMS = cStruct('L2NormalizationParams', [['input_zero_point', 'int32']]);
/** log_softmax.cc LogSoftmaxOpData: allocated by Prepare, for int8 input only. */
export const LOG_SOFTMAX_OP_DATA = cStruct('LogSoftmaxOpData', [
  ['input_multiplier', 'int32'], ['input_left_shift', 'int32'], ['reverse_scaling_divisor', 'int32'], ['reverse_scaling_right_shift', 'int32'],
  ['diff_min', 'int32'], ['outer_size', 'size_t'], ['depth', 'size_t'],
]);
/** kernels/internal/types.h PreluParams. */
export const PRELU_PARAMS = cStruct('PreluParams', [
  ['input_offset', 'int32'], ['alpha_offset', 'int32'], ['output_offset', 'int32'], ['output_multiplier_1', 'int32'],
  ['output_shift_1', 'int32'], ['output_multiplier_2', 'int32'], ['output_shift_2', 'int32'],
]);
/** tanh.cc OpData. */
export const OP_DATA_TANH = cStruct('OpData (tanh)', [
  ['input_zero_point', 'int32'], ['input_range_radius', 'int32'], ['input_multiplier', 'int32'], ['input_left_shift', 'int32'],
]);

// --- ops of the ops-data / lstm merges (TFLM 90b983c sources; see docs/tflm-arena.md) ----------
export const TFLITE_SUB_PARAMS = cStruct('TfLiteSubParams', [['activation', 'enum'], ['pot_scale_int16', 'bool']]);
export const TFLITE_GATHER_PARAMS = cStruct('TfLiteGatherParams', [['axis', 'int32'], ['batch_dims', 'int32']]);
export const TFLITE_SHAPE_PARAMS = cStruct('TfLiteShapeParams', [['out_type', 'enum']]);
export const TFLITE_PACK_PARAMS = cStruct('TfLitePackParams', [['values_count', 'int32'], ['axis', 'int32']]);
export const TFLITE_UNPACK_PARAMS = cStruct('TfLiteUnpackParams', [['num', 'int32'], ['axis', 'int32']]);
export const TFLITE_SQUEEZE_PARAMS = cStruct('TfLiteSqueezeParams', [['squeeze_dims', cArray('int32', 8)], ['num_squeeze_dims', 'int32']]);
export const TFLITE_SPACE_TO_DEPTH_PARAMS = cStruct('TfLiteSpaceToDepthParams', [['block_size', 'int32']]);
export const TFLITE_DEPTH_TO_SPACE_PARAMS = cStruct('TfLiteDepthToSpaceParams', [['block_size', 'int32']]);
export const TFLITE_SVDF_PARAMS = cStruct('TfLiteSVDFParams', [['rank', 'int32'], ['activation', 'enum'], ['asymmetric_quantize_inputs', 'bool']]);
export const TFLITE_UNIDIRECTIONAL_SEQUENCE_LSTM_PARAMS = cStruct('TfLiteUnidirectionalSequenceLSTMParams', [
  ['activation', 'enum'], ['cell_clip', 'float'], ['proj_clip', 'float'], ['time_major', 'bool'],
  ['asymmetric_quantize_inputs', 'bool'], ['diagonal_recurrent_tensors', 'bool'],
]);
/** micro/kernels/sub.h (no float activation fields, unlike OpDataAdd). */
export const OP_DATA_SUB = cStruct('OpDataSub', [
  ['requires_broadcast', 'bool'], ['input1_shift', 'int32'], ['input2_shift', 'int32'], ['output_activation_min', 'int32'],
  ['output_activation_max', 'int32'], ['input1_multiplier', 'int32'], ['input2_multiplier', 'int32'], ['output_multiplier', 'int32'],
  ['output_shift', 'int32'], ['left_shift', 'int32'], ['input1_offset', 'int32'], ['input2_offset', 'int32'], ['output_offset', 'int32'],
]);
/** kernels/internal/types.h ArithmeticParams (BroadcastableOpCategory is `enum class : uint8_t`). */
const ARITHMETIC_PARAMS = cStruct('ArithmeticParams', [
  ['broadcast_category', 'uint8'], ['input1_offset', 'int32'], ['input2_offset', 'int32'], ['output_offset', 'int32'],
  ['output_multiplier', 'int32'], ['output_shift', 'int32'], ['left_shift', 'int32'], ['input1_multiplier', 'int32'],
  ['input1_shift', 'int32'], ['input2_multiplier', 'int32'], ['input2_shift', 'int32'], ['quantized_activation_min', 'int32'],
  ['quantized_activation_max', 'int32'], ['float_activation_min', 'float'], ['float_activation_max', 'float'],
  ['int64_activation_min', 'int64'], ['int64_activation_max', 'int64'], ['broadcast_shape', cArray('int32', 5)],
]);
/** squared_difference.cc OpData. */
export const OP_DATA_SQUARED_DIFFERENCE = cStruct('OpData (squared_difference)', [['requires_broadcast', 'bool'], ['arithmetic_params', ARITHMETIC_PARAMS]]);
/** kernels/internal/types.h SpaceToBatchParams: space_to_batch_nd.cc's Init allocates it directly. */
export const SPACE_TO_BATCH_PARAMS = cStruct('SpaceToBatchParams', [['output_offset', 'int32']]);
/** micro/kernels/svdf.h. */
export const OP_DATA_SVDF = cStruct('OpDataSvdf', [
  ['effective_scale_1_a', 'int32'], ['effective_scale_2_a', 'int32'], ['effective_scale_1_b', 'int32'], ['effective_scale_2_b', 'int32'],
  ['scratch_tensor_index', 'int32'], ['scratch_output_tensor_index', 'int32'], ['input_zero_point', 'int32'],
  ['output_zero_point', 'int32'], ['activation_state_zero_point', 'int32'],
]);
/** kernels/internal/types.h FullyConnectedParams (FullyConnectedWeightsFormat is `enum class : uint8_t`). */
const FULLY_CONNECTED_PARAMS = cStruct('FullyConnectedParams', [
  ['input_offset', 'int32'], ['weights_offset', 'int32'], ['output_offset', 'int32'], ['output_multiplier', 'int32'],
  ['output_shift', 'int32'], ['quantized_activation_min', 'int32'], ['quantized_activation_max', 'int32'],
  ['float_activation_min', 'float'], ['float_activation_max', 'float'], ['lhs_cacheable', 'bool'], ['rhs_cacheable', 'bool'],
  ['weights_format', 'uint8'],
]);
const GATE_PARAMETERS = cStruct('GateParameters', [['input_fc_params', FULLY_CONNECTED_PARAMS], ['recurrent_fc_params', FULLY_CONNECTED_PARAMS]]);
/** micro/kernels/lstm_shared.h OpDataLSTM (unidirectional_sequence_lstm.cc's Init). */
export const OP_DATA_LSTM = cStruct('OpDataLSTM', [
  ['size_info', cStruct('LstmSizeInfo', [['time_major', 'bool'], ['batch_size', 'int32'], ['time_steps', 'int32'], ['input_dimension', 'int32'], ['state_dimension', 'int32']])],
  ['cell_state_info', cStruct('CellStateInfo', [['cell_clip', 'float'], ['quantized_cell_clip', 'int16'], ['cell_state_scale_power', 'int32']])],
  ['cell_gate_nonlinear_type', 'enum'],
  ['forget_gate_parameters', GATE_PARAMETERS], ['input_gate_parameters', GATE_PARAMETERS],
  ['cell_gate_parameters', GATE_PARAMETERS], ['output_gate_parameters', GATE_PARAMETERS],
  ['inter_gate_parameters', cStruct('InterGateParameters', [
    ['forget_cell_mul_params', ARITHMETIC_PARAMS], ['input_mul_params', ARITHMETIC_PARAMS], ['output_mul_params', ARITHMETIC_PARAMS],
  ])],
  ['buffer_indices', cArray('int32', 4)],
]);

/**
 * micro/kernels/kernel_util.cc CreateWritableTensorDimsWithCopy (GATHER, SPACE_TO_DEPTH,
 * DEPTH_TO_SPACE Prepare): the output's dims copied to a persistent TfLiteIntArray,
 * TfLiteIntArrayGetSizeInBytes(rank) = 4 + 4 x rank bytes.
 */
export const writableDimsBytes = (t: Tensor): number => 4 + 4 * t.shape.length;
