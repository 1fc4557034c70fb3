/* Cortex-M7 startup of the real-TFLM runner under QEMU mps2-an500 (scripts/run-tflm.sh --arch
 * cortex-m), after the C port's (src/codegen/board-files.ts STARTUP_CORTEX_M7_C): vector table, .data
 * copy, .bss zeroing, then newlib (librdimon: stdio and files over ARM semihosting) is set up, static
 * constructors run, argv comes from SYS_GET_CMDLINE (qemu -semihosting-config ...,arg=runner,arg=...)
 * and runner.cc's main runs. QEMU's exit status: 0 when main returned 0, else 1 (SYS_EXIT with
 * ADP_Stopped_ApplicationExit / ADP_Stopped_RunTimeErrorUnknown, "Semihosting for AArch32 and AArch64"). */
#include <stdint.h>
#include <stdio.h>

#define SYS_GET_CMDLINE 0x15
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR_UNKNOWN 0x20023
#define CMDLINE_CHARS 4096
#define MAX_ARGS 64

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
typedef void (*init_fn)(void);
extern init_fn __preinit_array_start[], __preinit_array_end[], __init_array_start[], __init_array_end[];
extern void initialise_monitor_handles(void);
extern int main(int argc, char** argv);
void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));

static int32_t semihost_call(int32_t op, const void* block) {
  register int32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = block;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static void semihost_exit(int ok) __attribute__((noreturn));
static void semihost_exit(int ok) {
  for (;;) (void)semihost_call(SYS_EXIT, (const void*)(uintptr_t)(ok ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
}

static char cmdline[CMDLINE_CHARS];

/* argv split on spaces (paths must not contain spaces). */
static int command_line_args(char** argv) {
  uint32_t block[2];
  int argc = 0;
  char* s = cmdline;
  block[0] = (uint32_t)(uintptr_t)cmdline;
  block[1] = CMDLINE_CHARS - 1;
  if (semihost_call(SYS_GET_CMDLINE, block) != 0) return 0;
  cmdline[block[1] < CMDLINE_CHARS ? block[1] : CMDLINE_CHARS - 1] = 0;
  while (*s != 0 && argc < MAX_ARGS - 1) {
    while (*s == ' ') *s++ = 0;
    if (*s == 0) break;
    argv[argc++] = s;
    while (*s != 0 && *s != ' ') ++s;
  }
  argv[argc] = 0;
  return argc;
}

void Reset_Handler(void) {
  static char* argv[MAX_ARGS];
  volatile uint32_t* src = &_sidata;
  volatile uint32_t* dst = &_sdata;
  int status;
  /* The library is built for the hard-float ABI: enable CP10/CP11 (CPACR, ARMv7-M ARM B3.2.20) first. */
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  while (dst < &_edata) *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;) *dst++ = 0u;
  initialise_monitor_handles();
  /* Static constructors (newlib's __libc_init_array without crti's _init: -nostartfiles). */
  for (init_fn* f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (init_fn* f = __init_array_start; f < __init_array_end; ++f) (*f)();
  status = main(command_line_args(argv), argv);
  fflush(stdout);
  fflush(stderr);
  semihost_exit(status == 0);
}

void Fault_Handler(void) {
  semihost_exit(0);
}

/* crtbegin.o's handle (-nostartfiles): static objects register destructors with __cxa_atexit. */
void* __dso_handle = 0;

/* librdimon's _exit (abort(), exit()) ends the run the same way, with a failure unless exit(0). */

typedef void (*vector_fn)(void);
__attribute__((section(".isr_vector"), used)) const vector_fn vector_table[16] = {
  (vector_fn)(uintptr_t)&_estack, Reset_Handler,
  Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
  Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
  Fault_Handler, Fault_Handler,
};
