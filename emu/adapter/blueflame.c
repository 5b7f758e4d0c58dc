// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include <string.h>

#include "adapter/objects.h"
#include "adapter/send.h"

/*
 * BlueFlame: libmlx4 copies a small WQE (with the WQE counter in word 0
 * bits 8..23 and the doorbell QPN in word 1) to the BlueFlame buffer after
 * writing it to the ring.  A post seen only in the BlueFlame buffer is
 * captured here and executed when the QP's counter reaches it.  The page
 * holds EMU_BF_REGS_PER_PAGE registers of two buffers each, as GET_CONTEXT
 * reports; libmlx4 uses register 0, a direct-verbs library may use others.
 */
void emu_ctx_poll_bf(struct emu_ctx *ctx)
{
	uint32_t half = emu_cfg.bf_reg_size / 2;

	if (!ctx->bf_page || !half)
		return;
	for (int h = 0; h < 2 * EMU_BF_REGS_PER_PAGE; h++) {
		const uint8_t *bf = ctx->bf_page + h * half;
		uint8_t head[16], again[16];
		uint32_t w0, qpn, counter, size;
		struct emu_qp *qp;

		memcpy(head, bf, 16);
		if (!memcmp(head, ctx->bf_last[h], 16))
			continue;
		w0 = ld_be32(head);
		qpn = ld_be32(head + 4) >> 8;
		counter = (w0 >> 8) & 0xffff;
		size = (head[7] & 0x3f) * 16;
		qp = emu_qp_by_qpn(qpn);
		if (!qp || qp->ctx != ctx || qp->is_wq || !size || size > half) {
			memcpy(ctx->bf_last[h], head, 16);
			continue;
		}
		if (counter == (qp->sq.pc & 0xffff) && !emu_sq_slot_valid(qp, qp->sq.pc) &&
		    (w0 >> 31) == ((qp->sq.pc & qp->sq.cnt) ? 1u : 0u)) {
			memcpy(qp->bf.copy, bf, size);
			memcpy(again, bf, 16);
			if (memcmp(again, head, 16) || memcmp(qp->bf.copy, bf, size))
				continue;	/* still being written */
			qp->bf.pending = true;
			qp->bf.counter = counter;
			memcpy(ctx->bf_last[h], head, 16);
			EMU_CTR_INC(bf_wqes);
		} else if (((qp->sq.pc - counter) & 0xffff) < 0x8000) {
			/* the same WQE is (or was) executed from the ring */
			memcpy(ctx->bf_last[h], head, 16);
			EMU_CTR_INC(bf_wqes);
		}
	}
}
