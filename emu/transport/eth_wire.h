/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Raw Ethernet frames between adapters: out of a port onto the wire as a
 * learning switch forwards them; in, the tunnel's frames reach the port
 * through transport.c's source (emu_eth_receive).
 */
#ifndef MLX4EMU_TRANSPORT_ETH_WIRE_H
#define MLX4EMU_TRANSPORT_ETH_WIRE_H

#include <stdint.h>

/*
 * Puts a frame a raw packet QP sent on Ethernet port `port` (len >= 14
 * bytes from the destination MAC on) onto the wire: a unicast frame for
 * the MAC of another adapter's port (02:c9:<address>, or this adapter's
 * other port when that one is on the wire) to that port alone; a frame
 * for the sending port's own MAC nowhere (the adapter's loopback has
 * it); broadcast, multicast and any other MAC (the switch has not learnt
 * it) flooded to the segment (flood.h).  the adapter lock held; sent by the
 * next emu_vxlan_flush().
 */
void emu_eth_send_remote(unsigned port, const uint8_t *frame, uint32_t len);

#endif
