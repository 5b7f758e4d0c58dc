/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Access to the program's memory at addresses it hands the device (in
 * commands), without ever faulting: process_vm_readv/writev on our own
 * pid fail with EFAULT where a plain load would raise SIGSEGV.
 */
#ifndef MLX4EMU_USERMEM_H
#define MLX4EMU_USERMEM_H

#include <stddef.h>
#include <stdint.h>

/* 0 or EFAULT. */
int emu_copy_out(uint64_t dst, const void *src, size_t len);
int emu_copy_in(void *dst, uint64_t src, size_t len);
/* 0 if [addr, addr+len) is mapped and writable, else EFAULT. */
int emu_probe_rw(uint64_t addr, size_t len);
/* 0 if [addr, addr+len) is mapped and readable (fast for large ranges). */
int emu_probe_r(uint64_t addr, size_t len);

#endif
