// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* One adapter's side of the two-process wire tests (see peer_side.h). */
#define _GNU_SOURCE
#include "peer_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_io.h"
#include "verbs_env.h"

struct ibv_context *peer_open_device(const char *prog, struct ibv_port_attr *port)
{
	struct ibv_context *ctx = vx_device_open(NULL, 0);

	if (!ctx) {
		fprintf(stderr, "%s: no device\n", prog);
		return NULL;
	}
	if (port && ibv_query_port(ctx, 1, port)) {
		peer_fail(prog, "ibv_query_port");
		ibv_close_device(ctx);
		return NULL;
	}
	return ctx;
}

int peer_qp_open(const char *prog, struct ibv_context *ctx, struct ibv_pd *pd,
		 const struct peer_qp_spec *spec, struct peer_qp *q)
{
	struct ibv_qp_init_attr_ex a = spec->attr;
	void *buf;

	q->cq = ibv_create_cq(ctx, spec->cqe, NULL, NULL, 0);
	if (!q->cq)
		return peer_fail(prog, "ibv_create_cq");
	if (posix_memalign(&buf, 4096, spec->buf_bytes)) {
		fprintf(stderr, "%s: no memory for the buffer\n", prog);
		return -1;
	}
	q->buf = memset(buf, 0, spec->buf_bytes);
	q->mr = ibv_reg_mr(pd, q->buf, spec->buf_bytes, (int)spec->access);
	if (!q->mr)
		return peer_fail(prog, "ibv_reg_mr");
	a.send_cq = a.recv_cq = q->cq;
	a.comp_mask |= IBV_QP_INIT_ATTR_PD;
	a.pd = pd;
	q->qp = ibv_create_qp_ex(ctx, &a);
	if (!q->qp)
		return peer_fail(prog, "ibv_create_qp_ex");
	return 0;
}

static int destroyed(const char *prog, int ret, const char *what)
{
	if (!ret)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(ret));
	return -1;
}

int peer_qp_close(const char *prog, struct peer_qp *q)
{
	int rc = 0;

	if (q->qp)
		rc |= destroyed(prog, ibv_destroy_qp(q->qp), "ibv_destroy_qp");
	if (q->mr)
		rc |= destroyed(prog, ibv_dereg_mr(q->mr), "ibv_dereg_mr");
	if (q->cq)
		rc |= destroyed(prog, ibv_destroy_cq(q->cq), "ibv_destroy_cq");
	free(q->buf);
	memset(q, 0, sizeof(*q));
	return rc;
}
