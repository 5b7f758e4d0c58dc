// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A completion channel's life (channel.h). */
#include <errno.h>

#include "adapter/abi.h"
#include "adapter/channel.h"
#include "adapter/cq.h"
#include "adapter/evq.h"
#include "base/fdtab.h"
#include "base/libc.h"

int emu_channel_create(int *fd, int *channel)
{
	const int n = (int)(sizeof(emu_dev.channels) / sizeof(emu_dev.channels[0]));

	for (int i = 0; i < n; i++) {
		struct emu_channel *ch = &emu_dev.channels[i];

		if (ch->used)
			continue;
		*fd = emu_evq_open(&ch->q, sizeof(struct ib_uverbs_comp_event_desc));
		if (*fd < 0)
			return errno;
		*channel = i;
		return 0;
	}
	return EMFILE;
}

void emu_channel_create_undo(int channel, int fd)
{
	emu_evq_close(&emu_dev.channels[channel].q);
	emu_real_close(fd);
}

void emu_channel_activate(int channel, int fd)
{
	emu_dev.channels[channel].used = true;
	emu_fd_set_channel(fd, channel);
}

struct emu_evq *emu_channel_evq(int channel)
{
	return &emu_dev.channels[channel].q;
}

void emu_channel_release(int channel)
{
	struct emu_channel *ch = &emu_dev.channels[channel];

	pthread_mutex_lock(&emu_dev.lock);
	if (ch->used) {
		emu_evq_close(&ch->q);
		ch->used = false;
		emu_cq_channel_closed(channel);
	}
	pthread_mutex_unlock(&emu_dev.lock);
}
