// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "adapter/idle.h"

#define SPELL_MASK ((1u << EMU_IDLE_SPELLS) - 1)

void emu_idle_history_init(struct emu_idle_history *h)
{
	h->quick = SPELL_MASK;
}

void emu_idle_record(struct emu_idle_history *h, uint64_t spell_ns)
{
	h->quick = (uint8_t)(((h->quick << 1) | (spell_ns < EMU_IDLE_SPIN_NS)) & SPELL_MASK);
}

bool emu_idle_stay_runnable(const struct emu_idle_history *h)
{
	return (unsigned)__builtin_popcount(h->quick & SPELL_MASK) >= EMU_IDLE_QUICK_MIN;
}
