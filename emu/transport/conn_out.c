// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The packets of a connection onto the wire: BTH, the XRC and extended
 * headers, the payload copied or in place. */
#include "transport/conn_out.h"

#include <string.h>
#include <sys/uio.h>

#include "transport/conn.h"
#include "transport/xrc_wire.h"

uint32_t conn_mtu(const struct emu_qp *qp)
{
	unsigned m = qp->attr.mtu >= 1 && qp->attr.mtu <= 5 ? qp->attr.mtu : 5;

	return 128u << m;
}

/* The BTH (its pad for a payload of len bytes) and the extended headers
 * of a packet into hdr; returns their length. */
static size_t packet_header(struct emu_conn *c, uint8_t *hdr, uint8_t opcode, uint32_t psn,
			    bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
			    uint64_t len)
{
	struct emu_bth bth = {
		.opcode = opcode,
		.se = se,
		.pad = (uint8_t)((4 - (len & 3)) & 3),
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = c->qp->attr.dest_qpn,
		.psn = psn,
		.ack_req = ack_req,
	};
	size_t xrc = emu_xrc_wire_out(c->qp, c->req.xrc_srqn, &bth.opcode,
				      hdr + EMU_BTH_BYTES);

	emu_bth_put(hdr, &bth);
	memcpy(hdr + EMU_BTH_BYTES + xrc, ext, ext_len);
	return EMU_BTH_BYTES + xrc + ext_len;
}

void conn_packet_out(struct emu_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		     bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		     const uint8_t *payload, uint32_t len)
{
	uint8_t hdr[EMU_ROCE_HDR_MAX];
	struct iovec iov = { (void *)payload, len };
	size_t hdr_len = packet_header(c, hdr, opcode, psn, ack_req, se, ext, ext_len, len);

	emu_link_queue(c->port, dst, hdr, hdr_len, &iov, len ? 1 : 0);
}

int conn_packet_out_ref(struct emu_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
			bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
			const struct iovec *iov, int iovcnt)
{
	uint8_t hdr[EMU_ROCE_HDR_MAX];
	uint64_t len = 0;
	size_t hdr_len;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	hdr_len = packet_header(c, hdr, opcode, psn, ack_req, se, ext, ext_len, len);
	return emu_link_queue_ref(c->port, dst, hdr, hdr_len, iov, iovcnt);
}
