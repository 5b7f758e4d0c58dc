/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * /dev/infiniband/rdma_cm: the kernel side of librdmacm (the ucma
 * write() command ABI, rdma/rdma_user_cm.h, ABI version 4).  Each open()
 * is a file (an event channel); its descriptor is an eventfd that is
 * readable while events wait, so poll/epoll/select on it work and
 * O_NONBLOCK (fcntl) makes GET_EVENT fail with EAGAIN instead of waiting.
 */
#ifndef MLX4EMU_CM_UCMA_H
#define MLX4EMU_CM_UCMA_H

#include <stddef.h>
#include <sys/types.h>

#define EMU_UCMA_PATH "/dev/infiniband/rdma_cm"

/* The CM's engine source and QP1 handler; once, at load. */
void emu_cm_init(void);
/* At exit: DREQ for every connection, REJ for every one being set up. */
void emu_cm_shutdown(void);

/* open(): a new file; the fd, or -1 with errno (EMFILE, or eventfd's). */
int emu_ucma_open(int flags);
/* write() on a file's fd: one command; len, or -1 with errno. */
ssize_t emu_ucma_write(int file, const void *buf, size_t len);
/* close(): destroys every id of the file. */
void emu_ucma_close(int file);

#endif
