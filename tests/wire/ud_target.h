/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The receiving side of the forged-datagram tests (ud_stranger,
 * credit_stranger, bad_icrc): a UD QP in RTS on port 1 of the first
 * device with its receive WQEs posted, and a child forked to send it
 * packets of its own making (ud_forge.h), as the caller or as nobody.
 */
#ifndef MLX4DV_TEST_WIRE_UD_TARGET_H
#define MLX4DV_TEST_WIRE_UD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verbs_env.h"

struct ud_target {
	struct vx_env env;
	struct ibv_mr *mr;
	struct ibv_cq *cq;	/* the QP's send and receive CQ, 16 CQEs */
	struct ibv_qp *qp;
	uint32_t addr;		/* port 1's IPv4 address, host order */
};

/*
 * Opens the device and makes the QP with Q_Key qkey (host order), then
 * posts n_slots receive WQEs of slot_bytes each at slots (wr_id 0 ..
 * n_slots - 1, one MR over all of them).  0, or -1 with the step that
 * failed printed; nothing is left open on failure.
 */
int ud_target_open(struct ud_target *t, void *slots, size_t slot_bytes, unsigned n_slots,
		   uint32_t qkey);

/*
 * Forks a child that runs sender(dst, dest_qpn) with the QP's address
 * and QPN, first giving up root for nobody's user and groups when
 * as_nobody.  The child may use system calls and stdio only (the parent
 * has the device's threads).  Returns the child's exit status; 77 when
 * as_nobody and this process is not root or has no user nobody (nothing
 * forked then); -1 when the fork failed or the child did not exit (a
 * signal ended it).
 */
int ud_target_run_sender(const struct ud_target *t, int (*sender)(uint32_t dst, uint32_t dest_qpn),
			 bool as_nobody);

/* Whether the QP is still in RTS (ibv_query_qp). */
bool ud_target_in_rts(const struct ud_target *t);

/* Destroys the QP, CQ and MR and closes the device; 0 or the first
 * errno. */
int ud_target_close(struct ud_target *t);

#endif
