/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The flood of a frame to the wire segment (wire/segment.h), as the switch
 * of one broadcast domain delivers a broadcast, multicast or
 * unknown-unicast frame: raw Ethernet frames (eth_wire.c) and the RoCE v1
 * frames of multicast datagrams (ud.c) both leave through it.
 */
#ifndef MLX4EMU_TRANSPORT_FLOOD_H
#define MLX4EMU_TRANSPORT_FLOOD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Queues `frame` (len bytes, as it goes on the wire) from `port` (1 or 2)
 * in the VXLAN tunnel to every port the flood reaches: each port of
 * another adapter on the segment whose link layer is the sending port's
 * or unknown (an MLX4EMU_LID_MAP host), and this adapter's other port
 * when it is on the segment too (two ports of one link layer, not cabled
 * to each other).  Never back to the sending port: what the port's own
 * QPs get is the caller's loopback (and its BLOCK_SELF_MCAST_LB rule).
 * Nothing when the adapter is on no segment.  Engine thread or command
 * path, the adapter lock held; sent by the next emu_vxlan_flush().
 */
void emu_flood(unsigned port, const uint8_t *frame, size_t len);

#endif
