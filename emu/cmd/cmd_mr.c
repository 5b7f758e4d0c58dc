// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory key commands: MRs and memory windows, whose keys are the
 * adapter's (adapter/mr.c).  lkey == rkey as on mlx4; a handle is the
 * key's MPT index.
 */
#include "cmd/cmd.h"
#include "adapter/pd.h"
#include "adapter/mr.h"

int emu_cmd_reg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_reg_mr *q = c->in;
	struct ib_uverbs_reg_mr_resp r = { 0 };
	struct emu_mr_attrs a = {
		.pdn = q->pd_handle, .access = q->access_flags,
		.iova = q->hca_va, .length = q->length, .host = q->start,
	};
	struct emu_key *mr;
	int err;

	if (!emu_pd_lookup(c->ctx, q->pd_handle))
		return EINVAL;
	err = emu_mr_check_access(q->access_flags);
	if (!err)
		err = emu_mr_check_range(q->start, q->length);
	if (err)
		return err;
	mr = emu_mr_create(c->ctx, &a);
	if (!mr)
		return ENOMEM;
	r.mr_handle = mr->key >> 8;
	r.lkey = r.rkey = mr->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err) {
		emu_key_destroy(mr);
		return err;
	}
	emu_mr_activate(mr);
	return 0;
}

int emu_cmd_rereg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_rereg_mr *q = c->in;
	struct ib_uverbs_rereg_mr_resp r = { 0 };
	struct emu_key *mr = emu_mr_lookup(c->ctx, q->mr_handle);
	struct emu_mr_attrs a = {
		.pdn = q->pd_handle, .access = q->access_flags,
		.iova = q->hca_va, .length = q->length, .host = q->start,
	};
	int err;

	if (!mr || (q->flags & ~7u) || !q->flags)
		return EINVAL;
	err = emu_mr_check_access((q->flags & IBV_REREG_MR_CHANGE_ACCESS) ?
				  q->access_flags : mr->access);
	if (err)
		return err;
	if ((q->flags & IBV_REREG_MR_CHANGE_PD) && !emu_pd_lookup(c->ctx, q->pd_handle))
		return EINVAL;
	if (q->flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		err = emu_mr_check_range(q->start, q->length);
		if (err)
			return err;
	}
	r.lkey = r.rkey = mr->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	emu_mr_rereg(mr, q->flags, &a);
	return 0;
}

int emu_cmd_dereg_mr(struct emu_cmd *c)
{
	const struct ib_uverbs_dereg_mr *q = c->in;
	struct emu_key *mr = emu_mr_lookup(c->ctx, q->mr_handle);

	if (!mr)
		return EINVAL;
	emu_key_destroy(mr);
	return 0;
}

int emu_cmd_alloc_mw(struct emu_cmd *c)
{
	const struct ib_uverbs_alloc_mw *q = c->in;
	struct ib_uverbs_alloc_mw_resp r = { 0 };
	struct emu_key *mw;
	int err;

	if (!emu_pd_lookup(c->ctx, q->pd_handle))
		return EINVAL;
	if (q->mw_type != IBV_MW_TYPE_1 && q->mw_type != IBV_MW_TYPE_2)
		return EINVAL;
	mw = emu_mw_create(c->ctx, q->mw_type == IBV_MW_TYPE_1 ? EMU_KEY_MW1 : EMU_KEY_MW2,
			   q->pd_handle);
	if (!mw)
		return ENOMEM;
	r.mw_handle = mw->key >> 8;
	r.rkey = mw->key;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		emu_key_destroy(mw);
	return err;
}

int emu_cmd_dealloc_mw(struct emu_cmd *c)
{
	const struct ib_uverbs_dealloc_mw *q = c->in;
	struct emu_key *mw = emu_mw_lookup(c->ctx, q->mw_handle);

	if (!mw)
		return EINVAL;
	emu_key_destroy(mw);
	return 0;
}
