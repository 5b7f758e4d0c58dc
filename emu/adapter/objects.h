/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Object tables shared by the command handlers and the engine. */
#ifndef MLX4EMU_OBJECTS_H
#define MLX4EMU_OBJECTS_H

#include "adapter/adapter.h"

/* true while an MR, MW, QP, SRQ or WQ still uses the PD */
bool emu_pd_in_use(uint32_t pdn);
void emu_objects_release_ctx(struct emu_ctx *ctx);
uint32_t emu_qps_in_use(void);

static inline struct emu_key *emu_key_lookup(uint32_t key)
{
	uint32_t idx = key >> 8;
	struct emu_key *k;

	if (idx >= emu_dev.nkeys)
		return NULL;
	k = &emu_dev.keys[idx];
	if (k->kind == EMU_KEY_FREE || !k->valid || k->key != key)
		return NULL;
	return k;
}

/* Host address of [va, va + len) inside the key's range, or NULL. */
static inline uint8_t *emu_key_map(const struct emu_key *k, uint64_t va,
				   uint64_t len)
{
	if (va < k->iova || len > k->length || va - k->iova > k->length - len)
		return NULL;
	return k->host + (va - k->iova);
}

static inline struct emu_qp *emu_qp_by_qpn(uint32_t qpn)
{
	struct emu_qp *qp;

	if (qpn >= emu_dev.qp_tab_size)
		return NULL;
	qp = emu_dev.qp_tab[qpn];
	return qp && qp->used ? qp : NULL;
}

#endif
