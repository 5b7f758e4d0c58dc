// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "transport/flood.h"

#include "base/config.h"
#include "wire/identity.h"
#include "wire/segment.h"
#include "wire/vxlan.h"

/* The other port of this adapter is a port of the segment like any
 * other, unless a cable joins it to this one (two Ethernet ports). */
static bool other_port_on_segment(unsigned port, unsigned other)
{
	uint8_t ll = emu_cfg.link_layer[port - 1];

	return emu_cfg.wire_segment && emu_cfg.ports == 2 &&
	       emu_cfg.link_layer[other - 1] == ll &&
	       !(ll == EMU_LL_ETH && emu_cfg.cross_cable);
}

void emu_flood(unsigned port, const uint8_t *frame, size_t len)
{
	uint8_t ll = emu_cfg.link_layer[port - 1];
	unsigned other = 3 - port;
	const struct emu_peer *peers;
	/* none when the adapter has no segment; never this adapter's own */
	unsigned n = emu_segment_peers(&peers);

	for (unsigned i = 0; i < n; i++)
		if (!peers[i].link_layer || peers[i].link_layer == ll)
			emu_vxlan_queue(port, peers[i].addr, frame, len);
	if (other_port_on_segment(port, other))
		emu_vxlan_queue(port, emu_port_addr(other), frame, len);
}
