// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Interfaces of the Ethernet ports.  sysfs folder, as the kernel lays out
 * a net device of a PCI function:
 *
 *   devices/pci<dom>:00/<addr>/net/<ifname>/  address dev_port dev_id mtu
 *                                             operstate carrier flags ...
 *   class/net/<ifname> -> that folder
 *
 * net_mlx4 finds the interface of port N as the entry of device/net whose
 * dev_port is N - 1 (dev_id on kernels before 3.15), then speaks to it with
 * interface ioctls (os/netif_ioctl.c).  Files that change with the state
 * are rewritten on every change.
 */
#include "os/netif.h"

#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "adapter/port.h"
#include "base/config.h"
#include "os/sysfs.h"
#include "os/sysfs_pci.h"
#include "wire/identity.h"

/* Flags a user may set on an interface (dev_change_flags' mask) and the
 * ones counted separately (promiscuity, all-multicast). */
#define USER_FLAGS (IFF_DEBUG | IFF_NOTRAILERS | IFF_NOARP | IFF_DYNAMIC | \
		    IFF_MULTICAST | IFF_PORTSEL | IFF_AUTOMEDIA | IFF_PROMISC | \
		    IFF_ALLMULTI)

struct netif {
	unsigned flags;		/* USER_FLAGS part */
	struct emu_netif_pause pause;
	char dir[192];		/* sysfs folder, relative to the root */
};

static struct netif netifs[2];

static bool is_eth(unsigned port)
{
	return port >= 1 && port <= emu_cfg.ports &&
	       emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
}

bool emu_netif_exists(unsigned port)
{
	return is_eth(port);
}

unsigned emu_netif_port_by_name(const char *name)
{
	for (unsigned p = 1; p <= 2; p++)
		if (is_eth(p) && !strncmp(name, emu_cfg.ifname[p - 1], IF_NAMESIZE))
			return p;
	return 0;
}

unsigned emu_netif_port_by_index(int ifindex)
{
	unsigned p = (unsigned)(ifindex - EMU_NETIF_FIRST_INDEX + 1);

	return ifindex >= EMU_NETIF_FIRST_INDEX && is_eth(p) ? p : 0;
}

int emu_netif_index(unsigned port)
{
	return EMU_NETIF_FIRST_INDEX + (int)port - 1;
}

const char *emu_netif_name(unsigned port)
{
	return emu_cfg.ifname[port - 1];
}

unsigned emu_netif_flags(unsigned port)
{
	unsigned f = netifs[port - 1].flags | IFF_BROADCAST;

	if (emu_port_admin_up(port))
		f |= IFF_UP;
	if (emu_port_link_up(port))
		f |= IFF_RUNNING;
	return f;
}

static int put(unsigned port, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int put(unsigned port, const char *name, const char *fmt, ...)
{
	char rel[256], text[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(rel, sizeof(rel), "%s/%s", netifs[port - 1].dir, name);
	return emu_sysfs_put(rel, text);
}

/* The files that follow the state; the infiniband port files too. */
static int refresh(unsigned port)
{
	bool up = emu_port_admin_up(port), link = emu_port_link_up(port);
	char rel[128];
	int err = 0;

	err |= put(port, "mtu", "%u", emu_port_mtu(port));
	err |= put(port, "flags", "0x%x", emu_netif_flags(port));
	err |= put(port, "operstate", "%s", link ? "up" : "down");
	err |= put(port, "carrier", "%d", link);
	err |= put(port, "speed", "%d", link ? (int)emu_cfg.link_speed : -1);
	err |= put(port, "duplex", "%s", link ? "full" : "unknown");
	snprintf(rel, sizeof(rel), "class/infiniband/" EMU_IBDEV_NAME "/ports/%u/state", port);
	err |= emu_sysfs_put(rel, link ? "4: ACTIVE" : "1: DOWN");
	snprintf(rel, sizeof(rel), "class/infiniband/" EMU_IBDEV_NAME "/ports/%u/phys_state", port);
	err |= emu_sysfs_put(rel, link ? "5: LinkUp" : up ? "2: Polling" : "3: Disabled");
	return err;
}

static void refresh_all(void)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (is_eth(p))
			refresh(p);
}

static int create_one(unsigned port)
{
	struct netif *n = &netifs[port - 1];
	uint8_t mac[6];
	const char *name = emu_netif_name(port);
	char pci[128], rel[256], target[256];
	int err = 0;

	emu_port_mac(port, mac);
	n->flags = IFF_MULTICAST;
	/* mlx4_en's default: pause frames on in both directions */
	n->pause = (struct emu_netif_pause){ .rx = true, .tx = true };
	snprintf(pci, sizeof(pci), EMU_SYSFS_PCI_DIR_FMT, emu_cfg.pci_addr,
		 emu_cfg.pci_addr);
	snprintf(n->dir, sizeof(n->dir), "%s/net/%s", pci, name);
	err |= put(port, "address", "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		   mac[2], mac[3], mac[4], mac[5]);
	err |= put(port, "broadcast", "ff:ff:ff:ff:ff:ff");
	err |= put(port, "addr_len", "6");
	err |= put(port, "addr_assign_type", "0");
	err |= put(port, "type", "1");	/* ARPHRD_ETHER */
	err |= put(port, "dev_port", "%u", port - 1);
	err |= put(port, "dev_id", "0x%x", port - 1);
	err |= put(port, "ifindex", "%d", emu_netif_index(port));
	err |= put(port, "iflink", "%d", emu_netif_index(port));
	err |= put(port, "tx_queue_len", "1000");
	err |= put(port, "uevent", "INTERFACE=%s\nIFINDEX=%d", name,
		   emu_netif_index(port));
	err |= refresh(port);
	snprintf(rel, sizeof(rel), "%s/device", n->dir);
	snprintf(target, sizeof(target), "../../../%s", emu_cfg.pci_addr);
	err |= emu_sysfs_link(rel, target);
	snprintf(rel, sizeof(rel), "class/net/%s", name);
	snprintf(target, sizeof(target), "../../%s", n->dir);
	err |= emu_sysfs_link(rel, target);
	return err;
}

int emu_netif_create(void)
{
	int err = 0;

	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (is_eth(p))
			err |= create_one(p);
	return err ? -1 : 0;
}

void emu_netif_set_flags(unsigned port, unsigned flags)
{
	netifs[port - 1].flags = flags & USER_FLAGS;
	if (!!(flags & IFF_UP) != emu_port_admin_up(port))
		emu_port_set_admin(port, flags & IFF_UP);
	/* a cabled peer's carrier follows this port */
	refresh_all();
}

int emu_netif_set_mtu(unsigned port, uint32_t mtu)
{
	int err = emu_port_set_mtu(port, mtu);

	if (!err)
		refresh(port);
	return err;
}

void emu_netif_get_pause(unsigned port, struct emu_netif_pause *out)
{
	*out = netifs[port - 1].pause;
}

int emu_netif_set_pause(unsigned port, const struct emu_netif_pause *in)
{
	if (in->autoneg)
		return EINVAL;
	netifs[port - 1].pause = *in;
	return 0;
}
