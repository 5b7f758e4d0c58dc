/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One decoded uverbs command frame, as handed to the command handlers. */
#ifndef MLX4EMU_CMD_H
#define MLX4EMU_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sys/types.h>

#include "adapter/abi.h"
#include "adapter/adapter.h"
#include "base/usermem.h"

struct emu_cmd {
	struct emu_ctx *ctx;
	const void *in;		/* core request (after the header) */
	size_t in_len;
	const void *in_raw;	/* core request as sent (variable parts) */
	size_t in_raw_len;
	const void *drv_in;	/* mlx4 driver request */
	size_t drv_in_len;
	uint64_t resp;		/* user address of the core response */
	size_t resp_len;
	uint64_t drv_resp;	/* user address of the driver response */
	size_t drv_resp_len;
	int ex;
};

/* Handlers return 0 or a positive errno; called with the adapter lock
 * held (adapter/lock.h). */
typedef int (*emu_cmd_fn)(struct emu_cmd *c);

/* Copies the response: legacy frames need room for all of it. */
int emu_put_resp(struct emu_cmd *c, const void *resp, size_t len);
int emu_put_drv_resp(struct emu_cmd *c, const void *resp, size_t len);
/* Copies the driver request into a zeroed struct (short is fine). */
void emu_get_drv_in(struct emu_cmd *c, void *dst, size_t len);

int emu_cmd_get_context(struct emu_cmd *c);
int emu_cmd_query_device(struct emu_cmd *c);
int emu_cmd_query_device_ex(struct emu_cmd *c);
int emu_cmd_query_port(struct emu_cmd *c);
int emu_cmd_alloc_pd(struct emu_cmd *c);
int emu_cmd_dealloc_pd(struct emu_cmd *c);
int emu_cmd_reg_mr(struct emu_cmd *c);
int emu_cmd_rereg_mr(struct emu_cmd *c);
int emu_cmd_dereg_mr(struct emu_cmd *c);
int emu_cmd_alloc_mw(struct emu_cmd *c);
int emu_cmd_dealloc_mw(struct emu_cmd *c);
int emu_cmd_create_comp_channel(struct emu_cmd *c);
int emu_cmd_create_cq(struct emu_cmd *c);
int emu_cmd_create_cq_ex(struct emu_cmd *c);
int emu_cmd_destroy_cq(struct emu_cmd *c);
int emu_cmd_resize_cq(struct emu_cmd *c);
int emu_cmd_modify_cq(struct emu_cmd *c);
int emu_cmd_create_qp(struct emu_cmd *c);
int emu_cmd_create_qp_ex(struct emu_cmd *c);
int emu_cmd_query_qp(struct emu_cmd *c);
int emu_cmd_modify_qp(struct emu_cmd *c);
int emu_cmd_modify_qp_ex(struct emu_cmd *c);
int emu_cmd_destroy_qp(struct emu_cmd *c);
int emu_cmd_create_srq(struct emu_cmd *c);
int emu_cmd_create_xsrq(struct emu_cmd *c);
int emu_cmd_open_xrcd(struct emu_cmd *c);
int emu_cmd_close_xrcd(struct emu_cmd *c);
int emu_cmd_open_qp(struct emu_cmd *c);
int emu_cmd_modify_srq(struct emu_cmd *c);
int emu_cmd_query_srq(struct emu_cmd *c);
int emu_cmd_destroy_srq(struct emu_cmd *c);
int emu_cmd_create_wq(struct emu_cmd *c);
int emu_cmd_modify_wq(struct emu_cmd *c);
int emu_cmd_destroy_wq(struct emu_cmd *c);
int emu_cmd_create_ind_tbl(struct emu_cmd *c);
int emu_cmd_destroy_ind_tbl(struct emu_cmd *c);
int emu_cmd_create_flow(struct emu_cmd *c);
int emu_cmd_destroy_flow(struct emu_cmd *c);
int emu_cmd_attach_mcast(struct emu_cmd *c);
int emu_cmd_detach_mcast(struct emu_cmd *c);

/* Frequency, timestamp mask and clock page offset for QUERY_DEVICE_EX. */
void emu_clock_caps(struct ib_uverbs_ex_query_device_resp *r,
		    struct mlx4_uverbs_ex_query_device_resp *drv);

struct emu_srq_attrs;
/* Creates the SRQ from the request and libmlx4's driver data (buffer and
 * doorbell record, filled into a), answering with struct
 * ib_uverbs_create_srq_resp. */
int emu_cmd_srq_create(struct emu_cmd *c, struct emu_srq_attrs *a);

/* The uverbs write() ABI on a context's command fd: decodes and runs one
 * command frame; returns len, or -1 with errno. */
ssize_t emu_uverbs_write(struct emu_ctx *ctx, const void *buf, size_t len);

#endif
