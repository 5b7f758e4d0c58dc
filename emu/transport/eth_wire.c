// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "transport/eth_wire.h"

#include <string.h>

#include "base/config.h"
#include "transport/flood.h"
#include "wire/identity.h"
#include "wire/roce.h"
#include "wire/vxlan.h"

/* The other Ethernet port of this adapter, when it is on the wire too
 * (not cabled to this one): 0 when none. */
static unsigned other_wire_port(unsigned port)
{
	unsigned other = 3 - port;

	return emu_cfg.ports == 2 && !emu_cfg.cross_cable &&
	       emu_cfg.link_layer[other - 1] == EMU_LL_ETH ? other : 0;
}

/* The address of the port a unicast MAC 02:c9:<address> names when the
 * switch knows it (another adapter's port, or this adapter's other port
 * on the wire); 0 when it does not. */
static uint32_t learnt_port(unsigned port, const uint8_t *mac)
{
	unsigned other = other_wire_port(port);
	uint32_t dst;

	if (mac[0] != 0x02 || mac[1] != 0xc9)
		return 0;
	dst = emu_get_be32(mac + 2);
	return !emu_addr_is_self(dst) || (other && dst == emu_port_addr(other)) ? dst : 0;
}

void emu_eth_send_remote(unsigned port, const uint8_t *f, uint32_t len)
{
	uint8_t mac[6];
	uint32_t dst;

	emu_port_mac(port, mac);
	if (!memcmp(f, mac, 6))
		return;
	dst = learnt_port(port, f);
	if (dst)
		emu_vxlan_queue(port, dst, f, len);
	else
		emu_flood(port, f, len);
}
