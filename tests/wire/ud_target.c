// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The receiving side of the forged-datagram tests (see ud_target.h). */
#define _GNU_SOURCE
#include "ud_target.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SKIP_STATUS 77

int ud_target_open(struct ud_target *t, void *slots, size_t slot_bytes, unsigned n_slots,
		   uint32_t qkey)
{
	struct ibv_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = n_slots,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct vx_qp_attrs ud;
	const char *step = "no device";

	memset(t, 0, sizeof(*t));
	if (vx_env_open(&t->env, NULL, 0, 1))
		goto fail_env;
	step = "the port's address";
	if (vx_port_ipv4(t->env.ctx, 1, &t->addr))
		goto fail;
	step = "UD QP in RTS";
	t->mr = ibv_reg_mr(t->env.pd, slots, slot_bytes * n_slots, IBV_ACCESS_LOCAL_WRITE);
	t->cq = t->mr ? ibv_create_cq(t->env.ctx, 16, NULL, NULL, 0) : NULL;
	t->qp = t->cq ? vx_qp_create(t->env.pd, IBV_QPT_UD, t->cq, t->cq, NULL, &cap) : NULL;
	vx_qp_attrs_default(&ud, 1);
	ud.qkey = qkey;
	if (!t->qp || vx_qp_to_rts(t->qp, &ud))
		goto fail;
	step = "post receives";
	if (vx_post_recv_slots(t->qp, slots, (uint32_t)slot_bytes, n_slots, t->mr->lkey))
		goto fail;
	return 0;
fail:
	ud_target_close(t);
fail_env:
	printf("FAIL: %s\n", step);
	return -1;
}

/* In the child: nobody's groups, group and user, for good. */
static bool become(const struct passwd *pw)
{
	return !setgroups(0, NULL) && !setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) &&
	       !setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) && getuid();
}

int ud_target_run_sender(const struct ud_target *t, int (*sender)(uint32_t dst, uint32_t dest_qpn),
			 bool as_nobody)
{
	const struct passwd *pw = NULL;
	pid_t child;

	if (as_nobody) {
		pw = getpwnam("nobody");
		if (!pw || geteuid())
			return SKIP_STATUS;
	}
	fflush(stdout);
	child = fork();
	if (child < 0)
		return -1;
	if (!child)
		_exit(pw && !become(pw) ? SKIP_STATUS : sender(t->addr, t->qp->qp_num));
	return vx_child_exit_status(child);
}

bool ud_target_in_rts(const struct ud_target *t)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	return !ibv_query_qp(t->qp, &a, IBV_QP_STATE, &init) && a.qp_state == IBV_QPS_RTS;
}

/* The first non-zero of the two. */
static int first_err(int err, int next)
{
	return err ? err : next;
}

int ud_target_close(struct ud_target *t)
{
	int err = t->qp ? ibv_destroy_qp(t->qp) : 0;

	err = first_err(err, t->cq ? ibv_destroy_cq(t->cq) : 0);
	err = first_err(err, t->mr ? ibv_dereg_mr(t->mr) : 0);
	err = first_err(err, vx_env_close(&t->env));
	memset(t, 0, sizeof(*t));
	return err;
}
