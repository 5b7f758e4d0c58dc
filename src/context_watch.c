// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * How libmlx4dv learns that a context was closed.
 *
 * ibv_close_device() tells nobody, and everything a program can see of a
 * context (its address, its device, its fd numbers) comes back on the next
 * ibv_open_device(). What does not come back is the open file behind the
 * context's async event fd: the kernel creates one per context (uverbs
 * GET_CONTEXT) and ibv_close_device() closes it (rdma-core 44.0
 * libibverbs/device.c). An epoll set remembers a file by the pair (open
 * file, fd number) and forgets it when the file is released (Linux
 * eventpoll_release() on the last close), without holding a reference
 * that would keep the file, and with it the context, alive. So the unit
 * keeps one epoll set of its own, puts each context's async fd in it with
 * no events asked for (it is never waited on), and asks EPOLL_CTL_MOD
 * later: success means the same file is still open at that number,
 * ENOENT or EBADF that the context it was registered for is gone.
 */
#include <errno.h>
#include <sys/epoll.h>

#include "internal.h"

/* Guarded by the caller's lock (context_table.c's table_lock). */
static int watch_set = -1;

int mlx4dv_priv_fd_watch(int fd)
{
	struct epoll_event ev = { .events = 0 };

	if (fd < 0)
		return EBADF;
	if (watch_set < 0) {
		watch_set = epoll_create1(EPOLL_CLOEXEC);
		if (watch_set < 0)
			return errno;
	}
	/* EEXIST: the file is watched already (its entry was evicted and
	 * comes back); the watch is what matters, not who set it. */
	if (epoll_ctl(watch_set, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST)
		return errno;
	return 0;
}

bool mlx4dv_priv_fd_watched(int fd)
{
	struct epoll_event ev = { .events = 0 };

	return watch_set >= 0 && fd >= 0 &&
	       !epoll_ctl(watch_set, EPOLL_CTL_MOD, fd, &ev);
}
