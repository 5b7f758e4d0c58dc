// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "base/fdtab.h"

#include <stdatomic.h>
#include <stdint.h>

/* index + 1, so that the zeroed table means "not the device's" */
static _Atomic uint16_t fd_ctx[EMU_FD_MAX];
static _Atomic uint16_t fd_channel[EMU_FD_MAX];
static _Atomic uint16_t fd_async[EMU_FD_MAX];
static _Atomic uint16_t fd_cm[EMU_FD_MAX];
static _Atomic uint16_t fd_read_errno[EMU_FD_MAX];
static _Atomic uint16_t fd_rtnl[EMU_FD_MAX];

static int get(_Atomic uint16_t *tab, int fd)
{
	if (fd < 0 || fd >= EMU_FD_MAX)
		return -1;
	return (int)atomic_load_explicit(&tab[fd], memory_order_acquire) - 1;
}

static bool set(_Atomic uint16_t *tab, int fd, int idx)
{
	if (fd < 0 || fd >= EMU_FD_MAX)
		return false;
	atomic_store(&tab[fd], (uint16_t)(idx + 1));
	return true;
}

int emu_fd_ctx(int fd)
{
	return get(fd_ctx, fd);
}

bool emu_fd_set_ctx(int fd, int ctx)
{
	return set(fd_ctx, fd, ctx);
}

int emu_fd_channel(int fd)
{
	return get(fd_channel, fd);
}

void emu_fd_set_channel(int fd, int channel)
{
	set(fd_channel, fd, channel);
}

int emu_fd_async(int fd)
{
	return get(fd_async, fd);
}

void emu_fd_set_async(int fd, int ctx)
{
	set(fd_async, fd, ctx);
}

int emu_fd_cm(int fd)
{
	return get(fd_cm, fd);
}

void emu_fd_set_cm(int fd, int file)
{
	set(fd_cm, fd, file);
}

int emu_fd_read_errno(int fd)
{
	int err = get(fd_read_errno, fd);

	return err > 0 ? err : 0;
}

void emu_fd_set_read_errno(int fd, int err)
{
	set(fd_read_errno, fd, err > 0 ? err : -1);
}

bool emu_fd_rtnl(int fd)
{
	return get(fd_rtnl, fd) > 0;
}

void emu_fd_set_rtnl(int fd, bool rtnl)
{
	set(fd_rtnl, fd, rtnl ? 1 : -1);
}

struct emu_fd_owner emu_fd_forget(int fd)
{
	struct emu_fd_owner o = { -1, -1, -1, -1, 0, false };

	if (fd < 0 || fd >= EMU_FD_MAX)
		return o;
	o.ctx = (int)atomic_exchange(&fd_ctx[fd], 0) - 1;
	o.channel = (int)atomic_exchange(&fd_channel[fd], 0) - 1;
	o.async_ctx = (int)atomic_exchange(&fd_async[fd], 0) - 1;
	o.cm = (int)atomic_exchange(&fd_cm[fd], 0) - 1;
	o.read_errno = (int)atomic_exchange(&fd_read_errno[fd], 0) - 1;
	if (o.read_errno < 0)
		o.read_errno = 0;
	o.rtnl = atomic_exchange(&fd_rtnl[fd], 0) == 2;
	return o;
}
