// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The uverbs write() ABI: frame decoding and dispatch.
 *
 * Legacy frame: {u32 command; u16 in_words; u16 out_words} (4-byte words,
 * in_words counting the header), the core request whose first u64 is the
 * response address, then the mlx4 driver data.  Extended frame: command
 * bit 31 set, in/out words in 8-byte units for the core part only, then
 * {u64 response; u16 provider_in_words; u16 provider_out_words; u32 0}.
 * Malformed frames get EINVAL (or EFAULT/ENOSPC) and never touch memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapter/engine.h"
#include "adapter/lock.h"
#include "cmd/cmd.h"

#define EMU_MAX_FRAME 65536

struct cmd_desc {
	const char *name;	/* for the trace: the command's uverbs name */
	emu_cmd_fn fn;
	size_t in_min;		/* core request bytes required */
	size_t in_size;		/* core request bytes understood */
	size_t resp_size;	/* core response bytes (legacy: required) */
	int has_resp;		/* legacy: first u64 of the request is the response */
	int var_len;		/* ex: a variable array follows the fixed part */
};

#define LEGACY(cmd, f, req, rsp) \
	[IB_USER_VERBS_CMD_##cmd] = { #cmd, f, sizeof(struct req), sizeof(struct req), \
				      rsp, 1, 0 }
#define LEGACY_NORESP(cmd, f, req) \
	[IB_USER_VERBS_CMD_##cmd] = { #cmd, f, sizeof(struct req), sizeof(struct req), \
				      0, 0, 0 }

static const struct cmd_desc legacy_cmds[] = {
	LEGACY(GET_CONTEXT, emu_cmd_get_context, ib_uverbs_get_context,
	       sizeof(struct ib_uverbs_get_context_resp)),
	LEGACY(QUERY_DEVICE, emu_cmd_query_device, ib_uverbs_query_device,
	       sizeof(struct ib_uverbs_query_device_resp)),
	LEGACY(QUERY_PORT, emu_cmd_query_port, ib_uverbs_query_port,
	       sizeof(struct ib_uverbs_query_port_resp)),
	LEGACY(ALLOC_PD, emu_cmd_alloc_pd, ib_uverbs_alloc_pd,
	       sizeof(struct ib_uverbs_alloc_pd_resp)),
	LEGACY_NORESP(DEALLOC_PD, emu_cmd_dealloc_pd, ib_uverbs_dealloc_pd),
	LEGACY(REG_MR, emu_cmd_reg_mr, ib_uverbs_reg_mr,
	       sizeof(struct ib_uverbs_reg_mr_resp)),
	LEGACY(REREG_MR, emu_cmd_rereg_mr, ib_uverbs_rereg_mr,
	       sizeof(struct ib_uverbs_rereg_mr_resp)),
	LEGACY_NORESP(DEREG_MR, emu_cmd_dereg_mr, ib_uverbs_dereg_mr),
	LEGACY(ALLOC_MW, emu_cmd_alloc_mw, ib_uverbs_alloc_mw,
	       sizeof(struct ib_uverbs_alloc_mw_resp)),
	LEGACY_NORESP(DEALLOC_MW, emu_cmd_dealloc_mw, ib_uverbs_dealloc_mw),
	LEGACY(CREATE_COMP_CHANNEL, emu_cmd_create_comp_channel,
	       ib_uverbs_create_comp_channel,
	       sizeof(struct ib_uverbs_create_comp_channel_resp)),
	LEGACY(CREATE_CQ, emu_cmd_create_cq, ib_uverbs_create_cq,
	       sizeof(struct ib_uverbs_create_cq_resp)),
	LEGACY(RESIZE_CQ, emu_cmd_resize_cq, ib_uverbs_resize_cq,
	       sizeof(struct ib_uverbs_resize_cq_resp)),
	LEGACY(DESTROY_CQ, emu_cmd_destroy_cq, ib_uverbs_destroy_cq,
	       sizeof(struct ib_uverbs_destroy_cq_resp)),
	LEGACY(CREATE_QP, emu_cmd_create_qp, ib_uverbs_create_qp,
	       sizeof(struct ib_uverbs_create_qp_resp)),
	LEGACY(QUERY_QP, emu_cmd_query_qp, ib_uverbs_query_qp,
	       sizeof(struct ib_uverbs_query_qp_resp)),
	LEGACY_NORESP(MODIFY_QP, emu_cmd_modify_qp, ib_uverbs_modify_qp),
	LEGACY(DESTROY_QP, emu_cmd_destroy_qp, ib_uverbs_destroy_qp,
	       sizeof(struct ib_uverbs_destroy_qp_resp)),
	LEGACY_NORESP(ATTACH_MCAST, emu_cmd_attach_mcast, ib_uverbs_attach_mcast),
	LEGACY_NORESP(DETACH_MCAST, emu_cmd_detach_mcast, ib_uverbs_detach_mcast),
	LEGACY(CREATE_SRQ, emu_cmd_create_srq, ib_uverbs_create_srq,
	       sizeof(struct ib_uverbs_create_srq_resp)),
	LEGACY_NORESP(MODIFY_SRQ, emu_cmd_modify_srq, ib_uverbs_modify_srq),
	LEGACY(QUERY_SRQ, emu_cmd_query_srq, ib_uverbs_query_srq,
	       sizeof(struct ib_uverbs_query_srq_resp)),
	LEGACY(DESTROY_SRQ, emu_cmd_destroy_srq, ib_uverbs_destroy_srq,
	       sizeof(struct ib_uverbs_destroy_srq_resp)),
	LEGACY(OPEN_XRCD, emu_cmd_open_xrcd, ib_uverbs_open_xrcd,
	       sizeof(struct ib_uverbs_open_xrcd_resp)),
	LEGACY_NORESP(CLOSE_XRCD, emu_cmd_close_xrcd, ib_uverbs_close_xrcd),
	LEGACY(CREATE_XSRQ, emu_cmd_create_xsrq, ib_uverbs_create_xsrq,
	       sizeof(struct ib_uverbs_create_srq_resp)),
	LEGACY(OPEN_QP, emu_cmd_open_qp, ib_uverbs_open_qp,
	       sizeof(struct ib_uverbs_create_qp_resp)),
};

#define EX(cmd, f, req, min, rsp) \
	[IB_USER_VERBS_EX_CMD_##cmd] = { "EX_" #cmd, f, min, sizeof(struct req), rsp, 0, 0 }
#define EX_VAR(cmd, f, req, rsp) \
	[IB_USER_VERBS_EX_CMD_##cmd] = { "EX_" #cmd, f, sizeof(struct req), \
					 sizeof(struct req), rsp, 0, 1 }

static const struct cmd_desc ex_cmds[] = {
	EX(QUERY_DEVICE, emu_cmd_query_device_ex, ib_uverbs_ex_query_device,
	   sizeof(struct ib_uverbs_ex_query_device),
	   sizeof(struct ib_uverbs_query_device_resp)),
	EX(CREATE_CQ, emu_cmd_create_cq_ex, ib_uverbs_ex_create_cq,
	   offsetof(struct ib_uverbs_ex_create_cq, comp_mask),
	   sizeof(struct ib_uverbs_create_cq_resp)),
	EX(CREATE_QP, emu_cmd_create_qp_ex, ib_uverbs_ex_create_qp,
	   offsetof(struct ib_uverbs_ex_create_qp, comp_mask),
	   sizeof(struct ib_uverbs_create_qp_resp)),
	EX(MODIFY_QP, emu_cmd_modify_qp_ex, ib_uverbs_ex_modify_qp,
	   sizeof(struct ib_uverbs_modify_qp), 0),
	EX_VAR(CREATE_FLOW, emu_cmd_create_flow, ib_uverbs_create_flow,
	       sizeof(struct ib_uverbs_create_flow_resp)),
	EX(DESTROY_FLOW, emu_cmd_destroy_flow, ib_uverbs_destroy_flow,
	   sizeof(struct ib_uverbs_destroy_flow), 0),
	EX(CREATE_WQ, emu_cmd_create_wq, ib_uverbs_ex_create_wq,
	   offsetof(struct ib_uverbs_ex_create_wq, create_flags),
	   offsetof(struct ib_uverbs_ex_create_wq_resp, wqn) + 4),
	EX(MODIFY_WQ, emu_cmd_modify_wq, ib_uverbs_ex_modify_wq,
	   offsetof(struct ib_uverbs_ex_modify_wq, flags), 0),
	EX(DESTROY_WQ, emu_cmd_destroy_wq, ib_uverbs_ex_destroy_wq,
	   sizeof(struct ib_uverbs_ex_destroy_wq),
	   offsetof(struct ib_uverbs_ex_destroy_wq_resp, events_reported) + 4),
	EX_VAR(CREATE_RWQ_IND_TBL, emu_cmd_create_ind_tbl,
	       ib_uverbs_ex_create_rwq_ind_table,
	       sizeof(struct ib_uverbs_ex_create_rwq_ind_table_resp)),
	EX(DESTROY_RWQ_IND_TBL, emu_cmd_destroy_ind_tbl,
	   ib_uverbs_ex_destroy_rwq_ind_table,
	   sizeof(struct ib_uverbs_ex_destroy_rwq_ind_table), 0),
	EX(MODIFY_CQ, emu_cmd_modify_cq, ib_uverbs_ex_modify_cq,
	   sizeof(struct ib_uverbs_ex_modify_cq), 0),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The descriptor of command (legacy, or extended with its flag bit), or
 * NULL when the device does not implement it. */
static const struct cmd_desc *cmd_find(uint32_t command)
{
	const struct cmd_desc *table = legacy_cmds;
	size_t n = NELEM(legacy_cmds);
	uint32_t i = command;

	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		table = ex_cmds;
		n = NELEM(ex_cmds);
		i = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	}
	return i < n && table[i].fn ? &table[i] : NULL;
}

int emu_put_resp(struct emu_cmd *c, const void *resp, size_t len)
{
	if (!c->ex && c->resp_len < len)
		return ENOSPC;
	if (len > c->resp_len)
		len = c->resp_len;
	return emu_copy_out(c->resp, resp, len);
}

int emu_put_drv_resp(struct emu_cmd *c, const void *resp, size_t len)
{
	if (len > c->drv_resp_len)
		len = c->drv_resp_len;
	return emu_copy_out(c->drv_resp, resp, len);
}

void emu_get_drv_in(struct emu_cmd *c, void *dst, size_t len)
{
	memset(dst, 0, len);
	memcpy(dst, c->drv_in, c->drv_in_len < len ? c->drv_in_len : len);
}

static int decode_legacy(struct emu_cmd *c, const uint8_t *frame, size_t len,
			 const struct ib_uverbs_cmd_hdr *hdr,
			 const struct cmd_desc **d)
{
	size_t out = (size_t)hdr->out_words * 4;

	*d = cmd_find(hdr->command);
	if (!*d)
		return EOPNOTSUPP;
	if ((size_t)hdr->in_words * 4 != len)
		return EINVAL;
	if (len < sizeof(*hdr) + (*d)->in_size)
		return EINVAL;
	c->in = frame + sizeof(*hdr);
	c->in_len = (*d)->in_size;
	c->in_raw = c->in;
	c->in_raw_len = len - sizeof(*hdr);
	c->drv_in = frame + sizeof(*hdr) + (*d)->in_size;
	c->drv_in_len = len - sizeof(*hdr) - (*d)->in_size;
	if ((*d)->has_resp) {
		memcpy(&c->resp, c->in, sizeof(c->resp));
		if (out < (*d)->resp_size)
			return ENOSPC;
		c->resp_len = (*d)->resp_size;
		c->drv_resp = c->resp + (*d)->resp_size;
		c->drv_resp_len = out - (*d)->resp_size;
	}
	return 0;
}

static int decode_ex(struct emu_cmd *c, const uint8_t *frame, size_t len,
		     const struct ib_uverbs_cmd_hdr *hdr, const struct cmd_desc **d,
		     void *core_copy)
{
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t in, drv_in;

	if (hdr->command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_CMD_COMMAND_MASK))
		return EINVAL;
	*d = cmd_find(hdr->command);
	if (!*d)
		return EOPNOTSUPP;
	if (len < sizeof(*hdr) + sizeof(ex))
		return EINVAL;
	memcpy(&ex, frame + sizeof(*hdr), sizeof(ex));
	in = (size_t)hdr->in_words * 8;
	drv_in = (size_t)ex.provider_in_words * 8;
	if (ex.cmd_hdr_reserved || sizeof(*hdr) + sizeof(ex) + in + drv_in != len)
		return EINVAL;
	if (in < (*d)->in_min)
		return EINVAL;
	/* a longer request than we know must be zero beyond what we know */
	for (size_t i = (*d)->in_size; i < in && !(*d)->var_len; i++)
		if (frame[sizeof(*hdr) + sizeof(ex) + i])
			return EOPNOTSUPP;
	memset(core_copy, 0, (*d)->in_size);
	memcpy(core_copy, frame + sizeof(*hdr) + sizeof(ex),
	       in < (*d)->in_size ? in : (*d)->in_size);
	c->in = core_copy;
	c->in_len = (*d)->in_size;
	c->in_raw = frame + sizeof(*hdr) + sizeof(ex);
	c->in_raw_len = in;
	c->drv_in = frame + sizeof(*hdr) + sizeof(ex) + in;
	c->drv_in_len = drv_in;
	c->ex = 1;
	c->resp = ex.response;
	c->resp_len = (size_t)hdr->out_words * 8;
	c->drv_resp = ex.response + c->resp_len;
	c->drv_resp_len = (size_t)ex.provider_out_words * 8;
	if ((*d)->resp_size && c->resp_len < (*d)->resp_size)
		return ENOSPC;
	return 0;
}

static const char *cmd_name(uint32_t command)
{
	const struct cmd_desc *d = cmd_find(command);

	return d ? d->name : "unknown";
}

/*
 * Commands that act on queues or memory work already posted may use: the
 * device executes that work first.  With trapped doorbells every command
 * does (the rung QPs are all there is to look at); with polled ones only
 * these, since there a drain reads every ring.
 */
static bool orders_work(uint32_t command)
{
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		switch (command & IB_USER_VERBS_CMD_COMMAND_MASK) {
		case IB_USER_VERBS_EX_CMD_MODIFY_QP:
		case IB_USER_VERBS_EX_CMD_MODIFY_WQ:
		case IB_USER_VERBS_EX_CMD_DESTROY_WQ:
		case IB_USER_VERBS_EX_CMD_MODIFY_CQ:
			return true;
		default:
			return false;
		}
	}
	switch (command) {
	case IB_USER_VERBS_CMD_RESIZE_CQ:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_MODIFY_QP:
	case IB_USER_VERBS_CMD_QUERY_QP:
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
	case IB_USER_VERBS_CMD_QUERY_SRQ:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
	case IB_USER_VERBS_CMD_REREG_MR:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_DEALLOC_MW:
		return true;
	default:
		return false;
	}
}

/*
 * Commands that only hand out or take back an object no work refers to
 * yet: the engine has nothing new to look at, and waking it for each would
 * make a program that creates thousands of them wait on the engine thread.
 */
static bool wakes_engine(uint32_t command)
{
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		return true;
	switch (command) {
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
	case IB_USER_VERBS_CMD_QUERY_PORT:
	case IB_USER_VERBS_CMD_ALLOC_PD:
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_REG_MR:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_ALLOC_MW:
	case IB_USER_VERBS_CMD_DEALLOC_MW:
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL:
	case IB_USER_VERBS_CMD_CREATE_CQ:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_CREATE_SRQ:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		return false;
	default:
		return true;
	}
}

ssize_t emu_uverbs_write(struct emu_ctx *ctx, const void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr hdr = { 0 };
	const struct cmd_desc *d = NULL;
	struct emu_cmd c = { .ctx = ctx };
	uint64_t core_copy[64];
	uint8_t *frame;
	int err;

	if (len < sizeof(hdr) || len > EMU_MAX_FRAME) {
		errno = EINVAL;
		return -1;
	}
	frame = malloc(len);
	if (!frame) {
		errno = ENOMEM;
		return -1;
	}
	err = emu_copy_in(frame, (uintptr_t)buf, len);
	if (err)
		goto out;
	memcpy(&hdr, frame, sizeof(hdr));
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		err = decode_ex(&c, frame, len, &hdr, &d, core_copy);
	else
		err = decode_legacy(&c, frame, len, &hdr, &d);
	if (err)
		goto out;
	emu_adapter_lock();
	if (emu_cfg.doorbell_trap || orders_work(hdr.command))
		emu_engine_drain();
	/* only GET_CONTEXT is allowed before the context exists */
	if (ctx->async_q.rd < 0 && d->fn != emu_cmd_get_context)
		err = EINVAL;
	else
		err = d->fn(&c);
	emu_engine_flush_wire();
	emu_adapter_unlock();
	if (wakes_engine(hdr.command))
		emu_engine_kick();
out:
	free(frame);
	if (emu_cfg.debug)
		emu_trace("command %s (0x%x, %zu bytes) -> %s", cmd_name(hdr.command),
			  hdr.command, len, err ? strerror(err) : "ok");
	if (err) {
		errno = err;
		return -1;
	}
	return (ssize_t)len;
}
