/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The adapter's one lock (emu_dev.lock): every command, every engine pass
 * and each call from the OS boundary into the adapter's objects runs
 * under it.
 */
#ifndef MLX4EMU_LOCK_H
#define MLX4EMU_LOCK_H

#include "adapter/adapter.h"

static inline void emu_adapter_lock(void)
{
	pthread_mutex_lock(&emu_dev.lock);
}

static inline void emu_adapter_unlock(void)
{
	pthread_mutex_unlock(&emu_dev.lock);
}

#endif
