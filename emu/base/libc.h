/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The C library's own read, write, close, mmap and fstat, past the preload's
 * interposed versions: every layer that writes event pipes, closes its
 * descriptors or maps pages uses these, so that nothing below the OS
 * boundary re-enters it.
 */
#ifndef MLX4EMU_LIBC_H
#define MLX4EMU_LIBC_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* dlsym(RTLD_NEXT, name), or abort with a message: the preload cannot
 * work without the C library underneath it. */
void *emu_next_symbol(const char *name);

ssize_t emu_real_read(int fd, void *buf, size_t len);
ssize_t emu_real_write(int fd, const void *buf, size_t len);
int emu_real_close(int fd);
void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int emu_real_fstat(int fd, struct stat *st);

#endif
