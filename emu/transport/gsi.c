// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * QP1 between adapters: a MAD goes out as BTH (UD SEND_ONLY, DestQP 1,
 * P_Key 0xffff), DETH (Q_Key 0x80010000, source QP 1) and the 256 MAD
 * bytes, the way a ConnectX-3's GSI QP sends it on RoCEv2; what arrives
 * for QP1 is checked (opcode, Q_Key, length) and handed up.
 */
#include "transport/gsi.h"

#include <sys/uio.h>

#include "base/config.h"
#include "wire/roce.h"

static emu_gsi_handler gsi_handler;
/* PSN of QP1's next packet: UD ignores it, tshark shows it */
static uint32_t gsi_psn;

void emu_gsi_register(emu_gsi_handler h)
{
	gsi_handler = h;
}

int emu_gsi_send(unsigned port, uint32_t dst, const uint8_t mad[EMU_MAD_BYTES])
{
	uint8_t hdr[EMU_BTH_BYTES + EMU_DETH_BYTES];
	struct emu_bth bth = {
		.opcode = EMU_TR_UD | EMU_BOP_SEND_ONLY,
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = EMU_GSI_QPN,
		.psn = gsi_psn,
	};
	struct iovec iov = { (void *)mad, EMU_MAD_BYTES };
	int err;

	gsi_psn = (gsi_psn + 1) & 0xffffff;
	emu_bth_put(hdr, &bth);
	emu_put_be32(hdr + EMU_BTH_BYTES, EMU_GSI_QKEY);
	emu_put_be32(hdr + EMU_BTH_BYTES + 4, EMU_GSI_QPN);
	err = emu_link_queue(port, dst, hdr, sizeof(hdr), &iov, 1);
	if (!err)
		emu_link_flush();
	return err;
}

bool emu_gsi_receive(const struct emu_rx *rx, uint32_t dest_qpn)
{
	size_t hl = EMU_BTH_BYTES + EMU_DETH_BYTES;

	if (dest_qpn != EMU_GSI_QPN)
		return false;
	if ((rx->pkt[0] & 0x1f) != EMU_BOP_SEND_ONLY || rx->len < hl + EMU_MAD_BYTES ||
	    emu_get_be32(rx->pkt + EMU_BTH_BYTES) != EMU_GSI_QKEY)
		return true;
	if (gsi_handler)
		gsi_handler(rx->port, rx->src, rx->pkt + hl, EMU_MAD_BYTES);
	return true;
}
