// Shape of a board profile: core and its features, clocks, RAM regions, flash read timing, and
// (where profiled) codec costs and the timing parameters of the three spill stores TinySeg evaluates
// (internal flash, external QSPI NOR flash, remote host over serial; TinySeg LCTES'24 §6.2.2).
// Profiles are plain data; every number in a concrete profile carries a comment naming its source.

import { UsageError } from '../../ir/index.ts';

/** TFLM kernel implementations the latency model can assume (DESIGN.md §3 cost model). */
export type KernelLibrary = 'reference' | 'cmsis-nn';

export const KERNEL_LIBRARIES: readonly KernelLibrary[] = ['reference', 'cmsis-nn'];

/** What latency estimates assume without --kernels: the library TFLM builds for Cortex-M use (and TinySeg's did). */
export const DEFAULT_KERNEL_LIBRARY: KernelLibrary = 'cmsis-nn';

/** Kernels whose cost scales with multiply-accumulates. */
export type MacKernelClass = 'conv2d' | 'depthwiseConv2d' | 'fullyConnected' | 'transposeConv';

/** Kernels whose cost scales with output elements rather than MACs. */
export type ElementKernelClass = 'pooling' | 'elementwise' | 'softmax';

export interface CoreProfile {
  readonly name: string;
  readonly clockHz: number;
}

/** Byte-loop costs of the spill path (copies into a row window, mcusim's block CRC). Kernel
 * compute is costed by src/sim/latency/kernel-cost from the core and flash below. */
export interface ComputeCosts {
  /** memcpy-like data movement on the main core (row-window copies). */
  readonly cyclesPerByteCopied: number;
  /** CRC-32 over a spill block (mcusim's integrity check; TinySeg's runtime has none). */
  readonly crcCyclesPerByte: number;
}

/** Cortex-M cores whose kernel code paths differ (CMSIS-NN: scalar, DSP extension, MVE/Helium). */
export type CoreFamily = 'cortex-m0plus' | 'cortex-m4' | 'cortex-m7' | 'cortex-m33' | 'cortex-m55' | 'cortex-m85';

export const CORE_FAMILIES: readonly CoreFamily[] = ['cortex-m0plus', 'cortex-m4', 'cortex-m7', 'cortex-m33', 'cortex-m55', 'cortex-m85'];

/** The main core's instruction-set features, as CMSIS-NN's build selects on them. */
export interface CoreFeatures {
  readonly family: CoreFamily;
  /** DSP extension (SMLAD, SXTB16): CMSIS-NN's ARM_MATH_DSP paths. */
  readonly dsp: boolean;
  readonly fpu: 'none' | 'sp' | 'dp';
  /** M-profile Vector Extension (Helium): CMSIS-NN's ARM_MATH_MVEI paths. */
  readonly mve: boolean;
}

/** How the program and the model's constant data (weights) are read from flash at the board's clock. */
export interface FlashReadTiming {
  /** Wait states configured at the clock, in clocks of the flash's bus (`busClockDivider`): an access on the
   * core's own bus clock costs 1 + waitStates core cycles (`flashAccessWaitCycles`). */
  readonly waitStates: number;
  /** Core cycles per clock of the bus the flash is read over (RA8D1: ICLK = CPUCLK / 2); default 1. */
  readonly busClockDivider?: number;
  /** Bytes per data beat where the flash is read over an AXI bus (an address phase, the wait states, then
   * one beat per `busBytes` of the access); absent: the access completes in 1 + waitStates bus clocks. */
  readonly busBytes?: number;
  /** Bytes one flash access (or cache line fill) brings in. */
  readonly accessBytes: number;
  /** What hides the wait states from the instruction stream (ART accelerator, L1 cache, ...). */
  readonly accelerator: string;
  /** Cache bytes that may hold weight data between passes (0: weights stream from flash every pass). */
  readonly dataCacheBytes: number;
  /** Sequential data prefetch: wait states of streamed weights overlap with compute. */
  readonly dataPrefetch: boolean;
}

/**
 * A user's scale on the modelled compute cycles of a kernel library (a board file's own
 * measurement, `--board-file`), on top of the cost model's family constant. Only the compute
 * model is scaled; storage and codec times stay datasheet predictions.
 */
export interface ComputeCalibration {
  readonly scale: number;
  readonly source: string;
}

/** Per-byte cycle costs of TinySeg's most-frequent-value codec (§5.1). */
export interface CodecCosts {
  /** Counting pass that finds the most frequent value. */
  readonly histogramCyclesPerByte: number;
  /** Fixed cost of scanning the 256-entry histogram. */
  readonly histogramScanCycles: number;
  /** Pass that writes the bitmap and the other values. */
  readonly encodeCyclesPerByte: number;
  /** Decompression, per decoded (raw) byte. */
  readonly decodeCyclesPerByte: number;
}

export interface InternalFlashParams {
  readonly banks: number;
  readonly sectorsPerBank: number;
  readonly sectorBytes: number;
  /** Flash word: the unit that is programmed at once (with its ECC). */
  readonly programUnitBytes: number;
  readonly sectorEraseUs: number;
  readonly sectorEraseMaxUs: number;
  readonly wordProgramUs: number;
  readonly wordProgramMaxUs: number;
  /** AXI clock feeding the flash interface. */
  readonly busClockHz: number;
  /** Wait states configured for the AXI clock (FLASH_ACR.LATENCY). */
  readonly readWaitStates: number;
  /** Bytes delivered per flash read access. */
  readonly readAccessBytes: number;
}

/** One erase instruction of a serial NOR part (SFDP erase type): its size and typical busy time. */
export interface QspiEraseType {
  readonly sizeBytes: number;
  readonly eraseUs: number;
}

export interface QspiFlashParams {
  readonly sizeBytes: number;
  /** Smallest erase unit (what the driver reports as its erase size). */
  readonly sectorBytes: number;
  readonly pageBytes: number;
  readonly sectorEraseUs: number;
  /** Larger erase instructions the driver may pick for aligned ranges (SFDP erase types 2-4). */
  readonly blockErases: readonly QspiEraseType[];
  readonly pageProgramUs: number;
  readonly busClockHz: number;
  /** Data lines used by the driver's read command (4 = quad). */
  readonly readDataLines: number;
  /** Data lines used by the driver's page program command (1 = single). */
  readonly programDataLines: number;
  /** Instruction + address + mode/dummy clocks before read data. */
  readonly readCommandClocks: number;
  /** Instruction + address clocks of a program or erase command (plus write enable). */
  readonly writeCommandClocks: number;
  /** The driver sleeps this long (one RTOS tick) before each busy poll, so waits end on ticks. */
  readonly driverPollIntervalUs: number;
}

export interface RemoteLinkParams {
  /** Bytes the host keeps for spilled tensors. */
  readonly sizeBytes: number;
  /** Bulk max packet size of the device's CDC endpoints: one blocking send() per packet. */
  readonly packetBytes: number;
  /** Peak bulk payload rate of the USB link. */
  readonly linkBytesPerSecond: number;
  /** Time one blocking send() waits beyond the packet's wire time (interrupts, thread wake-up). */
  readonly sendPacketUs: number;
  /** Main-core cycles the byte-wise receive path (Stream::readBytes) spends per received byte. */
  readonly readCyclesPerByte: number;
  /** Time from the end of a read request to the first reply byte (host turnaround). */
  readonly readTurnaroundUs: number;
}

/** One contiguous RAM block of the chip (a tensor arena must fit inside one). */
export interface RamRegion {
  readonly name: string;
  readonly sizeBytes: number;
}

/** How the board's usual SDK compiles TFLM, where that differs from a vendor -O2 / -O3 build. */
export interface BoardBuild {
  /** The SDK, e.g. 'Arduino mbed core (NICLA_VISION variant)'. */
  readonly sdk: string;
  /** The optimization level its compiler flags give: the latency model has a constant per (core family, level). */
  readonly optimization: '-Os';
  readonly source: string;
}

export interface TargetProfile {
  readonly name: string;
  readonly description: string;
  /** Microcontroller part on the board. */
  readonly mcu: string;
  readonly mainCore: CoreProfile;
  readonly core: CoreFeatures;
  readonly flashTiming: FlashReadTiming;
  /** Absent on single-core parts (no asynchronous erase). */
  readonly secondCore?: CoreProfile;
  /** Absent: a vendor -O2 / -O3 build (what the instruction counts were measured on). */
  readonly build?: BoardBuild;
  readonly sramBytes: number;
  /** The SRAM's separate blocks; the arena goes in `arenaRegion`. */
  readonly ramRegions: readonly RamRegion[];
  /** Name of the region that holds the tensor arena (the largest). */
  readonly arenaRegion: string;
  /** Internal flash holding the program and the model's constant data. */
  readonly flashBytes: number;
  readonly compute: ComputeCosts;
  /** Per kernel library; a library without an entry is unscaled. */
  readonly computeCalibration: Readonly<Partial<Record<KernelLibrary, ComputeCalibration>>>;
  /** The spill-store parts below are profiled only for boards TinySeg-style spilling was modelled on. */
  readonly codec?: CodecCosts;
  readonly internalFlash?: InternalFlashParams;
  readonly qspiFlash?: QspiFlashParams;
  readonly remoteHost?: RemoteLinkParams;
}

/** A board profiled for spilling too (every storage device and the codec). */
export type SpillTargetProfile = TargetProfile & Required<Pick<TargetProfile, 'secondCore' | 'codec' | 'internalFlash' | 'qspiFlash' | 'remoteHost'>>;

/** Converts cycles on a core to microseconds. */
export function cyclesToUs(core: CoreProfile, cycles: number): number {
  return (cycles * 1e6) / core.clockHz;
}

type SpillPart = 'secondCore' | 'codec' | 'internalFlash' | 'qspiFlash' | 'remoteHost';

/** The spill-store part `key` of `target`; a board profiled without it is a UsageError naming what needs it. */
export function spillPart<K extends SpillPart>(target: TargetProfile, key: K, neededFor: string): NonNullable<TargetProfile[K]> {
  const part = target[key];
  if (part === undefined || part === null) {
    throw new UsageError(`board '${target.name}' has no ${key} profile (needed for ${neededFor}); spill storage is profiled on nicla-vision`);
  }
  return part as NonNullable<TargetProfile[K]>;
}
