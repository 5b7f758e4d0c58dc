/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The packets of a connection onto the wire (queued on the RoCEv2 link,
 * wire/link.h; sent at the end of the engine pass or command). */
#ifndef MLX4EMU_TRANSPORT_CONN_OUT_H
#define MLX4EMU_TRANSPORT_CONN_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_conn;
struct emu_qp;
struct iovec;

/* Path MTU payload bytes of the QP (256..4096). */
uint32_t conn_mtu(const struct emu_qp *qp);
/* Queues one packet to dst (IPv4, host order): BTH from the fields (PSN
 * 24 bits, DestQP the QP's), the XRCETH of an XRC initiator, `ext` (the
 * opcode's other extended headers, ext_len bytes, already big-endian),
 * then len payload bytes, copied. */
void conn_packet_out(struct emu_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		     bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		     const uint8_t *payload, uint32_t len);
/* The same with the payload in place in registered memory (read when the
 * queue is flushed: emu_link_queue_ref); 0, or EFAULT when reading it
 * faulted. */
int conn_packet_out_ref(struct emu_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
			bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
			const struct iovec *iov, int iovcnt);

#endif
