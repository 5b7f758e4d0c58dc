// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A PD's life on the adapter: handed out, looked up, destroyed, released. */
#include <errno.h>

#include "adapter/objects.h"
#include "adapter/pd.h"

/* next-fit cursor over the PD table (see emu_table_next_free) */
static uint32_t pd_hint;

static bool pd_used(uint32_t i)
{
	return emu_dev.pd[i].used;
}

struct emu_pd *emu_pd_lookup(struct emu_ctx *ctx, uint32_t pdn)
{
	if (pdn >= EMU_MAX_PD || !emu_dev.pd[pdn].used || emu_dev.pd[pdn].ctx != ctx)
		return NULL;
	return &emu_dev.pd[pdn];
}

int emu_pd_create(uint32_t *pdn)
{
	/* PD 0 is never handed out so that a zeroed field is never valid */
	uint32_t n = emu_table_next_free(1, EMU_MAX_PD, &pd_hint, pd_used);

	if (!n)
		return ENOMEM;
	*pdn = n;
	return 0;
}

void emu_pd_activate(struct emu_ctx *ctx, uint32_t pdn)
{
	emu_dev.pd[pdn].used = true;
	emu_dev.pd[pdn].ctx = ctx;
}

int emu_pd_destroy(struct emu_pd *pd)
{
	if (emu_pd_in_use((uint32_t)(pd - emu_dev.pd)))
		return EBUSY;
	pd->used = false;
	return 0;
}

void emu_pd_release_ctx(struct emu_ctx *ctx)
{
	for (unsigned i = 0; i < EMU_MAX_PD; i++)
		if (emu_dev.pd[i].used && emu_dev.pd[i].ctx == ctx)
			emu_dev.pd[i].used = false;
}
