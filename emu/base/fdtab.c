// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "base/fdtab.h"

#include <stdatomic.h>
#include <stdint.h>

/* index + 1, so that the zeroed table means "not the device's" */
static _Atomic uint16_t fd_ctx[EMU_FD_MAX];
static _Atomic uint16_t fd_channel[EMU_FD_MAX];

int emu_fd_ctx(int fd)
{
	if (fd < 0 || fd >= EMU_FD_MAX)
		return -1;
	return (int)atomic_load_explicit(&fd_ctx[fd], memory_order_acquire) - 1;
}

bool emu_fd_set_ctx(int fd, int ctx)
{
	if (fd < 0 || fd >= EMU_FD_MAX)
		return false;
	atomic_store(&fd_ctx[fd], (uint16_t)(ctx + 1));
	return true;
}

void emu_fd_set_channel(int fd, int channel)
{
	if (fd >= 0 && fd < EMU_FD_MAX)
		atomic_store(&fd_channel[fd], (uint16_t)(channel + 1));
}

void emu_fd_forget(int fd, int *ctx, int *channel)
{
	*ctx = *channel = -1;
	if (fd < 0 || fd >= EMU_FD_MAX)
		return;
	*ctx = (int)atomic_exchange(&fd_ctx[fd], 0) - 1;
	*channel = (int)atomic_exchange(&fd_channel[fd], 0) - 1;
}
