/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Object tables shared by the command handlers and the engine. */
#ifndef MLX4EMU_OBJECTS_H
#define MLX4EMU_OBJECTS_H

#include "adapter/adapter.h"

/* true while an MR, MW, QP, SRQ or WQ still uses the PD */
bool emu_pd_in_use(uint32_t pdn);
void emu_objects_release_ctx(struct emu_ctx *ctx);
uint32_t emu_qps_in_use(void);

/* Records that a table's entry `index` is handed out (see emu_dev.*_end). */
static inline void emu_table_note(uint32_t *end, uint32_t index)
{
	if (index >= *end)
		*end = index + 1;
}

/*
 * The next free entry of a table of `n` entries from `*hint` on, wrapping
 * to `first` (next fit, as mlx4's round-robin bitmaps hand numbers out);
 * `used(i)` says whether entry i is taken.  Returns the index and moves
 * the hint past it, or 0 when every entry from `first` on is taken.
 */
static inline uint32_t emu_table_next_free(uint32_t first, uint32_t n, uint32_t *hint,
					   bool (*used)(uint32_t))
{
	uint32_t span = n - first;

	for (uint32_t k = 0; k < span; k++) {
		uint32_t i = first + (*hint + k) % span;

		if (!used(i)) {
			*hint = (i - first + 1) % span;
			return i;
		}
	}
	return 0;
}

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
