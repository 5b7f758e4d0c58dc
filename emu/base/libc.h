/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The C library's own open, openat, read, write, close, mmap, munmap, fstat
 * and socket, past the preload's interposed versions: every layer below the
 * OS boundary that opens, reads, closes or maps its own descriptors and pages
 * uses these, so that nothing below the OS boundary re-enters it (an
 * interposed call looks the descriptor up in base/fdtab.c, and a stale entry
 * for a number the device reuses would route the device's own call into a
 * device object).  tests/emu/layer_rule.py fails on any other call.
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
int emu_real_munmap(void *addr, size_t len);
/* mode is used only with O_CREAT or O_TMPFILE, as open(2) says. */
int emu_real_open(const char *path, int flags, mode_t mode);
int emu_real_openat(int dirfd, const char *path, int flags, mode_t mode);
int emu_real_socket(int domain, int type, int protocol);

#endif
