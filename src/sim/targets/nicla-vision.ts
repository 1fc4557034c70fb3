// Arduino Nicla Vision (STM32H747AII6, the board TinySeg LCTES'24 §6.1 measured on) as data.
// Every number names its source. "ESTIMATE" marks values with no published figure found;
// they are modelling assumptions, not fitted to TinySeg's Table 5 (DESIGN.md §6).

import type { SpillTargetProfile } from './target-profile.ts';

const KIB = 1024;
const MIB = 1024 * 1024;

export const niclaVision: SpillTargetProfile = {
  name: 'nicla-vision',
  description: 'Arduino Nicla Vision: STM32H747 Cortex-M7 480 MHz + Cortex-M4 240 MHz, 2 MB flash, 16 MB QSPI NOR',
  // Arduino docs-content nicla-vision tech-specs.yml "Processor (M7): 480MHz"; TinySeg §6.1.
  mainCore: { name: 'cortex-m7', clockHz: 480_000_000 },
  mcu: 'STM32H747AII6',
  // DS12930 §3.1 "Arm Cortex-M7 core with double-precision FPU" (DSP instructions: Armv7E-M), no MVE.
  core: { family: 'cortex-m7', dsp: true, fpu: 'dp', mve: false },
  flashTiming: {
    // RM0399 §4.3.8 Table 16 (FLASH_ACR.LATENCY at VOS1, AXI 240 MHz): 4 wait states.
    waitStates: 4,
    // RM0399 §8 (RCC): SYSCLK 480 MHz, the AXI clock (HCLK) at SYSCLK / 2 = 240 MHz, the clock FLASH_ACR counts.
    busClockDivider: 2,
    busBytes: 8, // Cortex-M7 TRM §2.1: the M7 reads flash over its 64-bit AXI master (AXIM).
    // RM0399 §4.3.7: a read returns one 256-bit flash word.
    accessBytes: 32,
    // DS12930 §3.1: 16 KB I-cache + 16 KB D-cache (L1) on the M7's AXI master.
    accelerator: 'M7 L1 cache: 16 KB I + 16 KB D (flash over AXI)',
    dataCacheBytes: 16 * KIB,
    // The M7 has no data prefetcher for AXI reads (Cortex-M7 TRM §5.3 describes line fills only).
    dataPrefetch: false,
  },
  // Same tech-specs.yml "Processor (M4): 240MHz"; TinySeg §6.2.3 ("Cortex-M4 core at up to 240 MHz").
  secondCore: { name: 'cortex-m4', clockHz: 240_000_000 },
  // Tech-specs.yml "STM32H747: 1MB RAM"; TinySeg §6.1 "1 MB main memory".
  sramBytes: 1 * MIB,
  // STM32H747xI/G datasheet (DS12930) §3.3.2 "Embedded SRAM" and RM0399 memory map (DESIGN.md §6):
  // the 1 MB is not one block. The AXI SRAM (D1 domain, 512 KB) is the largest, where a tensor arena goes.
  ramRegions: [
    { name: 'ITCM', sizeBytes: 64 * KIB }, // DS12930 §3.3.2: 64 KB ITCM
    { name: 'DTCM', sizeBytes: 128 * KIB }, // DS12930 §3.3.2: 128 KB DTCM
    { name: 'AXI SRAM', sizeBytes: 512 * KIB }, // DS12930 §3.3.2: 512 KB AXI-SRAM (D1)
    { name: 'SRAM1', sizeBytes: 128 * KIB }, // DS12930 §3.3.2: SRAM1 128 KB (D2)
    { name: 'SRAM2', sizeBytes: 128 * KIB }, // DS12930 §3.3.2: SRAM2 128 KB (D2)
    { name: 'SRAM3', sizeBytes: 32 * KIB }, // DS12930 §3.3.2: SRAM3 32 KB (D2)
    { name: 'SRAM4', sizeBytes: 64 * KIB }, // DS12930 §3.3.2: SRAM4 64 KB (D3)
    { name: 'Backup SRAM', sizeBytes: 4 * KIB }, // DS12930 §3.3.2: 4 KB backup SRAM
  ],
  arenaRegion: 'AXI SRAM',
  // Tech-specs.yml "2MB Flash"; RM0399: 2 banks x 8 sectors x 128 KB (the internalFlash geometry below).
  flashBytes: 2 * MIB,
  compute: {
    // ESTIMATE: word-wise memcpy on a dual-issue M7 (one 4-byte load+store pair per ~2 cycles).
    cyclesPerByteCopied: 0.5,
    // ESTIMATE: byte-wise table-driven CRC-32 (load, xor, table load, shift, xor) ~7 cycles/byte;
    // mcusim's own block check (src/sim/storage/crc32.ts), absent from TinySeg's runtime.
    crcCyclesPerByte: 7,
  },
  // No per-board scale: kernel compute comes from the Cortex-M7 cost model (src/sim/latency/kernel-cost),
  // whose one constant is fitted on TinySeg Table 5's original 1190 ms (scripts/fit-latency.ts).
  // TinySeg built its runtime with the Arduino IDE (LCTES'24 §6.1), whose mbed core compiles the NICLA_VISION
  // variant at -Os (ArduinoCore-mbed variants/NICLA_VISION/cflags.txt; PORTENTA_H7_M7's is -O3).
  build: { sdk: 'Arduino mbed core (NICLA_VISION variant)', optimization: '-Os', source: 'ArduinoCore-mbed variants/NICLA_VISION/cflags.txt: -Os; TinySeg LCTES 2024 §6.1 (Arduino IDE)' },
  computeCalibration: {},
  codec: {
    // ESTIMATE from the byte loops of TinySeg's runtime (application/tinyseg_transfer_module.cpp
    // find_max_value / compress / decompress): load + increment per byte, 256-entry scan,
    // compare + conditional store + mask update per byte on encode and decode.
    histogramCyclesPerByte: 2,
    histogramScanCycles: 512,
    encodeCyclesPerByte: 4,
    decodeCyclesPerByte: 4,
  },
  internalFlash: {
    // RM0399 embedded flash: 2 banks x 1 MB, 8 sectors of 128 KB per bank (DESIGN.md §6;
    // same organisation summarised for the H743 die in bbs.21ic.com/icview-3248566).
    banks: 2,
    sectorsPerBank: 8,
    sectorBytes: 128 * KIB,
    // RM0399 "flash word" = 256 bits (+10 ECC bits); ST community: H7 programs in 32-byte,
    // 32-byte-aligned units and refuses to reprogram a word without erase (ECC).
    programUnitBytes: 32,
    // STM32H743 datasheet DS12110 Table 53 "Flash memory programming", tERASE128KB, parallelism
    // x32 (the H747's DS12930 table is the same flash; not retrieved): 1.1 s typ, 2.2 s max.
    // x32 is what TinySeg's path selects: FlashIAPBlockDevice -> mbed-os STM32H7 flash_api.c
    // flash_erase_sector() uses FLASH_VOLTAGE_RANGE_3 (PSIZE x32), and flash_program_page()
    // programs one 32-byte flash word per HAL_FLASH_Program call (busy-wait, no RTOS sleep).
    sectorEraseUs: 1_100_000,
    sectorEraseMaxUs: 2_200_000,
    // DS12110 Table 53 tprog "Word (266 bits) programming time", x32: 130 us typ, 260 us max.
    // NOT retrieved verbatim (recalled); consistent with chromium-ec flash-stm32h7.c using a
    // 600 us word-program timeout (x8 max 580 us). Verify against DS12930 before relying on it.
    wordProgramUs: 130,
    wordProgramMaxUs: 260,
    // STM32CubeH7 SystemClock_Config at 480 MHz: AHBCLKDivider RCC_HCLK_DIV2 -> AXI 240 MHz.
    busClockHz: 240_000_000,
    // Same examples: HAL_RCC_ClockConfig(..., FLASH_LATENCY_4).
    readWaitStates: 4,
    // RM0399: reads return one 256-bit flash word per access.
    readAccessBytes: 32,
  },
  qspiFlash: {
    // Nicla Vision datasheet (Arduino docs-content): "AT25QL128A-UUE-T 16 MB Flash".
    sizeBytes: 16 * MIB,
    // mbed-os QSPIFBlockDevice QSPIF_DEFAULT_SE_SIZE 4096; AT25 family 4-KB block erase
    // (AT25SL128 / AT25SF128A datasheets, Features). TinySeg erases get_erase_size() units.
    sectorBytes: 4 * KIB,
    // AT25SL128 datasheet "Byte/Page Program (1 to 256 Bytes)"; QSPIFBlockDevice::program
    // splits writes on 256-byte page boundaries.
    pageBytes: 256,
    // AT25QL128A datasheet NOT found. Sibling 1.8 V part AT25SL128 (DS-25SL128-090A-4/2016,
    // Features): "60 ms Typical 4-Kbyte Block Erase Time" (AT25SF128A, 3 V: 70 ms). DESIGN.md §6.
    sectorEraseUs: 60_000,
    // Same AT25SL128 Features list: "200 ms Typical 32-Kbyte" and "400 ms Typical 64-Kbyte Block
    // Erase Time" (AT25SF128A: 150 / 250 ms). mbed's QSPIFBlockDevice::erase reads these erase
    // types from SFDP and issues the largest one that fits (sfdp_iterate_next_largest_erase_type).
    blockErases: [
      { sizeBytes: 32 * KIB, eraseUs: 200_000 },
      { sizeBytes: 64 * KIB, eraseUs: 400_000 },
    ],
    // AT25SL128 Features: "0.7 ms Typical Page Program (256 Bytes) Time" (AT25SF128A: 0.6 ms).
    pageProgramUs: 700,
    // ArduinoCore-mbed variants/NICLA_VISION/mbed_config.h: MBED_CONF_QSPIF_QSPI_FREQ 40000000.
    busClockHz: 40_000_000,
    // mbed-os QSPIFBlockDevice::init(): "All commands other than Read and RSFDP use default
    // 1-1-1 bus mode"; reads use the SFDP-detected quad read.
    readDataLines: 4,
    programDataLines: 1,
    // ESTIMATE: 1-4-4 fast read (0xEB) = 8 instruction + 6 address + 2 mode + 4 dummy clocks
    // (JEDEC SFDP default; the AT25QL128A dummy count was not verified).
    readCommandClocks: 20,
    // 1-1-1 write enable (8 clocks) + instruction (8) + 24-bit address (24): JEDEC SPI NOR framing.
    writeCommandClocks: 40,
    // mbed-os QSPIFBlockDevice::_is_mem_ready() calls rtos::ThisThread::sleep_for(1ms) before
    // every status poll (mbed's RTX kernel tick is 1 ms), and _set_write_enable() runs it once
    // after WREN too: each page program and each erase costs one tick plus its busy time in ticks.
    driverPollIntervalUs: 1_000,
  },
  remoteHost: {
    // TinySeg repo application/host/remote_host.py: array = bytearray(1024 * 1024).
    sizeBytes: 1 * MIB,
    // The Nicla Vision's USB is high speed: ArduinoCore-mbed variants/NICLA_VISION/mbed_config.h
    // MBED_CONF_TARGET_USB_SPEED USE_USB_OTG_HS (mbed USBPhy_STM32.cpp: ULPI PHY, PCD_SPEED_HIGH;
    // OpenMV boards/ARDUINO_NICLA_VISION/board_config.h OMV_USB_ULPI 1), so ArduinoCore-mbed
    // cores/arduino/USB/USBCDC.cpp sets CDC_MAX_PACKET_SIZE 512 and PluggableUSBSerial::write
    // sends one blocking 512-byte packet at a time. Serial.begin(115200)'s baud is ignored.
    packetBytes: 512,
    // USB 2.0 spec Table 5-10 (high-speed bulk): at most 13 x 512-byte transactions per 125 us
    // microframe = 53,248,000 B/s. An upper bound; the device software below is the bottleneck.
    linkBytesPerSecond: 53_248_000,
    // ESTIMATE, not measured: per blocking USBCDC::send() one TX-FIFO interrupt, one
    // transfer-complete interrupt (_send_isr) and one RTOS thread wake-up (AsyncOp::wait).
    sendPacketUs: 20,
    // ESTIMATE from the code path, not measured: Stream::readBytes calls timedRead() per byte
    // (millis()), USBSerial::read() locks, onInterrupt() moves each byte through
    // USBCDC::receive() (lock, AsyncRead op, receive_nb) into a 256-byte RingBuffer, then
    // read_char(): a few hundred M7 instructions per byte.
    readCyclesPerByte: 300,
    // ESTIMATE: host script time to parse the request (pyserial read_until + read(1/4/4)) and
    // start its reply; host software latency not measured.
    readTurnaroundUs: 1_000,
  },
};
