/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The device's SIGSEGV/SIGBUS handler: recovery of the device's own
 * guarded accesses (base/guard.h), stores to the write-trapped UAR and
 * BlueFlame mappings of the program (decoded, applied as doorbells, the
 * instruction skipped), and everything else handed to the handler the
 * program installed (or the one installed before the library, e.g. a
 * sanitizer's), exactly as if the device were not there.
 */
#ifndef MLX4EMU_FAULT_H
#define MLX4EMU_FAULT_H

#include <stdbool.h>
#include <stddef.h>

/* Installs the handler (constructor); 0 or an errno. */
int emu_fault_install(void);

/* A program mapping of a context's UAR (bf = 0) or BlueFlame page (bf = 1)
 * that traps writes; false when the table is full (then the mapping must
 * be writable and the context polled). */
bool emu_fault_add_mapping(void *page, int ctx_index, int bf);
/* The program unmapped [addr, addr + len). */
void emu_fault_forget_range(void *addr, size_t len);

#endif
