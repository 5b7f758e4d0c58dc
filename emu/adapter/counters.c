// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The adapter's event counters read (counters.h). */
#include "adapter/adapter.h"
#include "adapter/counters.h"

void emu_counters_read(struct emu_counters *out)
{
	out->wqes = atomic_load(&emu_dev.ctr.wqes);
	out->cqes = atomic_load(&emu_dev.ctr.cqes);
	out->error_cqes = atomic_load(&emu_dev.ctr.error_cqes);
	out->comp_events = atomic_load(&emu_dev.ctr.comp_events);
	out->async_events = atomic_load(&emu_dev.ctr.async_events);
	out->strict_errors = atomic_load(&emu_dev.ctr.strict_errors);
	out->bf_wqes = atomic_load(&emu_dev.ctr.bf_wqes);
	out->rnr_naks = atomic_load(&emu_dev.ctr.rnr_naks);
	out->packets = atomic_load(&emu_dev.ctr.packets);
	out->passes = atomic_load(&emu_dev.ctr.passes);
	out->idle_runnable = atomic_load(&emu_dev.ctr.idle_runnable);
	out->idle_asleep = atomic_load(&emu_dev.ctr.idle_asleep);
}
