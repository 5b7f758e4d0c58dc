/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The kernel-side admission of a port's RoCEv2 socket: a classic BPF
 * socket filter (SO_ATTACH_FILTER) that lets a datagram into the receive
 * buffer only when it comes from UDP port 4791 of a peer address some QP
 * of the port is connected to, or, while the port has a UD QP ready to
 * receive, when it carries a UD packet (the UD model takes any sender
 * with the right Q_Key) or a datagram credit (opcode 0xc0,
 * transport/datagram_credits.h).  Everything else is dropped by the kernel
 * before it takes receive-buffer space, so that a stranger's flood cannot
 * overflow the buffer the link credits of the legitimate peers count on
 * (transport/link_credits.c).  The kernel counts such a drop in the
 * socket's drop count, which SO_RXQ_OVFL reports with the next datagram
 * read: the port's rx_overflow (wire/link.h) holds both.
 *
 * This is a flood measure, not the check: the transport still validates
 * every packet against its QP's path (transport/admission.c).  Beyond
 * EMU_PEER_FILTER_MAX peers on a port the filter is removed (every
 * datagram reaches the engine, which drops strangers' packets itself).
 * Called with the adapter lock held.  Addresses are IPv4, host order.
 */
#ifndef MLX4EMU_WIRE_PEER_FILTER_H
#define MLX4EMU_WIRE_PEER_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* Peer addresses one port's filter holds at most (a classic BPF program
 * has at most 4096 instructions, two per address). */
#define EMU_PEER_FILTER_MAX 2040

/* Installs the port's first filter (nobody admitted yet); 0 or an errno
 * (the port then admits every datagram). */
int emu_peer_filter_init(unsigned port);
/* One more QP of `port` connected to `addr`; the filter admits it from
 * the first. */
void emu_peer_filter_add(unsigned port, uint32_t addr);
/* One QP fewer; the address leaves the filter with its last QP. */
void emu_peer_filter_remove(unsigned port, uint32_t addr);
/* One more (true) or one fewer (false) UD QP of the port ready to
 * receive: UD packets are admitted from anyone while there is one. */
void emu_peer_filter_ud(unsigned port, bool more);

#endif
