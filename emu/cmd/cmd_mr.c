// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory keys: MRs and memory windows share one table indexed by
 * key >> 8 (the MPT index); the low byte is a tag that changes on every
 * allocation so a stale key never matches.  lkey == rkey as on mlx4.
 */
#include <string.h>

#include "cmd/cmd.h"
#include "adapter/objects.h"

static uint8_t key_tag;

static bool key_used(uint32_t idx)
{
	return emu_dev.keys[idx].kind != EMU_KEY_FREE;
}

/* A free MPT entry (MR or window): NULL when all are taken, where
 * mlx4_mpt_reserve fails and the kernel returns ENOMEM. */
static struct emu_key *key_alloc(struct emu_ctx *ctx, uint8_t kind)
{
	uint32_t idx = emu_table_next_free(EMU_FIRST_KEY_INDEX, emu_dev.nkeys,
					   &emu_dev.key_hint, key_used);
	struct emu_key *k;

	if (!idx)
		return NULL;
	k = &emu_dev.keys[idx];
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	k->ctx = ctx;
	k->key = idx << 8 | key_tag++;
	emu_table_note(&emu_dev.key_end, idx);
	return k;
}

static struct emu_key *key_by_handle(struct emu_ctx *ctx, uint32_t h, bool mw)
{
	struct emu_key *k;

	if (h < EMU_FIRST_KEY_INDEX || h >= emu_dev.nkeys)
		return NULL;
	k = &emu_dev.keys[h];
	if (k->ctx != ctx || k->kind == EMU_KEY_FREE ||
	    mw != (k->kind != EMU_KEY_MR))
		return NULL;
	return k;
}

static int check_mr_access(uint32_t access)
{
	const uint32_t known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
		IBV_ACCESS_RELAXED_ORDERING;

	if (access & ~known)
		return EINVAL;
	/* remote write and atomics need local write (IB spec C10-10) */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

static int check_range(uint64_t start, uint64_t length)
{
	if (!length || start + length < start)
		return EINVAL;
	/* the kernel pins the pages: they must exist */
	return emu_probe_r(start, length) ? EFAULT : 0;
}

int emu_cmd_reg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_reg_mr *q = c->in;
	struct ib_uverbs_reg_mr_resp r = { 0 };
	struct emu_key *k;
	int err;

	if (!emu_pd_get(c->ctx, q->pd_handle))
		return EINVAL;
	err = check_mr_access(q->access_flags);
	if (!err)
		err = check_range(q->start, q->length);
	if (err)
		return err;
	k = key_alloc(c->ctx, EMU_KEY_MR);
	if (!k)
		return ENOMEM;
	k->pdn = q->pd_handle;
	k->access = q->access_flags;
	k->iova = q->hca_va;
	k->length = q->length;
	k->host = (uint8_t *)(uintptr_t)q->start;
	r.mr_handle = k->key >> 8;
	r.lkey = r.rkey = k->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err) {
		k->kind = EMU_KEY_FREE;
		return err;
	}
	k->valid = true;
	EMU_TRACE("reg_mr key 0x%x iova 0x%llx len %llu access 0x%x", k->key,
		  (unsigned long long)k->iova, (unsigned long long)k->length,
		  k->access);
	return 0;
}

int emu_cmd_rereg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_rereg_mr *q = c->in;
	struct ib_uverbs_rereg_mr_resp r = { 0 };
	struct emu_key *k = key_by_handle(c->ctx, q->mr_handle, false);
	uint32_t access;
	int err;

	if (!k || (q->flags & ~7u) || !q->flags)
		return EINVAL;
	access = (q->flags & IBV_REREG_MR_CHANGE_ACCESS) ? q->access_flags : k->access;
	err = check_mr_access(access);
	if (err)
		return err;
	if ((q->flags & IBV_REREG_MR_CHANGE_PD) && !emu_pd_get(c->ctx, q->pd_handle))
		return EINVAL;
	if (q->flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		err = check_range(q->start, q->length);
		if (err)
			return err;
	}
	r.lkey = r.rkey = k->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	if (q->flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		k->iova = q->hca_va;
		k->length = q->length;
		k->host = (uint8_t *)(uintptr_t)q->start;
	}
	if (q->flags & IBV_REREG_MR_CHANGE_PD)
		k->pdn = q->pd_handle;
	k->access = access;
	return 0;
}

int emu_cmd_dereg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_dereg_mr *q = c->in;
	struct emu_key *k = key_by_handle(c->ctx, q->mr_handle, false);

	if (!k)
		return EINVAL;
	k->kind = EMU_KEY_FREE;
	k->valid = false;
	return 0;
}

int emu_cmd_alloc_mw(struct emu_cmd *c)
{
	const struct ib_uverbs_alloc_mw *q = c->in;
	struct ib_uverbs_alloc_mw_resp r = { 0 };
	struct emu_key *k;
	int err;

	if (!emu_pd_get(c->ctx, q->pd_handle))
		return EINVAL;
	if (q->mw_type != IBV_MW_TYPE_1 && q->mw_type != IBV_MW_TYPE_2)
		return EINVAL;
	k = key_alloc(c->ctx, q->mw_type == IBV_MW_TYPE_1 ? EMU_KEY_MW1 : EMU_KEY_MW2);
	if (!k)
		return ENOMEM;
	k->pdn = q->pd_handle;
	r.mw_handle = k->key >> 8;
	r.rkey = k->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		k->kind = EMU_KEY_FREE;
	return err;
}

int emu_cmd_dealloc_mw(struct emu_cmd *c)
{
	const struct ib_uverbs_dealloc_mw *q = c->in;
	struct emu_key *k = key_by_handle(c->ctx, q->mw_handle, true);

	if (!k)
		return EINVAL;
	k->kind = EMU_KEY_FREE;
	k->valid = false;
	return 0;
}
