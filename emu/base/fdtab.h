/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Which of the program's file descriptors belong to the device: the
 * command fd of each context and the read end of each completion channel.
 * Written by the command layer when it hands a descriptor out, read by the
 * OS boundary on every interposed call (lock-free: one atomic load).
 */
#ifndef MLX4EMU_FDTAB_H
#define MLX4EMU_FDTAB_H

#include <stdbool.h>

#define EMU_FD_MAX 65536

/* Context index of a command fd, or -1. */
int emu_fd_ctx(int fd);
bool emu_fd_set_ctx(int fd, int ctx);
/* Clears the fd's entries; returns the context and channel it had (-1). */
void emu_fd_forget(int fd, int *ctx, int *channel);
void emu_fd_set_channel(int fd, int channel);

#endif
