// The boards TinyML users most often have, and the MLPerf Tiny boards (issue 44), as data: core and
// its DSP / FPU / MVE features, clock, RAM regions, flash size, flash wait states at that clock and
// what hides them. Every number names its source: a datasheet DS / reference manual RM section, the MLPerf
// Tiny system description the clock comes from, or the vendor's public code that encodes the datasheet
// table (ST STM32Cube LL drivers, Renesas FSP bsp_feature.h, Nuvoton BSP), checked 2026-11-28. "No public
// source retrieved" marks a figure kept from the vendor manual as recalled, not checked against a text.
// Wait states are as the source gives them: in flash-bus clocks (H7: AXI, RA8: ICLK), which on the H743 /
// H747 boards and the RA8D1 run at half the core clock (busClockDivider 2); flash read over an AXI master
// (M7, M85) costs an address phase and one clock per 64-bit beat more (busBytes, flashAccessWaitCycles).
// No spill-store profile here (nicla-vision has one).

import type { CoreFeatures, FlashReadTiming, RamRegion, TargetProfile } from './target-profile.ts';

const KIB = 1024;
const MIB = 1024 * 1024;

interface BoardData {
  readonly name: string;
  readonly description: string;
  readonly mcu: string;
  readonly clockHz: number;
  readonly core: CoreFeatures;
  readonly ramRegions: readonly RamRegion[];
  readonly arenaRegion: string;
  readonly flashBytes: number;
  readonly flashTiming: FlashReadTiming;
  readonly secondCore?: { readonly name: string; readonly clockHz: number };
}

function board(d: BoardData): TargetProfile {
  return {
    name: d.name,
    description: d.description,
    mcu: d.mcu,
    mainCore: { name: d.core.family, clockHz: d.clockHz },
    core: d.core,
    flashTiming: d.flashTiming,
    ...(d.secondCore === undefined ? {} : { secondCore: d.secondCore }),
    sramBytes: d.ramRegions.reduce((a, r) => a + r.sizeBytes, 0),
    ramRegions: d.ramRegions,
    arenaRegion: d.arenaRegion,
    flashBytes: d.flashBytes,
    // Only the spill path uses these (row-window copies, block CRC); same loop estimates as nicla-vision.
    compute: { cyclesPerByteCopied: 0.5, crcCyclesPerByte: 7 },
    computeCalibration: {},
  };
}

const M4F: CoreFeatures = { family: 'cortex-m4', dsp: true, fpu: 'sp', mve: false };
const M33: CoreFeatures = { family: 'cortex-m33', dsp: true, fpu: 'sp', mve: false };

export const nucleoL4r5zi = board({
  name: 'nucleo-l4r5zi', description: 'ST NUCLEO-L4R5ZI: STM32L4R5ZI Cortex-M4F 120 MHz, 640 KB SRAM, 2 MB flash', mcu: 'STM32L4R5ZIT6',
  // MLPerf Tiny v0.5/v1.0 system descriptions (oracle/latency CSV clock_mhz); DS12023 §3.2 max 120 MHz.
  clockHz: 120_000_000, core: M4F,
  // RM0432 §2.2 memory map: SRAM1 0x2000_0000 192 KB, SRAM2 0x2003_0000 64 KB, SRAM3 0x2004_0000 384 KB,
  // one contiguous 640 KB range (DS12023 §3.5 "640 Kbytes of SRAM").
  ramRegions: [{ name: 'SRAM1+SRAM2+SRAM3', sizeBytes: 640 * KIB }], arenaRegion: 'SRAM1+SRAM2+SRAM3',
  flashBytes: 2 * MIB, // DS12023 §3.4: 2 Mbytes of flash.
  flashTiming: {
    // RM0432 §3.3.3 Table 12; STM32CubeL4 Drivers/STM32L4xx_HAL_Driver/Src/stm32l4xx_ll_utils.c Table 1
    // (STM32L4+, voltage range 1): 100 < HCLK <= 120 MHz -> 5WS.
    waitStates: 5,
    accessBytes: 8, // RM0432 §3.3.1: dual-bank mode (default DBANK=1) reads 64 bits (+8 ECC) per access.
    accelerator: 'ART: 1 KB instruction cache (32 x 4 x 64 bit) + prefetch, 256 B data cache (8 x 4 x 64 bit)', // RM0432 §3.3.4
    dataCacheBytes: 256, // RM0432 §3.3.4: data cache 8 lines of 4 x 64 bits.
    dataPrefetch: false, // RM0432 §3.3.4: prefetch serves instruction fetches only (ICode bus).
  },
});

export const ekRa6m4 = board({
  name: 'ek-ra6m4', description: 'Renesas EK-RA6M4: RA6M4 Cortex-M33 200 MHz, 256 KB SRAM, 1 MB flash', mcu: 'R7FA6M4AF3CFB',
  clockHz: 200_000_000, core: M33, // MLPerf Tiny v0.7 renesas system description; R01DS0395 §1.1 "Arm Cortex-M33 ... 200 MHz", DSP, FPU.
  ramRegions: [{ name: 'SRAM', sizeBytes: 256 * KIB }], arenaRegion: 'SRAM', // R01DS0395 §1.2 Table 1.1: 256 KB SRAM.
  flashBytes: 1 * MIB, // R01DS0395 Table 1.1: 1 MB code flash.
  flashTiming: {
    // Renesas FSP ra/fsp/src/bsp/mcu/ra6m4/bsp_feature.h: BSP_FEATURE_BSP_SYS_CLOCK_FREQ_THREE_ROM_WAITS
    // = 150 MHz (FOUR: none), so bsp_clocks.c writes FLWT = 3 ROM wait cycles for ICLK = 200 MHz.
    waitStates: 3,
    accessBytes: 16, // No public source retrieved (R01UH0890 flash cache line size, recalled).
    // Same bsp_feature.h: BSP_FEATURE_BSP_FLASH_CACHE 1, _HAS_CODE_SYSTEM_CACHE 1, _FLASH_PREFETCH_BUFFER 0.
    accelerator: 'flash cache (FCACHE) + code/system caches; no prefetch buffer',
    dataCacheBytes: 2 * KIB, // No public source retrieved (R01UH0890 cache size, recalled).
    dataPrefetch: false, // bsp_feature.h BSP_FEATURE_BSP_FLASH_PREFETCH_BUFFER (0): no prefetch buffer.
  },
});

export const nrf5340Dk = board({
  name: 'nrf5340-dk', description: 'Nordic nRF5340 DK: nRF5340 application core Cortex-M33 128 MHz, 512 KB SRAM, 1 MB flash', mcu: 'nRF5340',
  clockHz: 128_000_000, core: M33, // MLPerf Tiny v1.0 OctoML system description; nRF5340 PS v1.3 §4.1 (128 MHz, DSP, FPU).
  ramRegions: [{ name: 'SRAM', sizeBytes: 512 * KIB }], arenaRegion: 'SRAM', // nRF5340 PS §4.2: 512 KB RAM (application core).
  flashBytes: 1 * MIB, // nRF5340 PS §4.2: 1 MB flash (application core).
  flashTiming: {
    waitStates: 3, // No public source retrieved (nRF5340 PS flash wait states at 128 MHz, recalled).
    // nRF5340 PS "CACHE — Instruction/data cache": two-way set associative, "128-bit cache line", caches
    // instruction and data accesses to flash (infocenter.nordicsemi.com/topic/ps_nrf5340/cache.html).
    accessBytes: 16,
    accelerator: '8 KB 2-way instruction/data cache on the flash',
    // Nordic MDK nrf5340_application.h: NRF_CACHEDATA_Type is SET[256] x WAY[2] x DATA0..3 (16 B) = 8 KB.
    dataCacheBytes: 8 * KIB,
    dataPrefetch: false, // nRF5340 PS §6.3: no data prefetch described.
  },
});

export const nano33BleSense = board({
  name: 'nano33-ble-sense', description: 'Arduino Nano 33 BLE Sense: nRF52840 Cortex-M4F 64 MHz, 256 KB SRAM, 1 MB flash', mcu: 'nRF52840',
  clockHz: 64_000_000, core: M4F, // nRF52840 PS v1.7 §4.1: Arm Cortex-M4 with FPU, 64 MHz.
  ramRegions: [{ name: 'SRAM', sizeBytes: 256 * KIB }], arenaRegion: 'SRAM', // nRF52840 PS §4.2: 256 KB RAM.
  flashBytes: 1 * MIB, // nRF52840 PS §4.2: 1 MB flash.
  flashTiming: {
    waitStates: 2, // No public source retrieved (nRF52840 PS flash wait states at 64 MHz, recalled).
    accessBytes: 4, // No public source retrieved (32-bit flash read port, recalled).
    accelerator: 'NVMC instruction cache (ICACHECNF)', // nRF52840 SVD / PAC nvmc: ICACHECNF "I-code cache".
    dataCacheBytes: 0, // nRF52840 PS §4.3.9: the cache holds instructions only.
    dataPrefetch: false,
  },
});

export const discoF746ng = board({
  name: 'disco-f746ng', description: 'ST 32F746GDISCOVERY: STM32F746NG Cortex-M7 216 MHz, 320 KB SRAM, 1 MB flash', mcu: 'STM32F746NG',
  // MLPerf Tiny v0.7 plumerai system description; DS10916 §2: Cortex-M7 with FPU (single precision), 216 MHz.
  clockHz: 216_000_000, core: { family: 'cortex-m7', dsp: true, fpu: 'sp', mve: false },
  ramRegions: [ // DS10916 §3.11: 320 KB = DTCM 64 KB + SRAM1 240 KB + SRAM2 16 KB (SRAM1/2 contiguous); ITCM 16 KB.
    { name: 'DTCM', sizeBytes: 64 * KIB }, { name: 'SRAM1+SRAM2', sizeBytes: 256 * KIB }, { name: 'ITCM', sizeBytes: 16 * KIB },
  ], arenaRegion: 'SRAM1+SRAM2',
  flashBytes: 1 * MIB, // DS10916 §3.10: 1 Mbyte flash.
  flashTiming: {
    // RM0385 §3.3.2 Table 5; STM32CubeF7 Drivers/STM32F7xx_HAL_Driver/Src/stm32f7xx_ll_utils.c
    // (UTILS_SCALE1_LATENCY7_FREQ 210 MHz, over-drive): 2.7-3.6 V, 210 < HCLK <= 216 MHz -> 7 WS.
    waitStates: 7,
    busBytes: 8, // Cortex-M7 TRM §2.1: 64-bit AXI master (AXIM); AXI clock = HCLK = the core clock here.
    accessBytes: 32, // RM0385 §3.3.2: 256-bit flash read (AXI line fill through the L1 cache).
    accelerator: 'ART accelerator (ITCM path) + M7 L1 cache 4 KB I + 4 KB D (AXI path)', // DS10916 §3.2, §3.4
    dataCacheBytes: 4 * KIB, // DS10916 §3.2: 4 KB data cache.
    dataPrefetch: false,
  },
});

const H7_FLASH_480: FlashReadTiming = {
  // RM0433 §4.3.8 Table 17; STM32CubeH7 Projects/NUCLEO-H743ZI/Examples/PWR/PWR_VOS0_480MHZ/Src/main.c:
  // VOS0, SYSCLK 480 MHz, HCLK (AXI) 240 MHz, "Flash Latency(WS) = 4" (AXI clocks).
  waitStates: 4,
  busClockDivider: 2, // the same main.c: SYSCLK 480 MHz, AXI clock (HCLK) = SYSCLK / 2.
  busBytes: 8, // Cortex-M7 TRM §2.1: the M7 reads memory outside its TCMs over a 64-bit AXI master (AXIM).
  accessBytes: 32, // RM0433 §4.3.7: one 256-bit flash word per read.
  accelerator: 'M7 L1 cache: 16 KB I + 16 KB D (flash over AXI)', // DS12110 §3.1
  dataCacheBytes: 16 * KIB,
  dataPrefetch: false,
};

const H7_RAM: readonly RamRegion[] = [ // DS12110 §3.3.2 embedded SRAM (the H747 has the same map, DS12930 §3.3.2).
  { name: 'ITCM', sizeBytes: 64 * KIB }, { name: 'DTCM', sizeBytes: 128 * KIB }, { name: 'AXI SRAM', sizeBytes: 512 * KIB },
  { name: 'SRAM1', sizeBytes: 128 * KIB }, { name: 'SRAM2', sizeBytes: 128 * KIB }, { name: 'SRAM3', sizeBytes: 32 * KIB },
  { name: 'SRAM4', sizeBytes: 64 * KIB }, { name: 'Backup SRAM', sizeBytes: 4 * KIB },
];

export const nucleoH743zi2 = board({
  name: 'nucleo-h743zi2', description: 'ST NUCLEO-H743ZI2: STM32H743ZI Cortex-M7 480 MHz, 1 MB SRAM, 2 MB flash', mcu: 'STM32H743ZIT6',
  clockHz: 480_000_000, core: { family: 'cortex-m7', dsp: true, fpu: 'dp', mve: false }, // DS12110 §3.1: up to 480 MHz (rev V), DP FPU.
  ramRegions: H7_RAM, arenaRegion: 'AXI SRAM',
  flashBytes: 2 * MIB, // DS12110 §3.3.1: 2 Mbytes.
  flashTiming: H7_FLASH_480,
});

export const portentaH7 = board({
  name: 'portenta-h7', description: 'Arduino Portenta H7: STM32H747XI Cortex-M7 480 MHz + Cortex-M4 240 MHz, 1 MB SRAM, 2 MB flash', mcu: 'STM32H747XIH6',
  clockHz: 480_000_000, core: { family: 'cortex-m7', dsp: true, fpu: 'dp', mve: false }, // DS12930 §3.1 (M7 480 MHz, M4 240 MHz).
  secondCore: { name: 'cortex-m4', clockHz: 240_000_000 },
  ramRegions: H7_RAM, arenaRegion: 'AXI SRAM', // DS12930 §3.3.2 (same map as the H743).
  flashBytes: 2 * MIB, // DS12930 §3.3.1: 2 Mbytes.
  // RM0399 §4.3.8 Table 16 not retrieved; the H747 has the H743's flash and AXI clock (DS12930 §3.3.1), and
  // STM32CubeH7 Projects/STM32H747I-DISCO/Examples/GPIO/GPIO_EXTI/CM7/Src/main.c programs FLASH_LATENCY_4.
  flashTiming: { ...H7_FLASH_480, waitStates: 4 },
});

export const nucleoH7a3ziQ = board({
  name: 'nucleo-h7a3zi-q', description: 'ST NUCLEO-H7A3ZI-Q: STM32H7A3ZI Cortex-M7 280 MHz, 1.4 MB SRAM, 2 MB flash', mcu: 'STM32H7A3ZIT6Q',
  clockHz: 280_000_000, core: { family: 'cortex-m7', dsp: true, fpu: 'dp', mve: false }, // MLPerf Tiny v0.7 ST system description; DS13195 §3.1: 280 MHz.
  ramRegions: [ // DS13195 §3.3.2: 1.4 MB = AXI SRAM 1024 KB (3 contiguous banks) + AHB SRAM 128 KB + SRD 32 KB; TCM 64 + 128 KB.
    { name: 'ITCM', sizeBytes: 64 * KIB }, { name: 'DTCM', sizeBytes: 128 * KIB }, { name: 'AXI SRAM', sizeBytes: 1024 * KIB },
    { name: 'AHB SRAM', sizeBytes: 128 * KIB }, { name: 'SRD SRAM', sizeBytes: 32 * KIB },
  ], arenaRegion: 'AXI SRAM',
  flashBytes: 2 * MIB, // DS13195 §3.3.1: 2 Mbytes.
  flashTiming: {
    // RM0455 flash table; STM32CubeH7 Drivers/STM32H7xx_HAL_Driver/Src/stm32h7xx_ll_utils.c, STM32H7_DEV_ID
    // 0x480 (H7A3/B3): UTILS_SCALE0_LATENCY6_FREQ 280 MHz, i.e. VOS0, 264 < HCLK <= 280 MHz -> 6 WS.
    waitStates: 6,
    busBytes: 8, // Cortex-M7 TRM §2.1: 64-bit AXI master (AXIM); the H7A3's AXI runs at the core clock (HPRE /1 at 280 MHz).
    accessBytes: 16, // RM0455 §4.3.7: 128-bit flash word.
    accelerator: 'M7 L1 cache: 16 KB I + 16 KB D (flash over AXI)', // DS13195 §3.1
    dataCacheBytes: 16 * KIB,
    dataPrefetch: false,
  },
});

export const nucleoU575ziQ = board({
  name: 'nucleo-u575zi-q', description: 'ST NUCLEO-U575ZI-Q: STM32U575ZI Cortex-M33 160 MHz, 786 KB SRAM, 2 MB flash', mcu: 'STM32U575ZIT6Q',
  clockHz: 160_000_000, core: M33, // MLPerf Tiny v0.7 ST system description; DS13737 §3.1: Cortex-M33 160 MHz, DSP, FPU.
  ramRegions: [ // DS13737 §3.5: SRAM1 192 KB, SRAM2 64 KB, SRAM3 512 KB (contiguous 0x2000_0000-0x200B_FFFF), SRAM4 16 KB.
    { name: 'SRAM1+SRAM2+SRAM3', sizeBytes: 768 * KIB }, { name: 'SRAM4', sizeBytes: 16 * KIB },
  ], arenaRegion: 'SRAM1+SRAM2+SRAM3',
  flashBytes: 2 * MIB, // DS13737 §3.4: 2 Mbytes.
  flashTiming: {
    // RM0456 §7.3.3 Table 54; STM32CubeU5 Drivers/STM32U5xx_HAL_Driver/Src/stm32u5xx_ll_utils.c Table 1:
    // voltage range 1, 128 < HCLK <= 160 MHz -> 4WS.
    waitStates: 4,
    accessBytes: 16, // RM0456 §7.3.2: 128-bit flash read (ICACHE line 16 bytes in 1-way mode, RM0456 §8).
    accelerator: 'ICACHE 8 KB on the code bus (caches instruction and data fetches from flash) + prefetch', // RM0456 §8.3
    dataCacheBytes: 8 * KIB, // RM0456 §8.3: ICACHE caches all C-AHB traffic, data reads of flash included.
    dataPrefetch: false, // RM0456 §7.3.4 PRFTEN: the flash prefetch serves instruction fetches.
  },
});

export const numakerM467hj = board({
  name: 'numaker-m467hj', description: 'Nuvoton NuMaker-M467HJ: M467HJHAE Cortex-M4F 200 MHz, 512 KB SRAM, 1 MB flash', mcu: 'M467HJHAE',
  clockHz: 200_000_000, core: M4F, // Nuvoton M460 series datasheet §3: Arm Cortex-M4F up to 200 MHz.
  // M460 datasheet §3: 512 KB SRAM; OpenNuvoton/m460bsp Library/Device/Nuvoton/m460/Source/GCC/gcc_arm.ld:
  // RAM ORIGIN 0x20000000, LENGTH 0x80000.
  ramRegions: [{ name: 'SRAM', sizeBytes: 512 * KIB }], arenaRegion: 'SRAM',
  flashBytes: 1 * MIB, // M460 datasheet §3: 1 MB dual-bank APROM.
  flashTiming: {
    // OpenNuvoton/m460bsp Library/Device/Nuvoton/m460/Include/fmc_reg.h, FMC_CYCCTL.CYCLE: "1000 = CPU access
    // with eight wait cycles if cache miss ... HCLK > 192 MHz"; Library/StdDriver/src/clk.c CLK_SetHCLK writes
    // CYCLE = 8 for HCLK >= 175 MHz. (Was 4, recalled.)
    waitStates: 8,
    accessBytes: 16, // No public source retrieved (FMC cache line, recalled).
    accelerator: 'FMC cache with prefetch', // fmc_reg.h CYCLE: wait cycles apply "if cache miss".
    dataCacheBytes: 16 * KIB, // No public source retrieved (cache size, recalled).
    dataPrefetch: false, // No data prefetch described (assumed, as the other flash prefetch buffers here).
  },
});

export const ekRa8d1 = board({
  name: 'ek-ra8d1', description: 'Renesas EK-RA8D1: RA8D1 Cortex-M85 (Helium) 480 MHz, 1 MB SRAM, 2 MB flash', mcu: 'R7FA8D1BHECBD',
  clockHz: 480_000_000, core: { family: 'cortex-m85', dsp: true, fpu: 'dp', mve: true }, // R01DS0445 §1.1: Cortex-M85 480 MHz, Helium MVE, DP FPU.
  // R01DS0445 Table 1.1 split (896 KB SRAM + ITCM 64 + DTCM 64 KB): no public source retrieved; FSP
  // ra/fsp/src/bsp/mcu/ra8d1/bsp_feature.h confirms an ITCM and a DTCM (BSP_FEATURE_BSP_HAS_ITCM/_DTCM 1).
  ramRegions: [
    { name: 'SRAM', sizeBytes: 896 * KIB }, { name: 'ITCM', sizeBytes: 64 * KIB }, { name: 'DTCM', sizeBytes: 64 * KIB },
  ], arenaRegion: 'SRAM',
  flashBytes: 2 * MIB, // R01DS0445 Table 1.1: 2 MB code flash.
  flashTiming: {
    // Renesas FSP ra/fsp/src/bsp/mcu/ra8d1/bsp_feature.h: SYS_CLOCK_FREQ_FOUR_ROM_WAITS 192 MHz, _FIVE_ 240 MHz,
    // so ICLK = 240 MHz takes FLWT = 4 ROM wait cycles (ICLK cycles; bsp_clocks.c writes FLWT from ICLK).
    waitStates: 4,
    // ICLK = CPUCLK / 2: the EK-RA8D1 MLPerf Tiny v1.2 project's ra_gen/bsp_clock_cfg.h (PLL1P 480 MHz,
    // CPUCLK /1, ICLK /2), RA8D1's 240 MHz ICLK limit behind a 480 MHz core.
    busClockDivider: 2,
    busBytes: 8, // Cortex-M85 TRM: the core reads memory outside its TCMs over a 64-bit AXI5 master (M-AXI).
    // Without the L1 data cache each MVE vector load (VLDRB.8: 16 bytes) is its own AXI read: no line fill.
    accessBytes: 16,
    // FSP's BSP property default leaves the L1 D-cache off: ra_cfg/fsp_cfg/bsp/bsp_mcu_family_cfg.h
    // BSP_CFG_DCACHE_ENABLED (0), and system.c enables it only under that flag (the MLPerf v1.2 project keeps
    // it off: SCB_EnableDCache() commented out). bsp_clocks.c enables the flash cache (R_BSP_FlashCacheEnable,
    // FCACHEE); its size: no public source retrieved, taken as holding no weights between passes.
    accelerator: 'M85 L1 cache: 32 KB I + 32 KB D (D-cache off by FSP default) + FCACHE flash cache', // R01DS0445 §1.1
    dataCacheBytes: 0,
    // The in-order M85 keeps AXI reads outstanding while the MVE beats of earlier instructions run: only the
    // wait cycles beyond the compute between two weight loads stall it.
    dataPrefetch: true,
  },
});

export const rpiPico = board({
  name: 'rpi-pico', description: 'Raspberry Pi Pico: RP2040 dual Cortex-M0+ 133 MHz, 264 KB SRAM, 2 MB QSPI flash (XIP)', mcu: 'RP2040',
  // RP2040 datasheet §1: dual Cortex-M0+ at 133 MHz, no DSP, no FPU; single-cycle multiplier (§2.1).
  clockHz: 133_000_000, core: { family: 'cortex-m0plus', dsp: false, fpu: 'none', mve: false },
  secondCore: { name: 'cortex-m0plus', clockHz: 133_000_000 },
  // RP2040 datasheet §2.6.2: SRAM0-3 4 x 64 KB striped (one 256 KB range) + SRAM4/5 2 x 4 KB.
  ramRegions: [{ name: 'SRAM0-3 (striped)', sizeBytes: 256 * KIB }, { name: 'SRAM4', sizeBytes: 4 * KIB }, { name: 'SRAM5', sizeBytes: 4 * KIB }],
  arenaRegion: 'SRAM0-3 (striped)',
  flashBytes: 2 * MIB, // Pico datasheet §2.1: W25Q16JV 2 MB QSPI flash.
  flashTiming: {
    // An estimate, no public source retrieved for the figure: XIP over QSPI at clk_sys / 2 (boot2 default,
    // RP2040 datasheet §2.6.3), an 8-byte line fill taken as ~48 QSPI clocks (command, address, dummy and
    // 64 data bits) = ~96 core cycles. The datasheet gives no per-fill latency.
    waitStates: 95,
    accessBytes: 8, // RP2040 datasheet §2.6.3.1: XIP cache lines are 8 bytes.
    accelerator: '16 KB XIP cache (2-way, instruction and data)', // RP2040 datasheet §2.6.3.1
    dataCacheBytes: 16 * KIB,
    dataPrefetch: false,
  },
});

export const ensembleE7 = board({
  name: 'ensemble-e7',
  description: 'Alif Ensemble E7 (AppKit E7): Cortex-M55 high-performance core 400 MHz (Helium), 13.5 MB SRAM, 5.5 MB MRAM', mcu: 'AE722F80F55D5',
  // Alif Ensemble E7 product brief: RTSS-HP Cortex-M55 up to 400 MHz with Helium (MVE) and FPU; the HP core's
  // TCMs and SRAM0/1 run at 400 MHz (Alif whitepaper AWPR0003 "RAM Regions and Linker Files", Rev B table).
  clockHz: 400_000_000, core: { family: 'cortex-m55', dsp: true, fpu: 'dp', mve: true },
  // AWPR0003 (Rev A / B tables): SRAM0 4096 KB and SRAM1 2560 KB (bulk, 400 MHz), SRAM2 256 KB = HP ITCM,
  // SRAM3 1024 KB = HP DTCM (400 MHz); the HE core's TCMs (SRAM4/5) and SRAM6-9 (160 MHz) are left out.
  ramRegions: [
    { name: 'SRAM0', sizeBytes: 4096 * KIB }, { name: 'SRAM1', sizeBytes: 2560 * KIB },
    { name: 'ITCM (SRAM2)', sizeBytes: 256 * KIB }, { name: 'DTCM (SRAM3)', sizeBytes: 1024 * KIB },
  ], arenaRegion: 'SRAM0',
  flashBytes: 5632 * KIB, // Ensemble E7 product brief: 5.5 MB MRAM (code and model constants, executed in place).
  flashTiming: {
    waitStates: 2, // No public source retrieved (MRAM read latency at 400 MHz behind the M55's caches).
    accessBytes: 16, // No public source retrieved (MRAM 128-bit read port).
    accelerator: 'M55 L1 caches: 32 KB I + 32 KB D (Ensemble E7 HP core)', // Ensemble E7 product brief: 32 KB I / 32 KB D cache per M55.
    dataCacheBytes: 32 * KIB,
    dataPrefetch: true, // CMSIS core_cm55.h MEMSYSCTL->PFCR: the M55's data prefetcher (ENABLE, MIN_LA / MAX_LA look-ahead).
  },
});

export const BOARDS: readonly TargetProfile[] = [
  nucleoL4r5zi, ekRa6m4, nrf5340Dk, nano33BleSense, discoF746ng, nucleoH743zi2, nucleoH7a3ziQ,
  nucleoU575ziQ, numakerM467hj, ekRa8d1, rpiPico, portentaH7, ensembleE7,
];
