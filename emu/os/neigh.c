// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The neighbour table of the emulated Ethernet, as libibverbs asks it.
 *
 * A ConnectX-3 Ethernet port reports "IP-based GIDs" (mlx4_ib
 * eth_link_query_port sets ip_gids, which uverbs passes to user space as
 * port capability bit 26), so libmlx4 (rdma-core 44.0 mlx4_create_ah)
 * takes the MAC of every UD address handle on such a port from
 * ibv_resolve_eth_l2_from_gid(): libibverbs asks the kernel, over
 * NETLINK_ROUTE, for the route to the DGID from the interface that owns
 * the SGID, and for the neighbour's MAC.  The kernel knows neither the
 * device's interfaces nor its addresses, so the device answers that
 * question itself here, as the kernel would for interfaces whose every
 * neighbour is one of these adapters:
 *
 *   ::ffff:a.b.c.d unicast     the adapter at a.b.c.d: 02:c9:a:b:c:d (this
 *                              adapter's own address: its port MAC)
 *   ::ffff:a.b.c.d, a.b.c.d in 224/4, and ff0e::ffff:a.b.c.d
 *                              01:00:5e + the low 23 bits (RFC 1112)
 *   fe80::/64                  the MAC of the EUI-64 (RFC 4291 app. A)
 *   ff00::/8                   33:33 + the low 32 bits (RFC 2464)
 *
 * (the last three as libibverbs derives them without asking the kernel).
 * Any other DGID has no route: -EHOSTUNREACH.  The SGID index must name
 * a valid GID of the port (else -EINVAL).  No interface is a VLAN: *vid
 * is 0xffff.  Returns 0 or a negative errno value, as libibverbs does.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <string.h>

#include "base/config.h"
#include "wire/identity.h"

#define EXPORT __attribute__((visibility("default")))

static bool is_v4_mapped(const uint8_t g[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t mcast[12] = { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, mapped, 12) || !memcmp(g, mcast, 12);
}

/* The MAC of the adapter port that owns `addr` (host order), if it is
 * this adapter's. */
static bool own_port_mac(uint32_t addr, uint8_t mac[6])
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (emu_port_addr(p) == addr) {
			emu_port_mac(p, mac);
			return true;
		}
	return false;
}

static int resolve(const uint8_t g[16], uint8_t mac[6])
{
	static const uint8_t link_local[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };

	if (is_v4_mapped(g)) {
		uint32_t addr = (uint32_t)g[12] << 24 | (uint32_t)g[13] << 16 |
				(uint32_t)g[14] << 8 | g[15];

		if ((g[12] & 0xf0) == 0xe0) {
			mac[0] = 0x01;
			mac[1] = 0x00;
			mac[2] = 0x5e;
			mac[3] = g[13] & 0x7f;
			mac[4] = g[14];
			mac[5] = g[15];
		} else if (!own_port_mac(addr, mac)) {
			mac[0] = 0x02;
			mac[1] = 0xc9;
			memcpy(mac + 2, g + 12, 4);
		}
		return 0;
	}
	if (!memcmp(g, link_local, 8)) {
		memcpy(mac, g + 8, 3);
		memcpy(mac + 3, g + 13, 3);
		mac[0] ^= 2;
		return 0;
	}
	if (g[0] == 0xff) {
		mac[0] = mac[1] = 0x33;
		memcpy(mac + 2, g + 12, 4);
		return 0;
	}
	return -EHOSTUNREACH;
}

EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				       uint8_t eth_mac[6], uint16_t *vid)
{
	uint8_t sgid[16];
	bool roce_v2;
	int err;

	(void)context;
	if (!attr || attr->port_num < 1 || attr->port_num > emu_cfg.ports ||
	    emu_cfg.link_layer[attr->port_num - 1] != EMU_LL_ETH ||
	    !emu_port_gid_entry(attr->port_num, attr->grh.sgid_index, sgid, &roce_v2))
		return -EINVAL;
	err = resolve(attr->grh.dgid.raw, eth_mac);
	if (!err && vid)
		*vid = 0xffff;
	return err;
}
