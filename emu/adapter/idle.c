// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "adapter/idle.h"

#define SPELL_MASK ((1u << EMU_IDLE_SPELLS) - 1)

void emu_idle_history_init(struct emu_idle_history *h)
{
	h->quick = SPELL_MASK;
}

void emu_idle_record(struct emu_idle_history *h, uint64_t spell_ns, bool by_wire)
{
	bool quick = spell_ns < (by_wire ? EMU_IDLE_SPIN_NS : EMU_IDLE_YIELD_NS);

	h->quick = (uint8_t)(((unsigned)h->quick << 1 | quick) & SPELL_MASK);
}

bool emu_idle_stay_runnable(const struct emu_idle_history *h)
{
	return (unsigned)__builtin_popcount(h->quick & SPELL_MASK) >= EMU_IDLE_QUICK_MIN;
}
