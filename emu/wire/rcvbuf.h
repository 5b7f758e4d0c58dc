/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a port's UDP socket can hold: the kernel queues a datagram only
 * while the bytes its receive queue already charges stay within the
 * socket's receive buffer, and charges each datagram its buffer's true
 * size, not its length.  The transport sizes its link credits from these
 * two (transport/link_credits.h).
 */
#ifndef MLX4EMU_WIRE_RCVBUF_H
#define MLX4EMU_WIRE_RCVBUF_H

#include <stddef.h>
#include <stdint.h>

/* The receive buffer of the port's socket in bytes (SO_RCVBUF as the
 * kernel reports it: what its queue may charge), or 0 without a socket. */
uint64_t emu_port_rcvbuf(unsigned port);

/* An upper bound of what the kernel charges a receive queue for one
 * datagram carrying `len` bytes of UDP payload (socket buffer, headers,
 * the kernel's own bookkeeping). */
uint32_t emu_link_truesize(size_t len);

#endif
