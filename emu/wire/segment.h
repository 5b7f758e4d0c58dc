/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The wire segment: the adapters a flood reaches (broadcast, multicast
 * and unknown-unicast Ethernet frames, multicast UD datagrams), as the
 * switch of one broadcast domain would.  An adapter is on segment N
 * (MLX4EMU_WIRE_SEGMENT, 1..16777215, the VNI of its VXLAN frames) or on
 * none (0: its floods stay in the adapter).
 *
 * Adapters of one user on one host find each other through their trees:
 * each publishes, in the file EMU_SEGMENT_FILE of its own tree, its
 * segment and its ports' addresses and link layers:
 *
 *   segment N
 *   port 1 eth 127.0.12.7
 *   port 2 ib 127.0.12.8
 *
 * and reads the others' from the directory that holds the trees, keeping
 * those whose lock file (NAME.lock, flock()ed by the live owner) cannot be
 * taken.  Adapters on other hosts are the addresses MLX4EMU_LID_MAP names:
 * they are taken as members of the segment, of either link layer.
 */
#ifndef MLX4EMU_WIRE_SEGMENT_H
#define MLX4EMU_WIRE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#define EMU_SEGMENT_FILE "wire-segment"
#define EMU_SEGMENT_MAX_PEERS 256

/* Writes this adapter's EMU_SEGMENT_FILE text into buf (len bytes). */
void emu_segment_describe(char *buf, size_t len);

/* Where the trees are (`base`, an absolute path) and this adapter's own
 * tree's name (not a peer).  Called once, before the engine starts. */
void emu_segment_init(const char *base, const char *own);

/* A port of another adapter on this adapter's segment. */
struct emu_peer {
	uint32_t addr;		/* host order */
	uint8_t link_layer;	/* EMU_LL_IB, EMU_LL_ETH, or 0: unknown */
};

/*
 * The ports of the other adapters of the segment (none when this adapter
 * has no segment), read again when the last reading is over 100 ms old.
 * Returns their number (at most EMU_SEGMENT_MAX_PEERS) and sets *peers.
 * Engine thread (the adapter lock held).
 */
unsigned emu_segment_peers(const struct emu_peer **peers);

#endif
