/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A completion channel's life on the adapter (channel.c). */
#ifndef MLX4EMU_CHANNEL_H
#define MLX4EMU_CHANNEL_H

#include "adapter/adapter.h"

/*
 * Called with emu_dev.lock held.  Opens the event queue of a free channel
 * (*fd, the program's end; EMFILE when every channel is taken), which is
 * the device's once emu_channel_activate runs, after its creator answered
 * the program; emu_channel_create_undo closes one whose creator could not.
 */
int emu_channel_create(int *fd, int *channel);
void emu_channel_create_undo(int channel, int fd);
void emu_channel_activate(int channel, int fd);

/* The event queue of that channel (emu_fd_channel). */
struct emu_evq *emu_channel_evq(int channel);

/* Called when libibverbs closes the read end of a channel: its CQs raise
 * no more events.  Takes emu_dev.lock. */
void emu_channel_release(int channel);

#endif
