// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The C blocks of docs/first-program.md, in order (doc_snippets.cmake
 * writes them to snippets.inc), over the objects the guide has made
 * before its first block: the connected QP, the registered memory, a
 * completion channel, and the names its blocks use for a receive slot and
 * the sequence numbers.  Compiled only: the examples run the same calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/mlx4dv.h>

void first_program_snippets(struct ibv_qp *qp, struct ibv_mr *mr,
			    struct ibv_comp_channel *channel, void *slot,
			    uint32_t size, uint64_t slot_number,
			    uint64_t sequence_number);

void first_program_snippets(struct ibv_qp *qp, struct ibv_mr *mr,
			    struct ibv_comp_channel *channel, void *slot,
			    uint32_t size, uint64_t slot_number,
			    uint64_t sequence_number)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	uint64_t wr_id;

#include "snippets.inc"
}
