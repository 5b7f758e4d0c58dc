/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Which of the program's file descriptors belong to the device: the
 * command fd of each context, the async event fd of each context, the fd
 * of each completion channel, that of each rdma_cm file, the sysfs
 * attributes whose read fails, and the program's NETLINK_ROUTE sockets
 * (os/rtnl.h).  Written by the command layer when it
 * hands a descriptor out (by the OS boundary for the attributes), read by
 * the OS boundary on every interposed call (lock-free: one atomic load).
 */
#ifndef MLX4EMU_FDTAB_H
#define MLX4EMU_FDTAB_H

#include <stdbool.h>

#define EMU_FD_MAX 65536

/* What a descriptor is to the device; -1 fields for "not that". */
struct emu_fd_owner {
	int ctx;	/* command fd of this context */
	int channel;	/* completion channel */
	int async_ctx;	/* async event fd of this context */
	int cm;		/* rdma_cm file */
	int read_errno;	/* errno of every read of a failing attribute, or 0 */
	bool rtnl;	/* a NETLINK_ROUTE socket of the program */
};

/* Context index of a command fd, or -1. */
int emu_fd_ctx(int fd);
bool emu_fd_set_ctx(int fd, int ctx);
/* Channel index, or -1. */
int emu_fd_channel(int fd);
void emu_fd_set_channel(int fd, int channel);
/* Context whose async fd this is, or -1; ctx -1 clears. */
int emu_fd_async(int fd);
void emu_fd_set_async(int fd, int ctx);
/* rdma_cm file index, or -1. */
int emu_fd_cm(int fd);
void emu_fd_set_cm(int fd, int file);
/* errno every read() of the fd fails with (a sysfs attribute whose show
 * fails in the kernel), or 0; err 0 clears. */
int emu_fd_read_errno(int fd);
void emu_fd_set_read_errno(int fd, int err);
bool emu_fd_rtnl(int fd);
void emu_fd_set_rtnl(int fd, bool rtnl);
/* Clears the fd's entries and returns what it was. */
struct emu_fd_owner emu_fd_forget(int fd);

#endif
