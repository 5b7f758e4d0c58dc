// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory keys: MRs and memory windows share one table indexed by
 * key >> 8 (the MPT index); the low byte is a tag that changes on every
 * allocation so a stale key never matches.  lkey == rkey as on mlx4.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adapter/abi.h"
#include "adapter/mr.h"
#include "adapter/objects.h"
#include "base/usermem.h"

static uint8_t key_tag;

int emu_keys_init(void)
{
	emu_dev.nkeys = EMU_FIRST_KEY_INDEX + emu_cfg.max_mr;
	emu_dev.keys = calloc(emu_dev.nkeys, sizeof(*emu_dev.keys));
	return emu_dev.keys ? 0 : ENOMEM;
}

static bool key_used(uint32_t idx)
{
	return emu_dev.keys[idx].kind != EMU_KEY_FREE;
}

/* A free MPT entry (MR or window), or NULL when all are taken. */
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

struct emu_key *emu_mr_lookup(struct emu_ctx *ctx, uint32_t handle)
{
	return key_by_handle(ctx, handle, false);
}

struct emu_key *emu_mw_lookup(struct emu_ctx *ctx, uint32_t handle)
{
	return key_by_handle(ctx, handle, true);
}

int emu_mr_check_access(uint32_t access)
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

int emu_mr_check_range(uint64_t start, uint64_t length)
{
	if (!length || start + length < start)
		return EINVAL;
	/* the kernel pins the pages: they must exist */
	return emu_probe_r(start, length) ? EFAULT : 0;
}

static void mr_set_translation(struct emu_key *mr, const struct emu_mr_attrs *a)
{
	mr->iova = a->iova;
	mr->length = a->length;
	mr->host = (uint8_t *)(uintptr_t)a->host;
}

struct emu_key *emu_mr_create(struct emu_ctx *ctx, const struct emu_mr_attrs *a)
{
	struct emu_key *mr = key_alloc(ctx, EMU_KEY_MR);

	if (!mr)
		return NULL;
	mr->pdn = a->pdn;
	mr->access = a->access;
	mr_set_translation(mr, a);
	return mr;
}

void emu_mr_activate(struct emu_key *mr)
{
	mr->valid = true;
	EMU_TRACE("reg_mr key 0x%x iova 0x%llx len %llu access 0x%x", mr->key,
		  (unsigned long long)mr->iova, (unsigned long long)mr->length,
		  mr->access);
}

void emu_mr_rereg(struct emu_key *mr, uint32_t flags, const struct emu_mr_attrs *a)
{
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION)
		mr_set_translation(mr, a);
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pdn = a->pdn;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		mr->access = a->access;
}

struct emu_key *emu_mw_create(struct emu_ctx *ctx, uint8_t kind, uint32_t pdn)
{
	struct emu_key *mw = key_alloc(ctx, kind);

	if (mw)
		mw->pdn = pdn;
	return mw;
}

void emu_key_destroy(struct emu_key *k)
{
	k->kind = EMU_KEY_FREE;
	k->valid = false;
}

void emu_keys_release_ctx(struct emu_ctx *ctx)
{
	for (uint32_t i = 0; i < emu_dev.key_end; i++)
		if (emu_dev.keys[i].kind != EMU_KEY_FREE && emu_dev.keys[i].ctx == ctx)
			emu_key_destroy(&emu_dev.keys[i]);
}
