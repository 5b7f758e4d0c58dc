// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Interfaces of the ports (os/netif.h).  sysfs folder, as the kernel lays
 * out a net device of a PCI function:
 *
 *   devices/pci<dom>:00/<addr>/net/<ifname>/  address dev_port dev_id mtu
 *                                             operstate carrier flags ...
 *   class/net/<ifname> -> that folder
 *
 * net_mlx4 finds the interface of port N as the entry of device/net whose
 * dev_port is N - 1 (dev_id on kernels before 3.15), then speaks to it with
 * interface ioctls (os/netif_ioctl.c).  An IPoIB interface has the same
 * files, with type 32 (ARPHRD_INFINIBAND), addr_len 20, and mode and
 * pkey as ib_ipoib writes them.  Files that change with the state are
 * rewritten on every change.
 */
#include "os/netif.h"

#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
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
	char ipoib_name[IF_NAMESIZE];	/* "ib0", "ib1" */
	bool ipoib_up;		/* IPoIB: IFF_UP, apart from the port's state */
	uint32_t ipoib_mtu;
};

static struct netif netifs[2];

static bool is_eth(unsigned port)
{
	return port >= 1 && port <= emu_cfg.ports &&
	       emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
}

bool emu_netif_exists(unsigned port)
{
	return port >= 1 && port <= emu_cfg.ports;
}

bool emu_netif_is_ipoib(unsigned port)
{
	return emu_netif_exists(port) && !is_eth(port);
}

unsigned emu_netif_port_by_name(const char *name)
{
	for (unsigned p = 1; p <= 2; p++)
		if (emu_netif_exists(p) && !strncmp(name, emu_netif_name(p), IF_NAMESIZE))
			return p;
	return 0;
}

unsigned emu_netif_port_by_index(int ifindex)
{
	unsigned p = (unsigned)(ifindex - EMU_NETIF_FIRST_INDEX + 1);

	return ifindex >= EMU_NETIF_FIRST_INDEX && emu_netif_exists(p) ? p : 0;
}

int emu_netif_index(unsigned port)
{
	return EMU_NETIF_FIRST_INDEX + (int)port - 1;
}

/* ib0 for the first InfiniBand port, ib1 for the second (ib_ipoib
 * names them in the order it finds them). */
static const char *ipoib_name(unsigned port)
{
	struct netif *n = &netifs[port - 1];

	if (!n->ipoib_name[0])
		snprintf(n->ipoib_name, sizeof(n->ipoib_name), "ib%u",
			 port == 2 && !is_eth(1) ? 1u : 0u);
	return n->ipoib_name;
}

const char *emu_netif_name(unsigned port)
{
	if (port < 1 || port > 2)
		return "";
	return is_eth(port) ? emu_cfg.ifname[port - 1] : ipoib_name(port);
}

unsigned emu_netif_flags(unsigned port)
{
	const struct netif *n = &netifs[port - 1];
	unsigned f = n->flags | IFF_BROADCAST;
	bool up = is_eth(port) ? emu_port_admin_up(port) : n->ipoib_up;

	if (up)
		f |= IFF_UP;
	if (up && emu_port_link_up(port))
		f |= IFF_RUNNING;
	return f;
}

unsigned short emu_netif_type(unsigned port)
{
	return is_eth(port) ? ARPHRD_ETHER : ARPHRD_INFINIBAND;
}

/* IPoIB's address: the "connected mode" flag and the QPN of its UD QP
 * (0x000048, the first a ConnectX-3 hands out, as ib0 shows it there: no
 * QP of this device stands behind it), then GID 0. */
unsigned emu_netif_hwaddr(unsigned port, uint8_t *out)
{
	bool v2;

	if (is_eth(port)) {
		emu_port_mac(port, out);
		return 6;
	}
	out[0] = 0x80;
	out[1] = 0x00;
	out[2] = 0x00;
	out[3] = 0x48;
	emu_port_gid_entry(port, 0, out + 4, &v2);
	return EMU_NETIF_HWADDR_MAX;
}

/* IPoIB's broadcast: QPN 0xffffff and the all-IPoIB-nodes group of
 * P_Key 0xffff, ff12:401b:ffff::ffff:ffff (RFC 4391, 4). */
unsigned emu_netif_broadcast(unsigned port, uint8_t *out)
{
	static const uint8_t ipoib[EMU_NETIF_HWADDR_MAX] = {
		0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
	};

	if (is_eth(port)) {
		memset(out, 0xff, 6);
		return 6;
	}
	memcpy(out, ipoib, sizeof(ipoib));
	return EMU_NETIF_HWADDR_MAX;
}

uint32_t emu_netif_mtu(unsigned port)
{
	return is_eth(port) ? emu_port_mtu(port) : netifs[port - 1].ipoib_mtu;
}

uint32_t emu_netif_min_mtu(unsigned port)
{
	(void)port;
	return EMU_PORT_MIN_MTU;
}

uint32_t emu_netif_max_mtu(unsigned port)
{
	return is_eth(port) ? EMU_PORT_MAX_MTU : EMU_IPOIB_MAX_MTU;
}

unsigned emu_netif_txqlen(unsigned port)
{
	return is_eth(port) ? 1000 : 256;
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

	err |= put(port, "mtu", "%u", emu_netif_mtu(port));
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
		refresh(p);
}

/* The address files: 6 or 20 bytes as the kernel prints them. */
static int put_hwaddr(unsigned port, const char *file, const uint8_t *a, unsigned len)
{
	char text[3 * EMU_NETIF_HWADDR_MAX];

	for (unsigned i = 0; i < len; i++)
		snprintf(text + 3 * i, 4, "%02x%s", a[i], i + 1 < len ? ":" : "");
	return put(port, file, "%s", text);
}

static int create_one(unsigned port)
{
	struct netif *n = &netifs[port - 1];
	uint8_t addr[EMU_NETIF_HWADDR_MAX];
	const char *name = emu_netif_name(port);
	char pci[128], rel[256], target[256];
	unsigned len;
	int err = 0;

	n->flags = IFF_MULTICAST;
	/* mlx4_en's default: pause frames on in both directions (IPoIB has
	 * none) */
	if (is_eth(port))
		n->pause = (struct emu_netif_pause){ .rx = true, .tx = true };
	n->ipoib_up = true;
	n->ipoib_mtu = EMU_IPOIB_DEFAULT_MTU;
	snprintf(pci, sizeof(pci), EMU_SYSFS_PCI_DIR_FMT, emu_cfg.pci_addr,
		 emu_cfg.pci_addr);
	snprintf(n->dir, sizeof(n->dir), "%s/net/%s", pci, name);
	len = emu_netif_hwaddr(port, addr);
	err |= put_hwaddr(port, "address", addr, len);
	emu_netif_broadcast(port, addr);
	err |= put_hwaddr(port, "broadcast", addr, len);
	err |= put(port, "addr_len", "%u", len);
	err |= put(port, "addr_assign_type", "0");
	err |= put(port, "type", "%u", emu_netif_type(port));
	if (emu_netif_is_ipoib(port)) {
		err |= put(port, "mode", "datagram");
		err |= put(port, "pkey", "0xffff");
	}
	err |= put(port, "dev_port", "%u", port - 1);
	err |= put(port, "dev_id", "0x%x", port - 1);
	err |= put(port, "ifindex", "%d", emu_netif_index(port));
	err |= put(port, "iflink", "%d", emu_netif_index(port));
	err |= put(port, "tx_queue_len", "%u", emu_netif_txqlen(port));
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
		err |= create_one(p);
	return err ? -1 : 0;
}

void emu_netif_set_flags(unsigned port, unsigned flags)
{
	netifs[port - 1].flags = flags & USER_FLAGS;
	if (!is_eth(port)) {
		/* ib0 down leaves the InfiniBand port as it is */
		netifs[port - 1].ipoib_up = flags & IFF_UP;
	} else if (!!(flags & IFF_UP) != emu_port_admin_up(port)) {
		emu_port_set_admin(port, flags & IFF_UP);
	}
	/* a cabled peer's carrier follows this port */
	refresh_all();
}

int emu_netif_set_mtu(unsigned port, uint32_t mtu)
{
	int err;

	if (!is_eth(port)) {
		if (mtu < EMU_PORT_MIN_MTU || mtu > EMU_IPOIB_MAX_MTU)
			return EINVAL;
		netifs[port - 1].ipoib_mtu = mtu;
		refresh(port);
		return 0;
	}
	err = emu_port_set_mtu(port, mtu);

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
	if (!is_eth(port))
		return EOPNOTSUPP;
	if (in->autoneg)
		return EINVAL;
	netifs[port - 1].pause = *in;
	return 0;
}
