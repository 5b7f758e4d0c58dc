// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The data part of a send WQE as a gather list: inline segments (a header
 * 0x80000000 | length, new headers only at 64-byte boundaries) or data
 * segments (byte count, lkey, address) checked against the memory keys.
 */
#include <string.h>

#include "adapter/objects.h"
#include "adapter/send.h"

void emu_send_strict_fail(struct send_op *op, uint8_t vendor, const char *rule)
{
	op->syndrome = EMU_SYN_LOCAL_QP_OP;
	op->vendor = vendor;
	EMU_CTR_INC(strict_errors);
	if (emu_cfg.debug)
		emu_trace("QPN 0x%x WQE 0x%04x opcode 0x%02x: %s", op->qp->qpn,
			  op->index, op->opcode, rule);
}

static int parse_inline(struct send_op *op, struct emu_gather *g)
{
	uint32_t off = op->off;

	while (op->size - off >= 4) {
		uint32_t h = ld_be32(op->w + off);
		uint32_t len = h & 0x7fffffff;

		if (!(h & EMU_INLINE_SEG) || off + 4 + len > op->size) {
			/* padding up to the 16-byte end of the WQE */
			if (g->n && op->size - off < 16)
				break;
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS,
				    "ds does not match the inline segments");
			return -1;
		}
		if ((off & 63) + 4 + len > 64) {
			emu_send_strict_fail(op, EMU_VSYN_INLINE_CROSSES_64B,
				    "inline segment crosses a 64-byte boundary");
			return -1;
		}
		if (emu_gather_add(g, op->w + off + 4, len)) {
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "too many inline segments");
			return -1;
		}
		off += 4 + len;
		/* Writers (libmlx4 qp.c, <infiniband/mlx4dv.h>) open a new
		 * segment only at a 64-byte boundary: one that stops short of
		 * its chunk is the last, and what follows up to the end of the
		 * WQE is padding, stale bytes of older WQEs that may look like
		 * a header. */
		if (off & 63) {
			if (op->size - off >= 16) {
				emu_send_strict_fail(op, EMU_VSYN_BAD_DS,
					    "ds does not match the inline segments");
				return -1;
			}
			break;
		}
	}
	return 0;
}

static int parse_data_segs(struct send_op *op, struct emu_gather *g)
{
	struct emu_qp *qp = op->qp;

	if ((op->size - op->off) % 16) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds does not match the data segments");
		return -1;
	}
	for (uint32_t off = op->off; off < op->size; off += 16) {
		uint32_t bc = ld_be32(op->w + off);
		uint32_t lkey = ld_be32(op->w + off + 4);
		uint64_t addr = ld_be64(op->w + off + 8);
		uint32_t len = bc ? bc & 0x7fffffff : 0x80000000u;
		struct emu_key *k;
		uint8_t *p;

		if (bc == EMU_INLINE_SEG || !len)
			continue;	/* zero-length SGE */
		k = emu_key_lookup(lkey);
		p = (k && k->kind == EMU_KEY_MR && k->pdn == qp->pdn) ?
		    emu_key_map(k, addr, len) : NULL;
		if (!p) {
			op->syndrome = EMU_SYN_LOCAL_PROT;
			EMU_TRACE("QPN 0x%x WQE 0x%04x: lkey 0x%x addr 0x%llx len %u not accessible",
				  qp->qpn, op->index, lkey, (unsigned long long)addr, len);
			return -1;
		}
		emu_gather_add(g, p, len);
	}
	return 0;
}

int emu_send_gather(struct send_op *op, struct emu_gather *g)
{
	uint32_t first;

	g->n = 0;
	g->total = 0;
	g->inline_data = false;
	if (op->off >= op->size)
		return 0;
	first = ld_be32(op->w + op->off);
	if ((first & EMU_INLINE_SEG) && first != EMU_INLINE_SEG) {
		g->inline_data = true;
		return parse_inline(op, g);
	}
	return parse_data_segs(op, g);
}
