// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Interface ioctls (linux/sockios.h) and ethtool commands for the device's
 * own interfaces, and if_nametoindex/if_indextoname, which the C library
 * answers with an ioctl of its own that a preload cannot see.
 */
#include "os/netif_ioctl.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "adapter/adapter.h"
#include "adapter/lock.h"
#include "adapter/port.h"
#include "base/libc.h"
#include "base/usermem.h"
#include "os/netif.h"
#include "wire/identity.h"

#define EXPORT __attribute__((visibility("default")))

static bool is_interface_request(unsigned long request)
{
	switch (request) {
	case SIOCGIFFLAGS:
	case SIOCSIFFLAGS:
	case SIOCGIFMTU:
	case SIOCSIFMTU:
	case SIOCGIFHWADDR:
	case SIOCGIFINDEX:
	case SIOCGIFNAME:
	case SIOCGIFTXQLEN:
	case SIOCETHTOOL:
		return true;
	default:
		return false;
	}
}

static bool is_socket(int fd)
{
	int type;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0;
}

static void ethtool_settings(unsigned port, struct ethtool_cmd *c)
{
	uint32_t speed = emu_port_link_up(port) ? emu_cfg.link_speed : (uint32_t)SPEED_UNKNOWN;

	memset(c, 0, sizeof(*c));
	c->cmd = ETHTOOL_GSET;
	c->supported = SUPPORTED_1000baseKX_Full | SUPPORTED_10000baseKR_Full |
		       SUPPORTED_40000baseCR4_Full | SUPPORTED_FIBRE |
		       SUPPORTED_Pause;
	c->advertising = c->supported & ~(uint32_t)SUPPORTED_FIBRE;
	ethtool_cmd_speed_set(c, speed);
	c->duplex = emu_port_link_up(port) ? DUPLEX_FULL : DUPLEX_UNKNOWN;
	c->port = PORT_DA;
	c->transceiver = XCVR_EXTERNAL;
	c->autoneg = AUTONEG_DISABLE;
}

static void ethtool_drvinfo(unsigned port, struct ethtool_drvinfo *d)
{
	memset(d, 0, sizeof(*d));
	d->cmd = ETHTOOL_GDRVINFO;
	snprintf(d->driver, sizeof(d->driver), emu_netif_is_ipoib(port) ? "ib_ipoib" : "mlx4_en");
	snprintf(d->version, sizeof(d->version), "4.0-0");
	snprintf(d->fw_version, sizeof(d->fw_version), "2.42.5000");
	snprintf(d->bus_info, sizeof(d->bus_info), "%s", emu_cfg.pci_addr);
}

/* One ethtool command at user address `data`; 0 or an errno value. */
static int ethtool(unsigned port, uint64_t data)
{
	union {
		uint32_t cmd;
		struct ethtool_cmd settings;
		struct ethtool_value value;
		struct ethtool_drvinfo drvinfo;
		struct ethtool_pauseparam pause;
	} u;
	struct emu_netif_pause pause;
	size_t len;

	if (emu_copy_in(&u.cmd, data, sizeof(u.cmd)))
		return EFAULT;
	if (emu_netif_is_ipoib(port) &&
	    (u.cmd == ETHTOOL_GPAUSEPARAM || u.cmd == ETHTOOL_SPAUSEPARAM))
		return EOPNOTSUPP;	/* an InfiniBand link has no pause frames */
	switch (u.cmd) {
	case ETHTOOL_GSET:
		ethtool_settings(port, &u.settings);
		len = sizeof(u.settings);
		break;
	case ETHTOOL_GLINK:
		u.value = (struct ethtool_value){ .cmd = ETHTOOL_GLINK,
						  .data = emu_port_link_up(port) };
		len = sizeof(u.value);
		break;
	case ETHTOOL_GDRVINFO:
		ethtool_drvinfo(port, &u.drvinfo);
		len = sizeof(u.drvinfo);
		break;
	case ETHTOOL_GPAUSEPARAM:
		emu_netif_get_pause(port, &pause);
		u.pause = (struct ethtool_pauseparam){ .cmd = ETHTOOL_GPAUSEPARAM,
						       .autoneg = pause.autoneg,
						       .rx_pause = pause.rx,
						       .tx_pause = pause.tx };
		len = sizeof(u.pause);
		break;
	case ETHTOOL_SPAUSEPARAM:
		if (emu_copy_in(&u.pause, data, sizeof(u.pause)))
			return EFAULT;
		pause = (struct emu_netif_pause){ .autoneg = u.pause.autoneg != 0,
						  .rx = u.pause.rx_pause != 0,
						  .tx = u.pause.tx_pause != 0 };
		return emu_netif_set_pause(port, &pause);
	default:
		return EOPNOTSUPP;
	}
	return emu_copy_out(data, &u, len);
}

/* The request on the copied ifreq of port; 0 or an errno value. */
static int interface_request(unsigned port, unsigned long request, struct ifreq *r,
			     bool *copy_back)
{
	*copy_back = true;
	switch (request) {
	case SIOCGIFFLAGS:
		r->ifr_flags = (short)emu_netif_flags(port);
		return 0;
	case SIOCSIFFLAGS:
		*copy_back = false;
		emu_netif_set_flags(port, (unsigned short)r->ifr_flags);
		return 0;
	case SIOCGIFMTU:
		r->ifr_mtu = (int)emu_netif_mtu(port);
		return 0;
	case SIOCSIFMTU:
		*copy_back = false;
		return r->ifr_mtu < 0 ? EINVAL : emu_netif_set_mtu(port, (uint32_t)r->ifr_mtu);
	case SIOCGIFHWADDR: {
		uint8_t addr[EMU_NETIF_HWADDR_MAX];
		unsigned len = emu_netif_hwaddr(port, addr);

		/* the kernel copies what sa_data holds of a longer address */
		memset(&r->ifr_hwaddr, 0, sizeof(r->ifr_hwaddr));
		r->ifr_hwaddr.sa_family = emu_netif_type(port);
		memcpy(r->ifr_hwaddr.sa_data, addr,
		       len < sizeof(r->ifr_hwaddr.sa_data) ? len : sizeof(r->ifr_hwaddr.sa_data));
		return 0;
	}
	case SIOCGIFINDEX:
		r->ifr_ifindex = emu_netif_index(port);
		return 0;
	case SIOCGIFNAME:
		snprintf(r->ifr_name, sizeof(r->ifr_name), "%s", emu_netif_name(port));
		return 0;
	case SIOCGIFTXQLEN:
		r->ifr_qlen = (int)emu_netif_txqlen(port);
		return 0;
	default:
		*copy_back = false;
		return ethtool(port, (uint64_t)(uintptr_t)r->ifr_data);
	}
}

bool emu_netif_ioctl(int fd, unsigned long request, void *arg, int *ret)
{
	uint64_t user = (uint64_t)(uintptr_t)arg;
	int saved_errno = errno;
	struct ifreq r;
	bool copy_back;
	unsigned port;
	int err;

	if (!is_interface_request(request))
		return false;
	if (!is_socket(fd)) {
		errno = saved_errno;
		return false;
	}
	if (emu_copy_in(&r, user, sizeof(r))) {
		/* the kernel reads the request first, whatever it names */
		errno = EFAULT;
		*ret = -1;
		return true;
	}
	r.ifr_name[IFNAMSIZ - 1] = '\0';
	port = request == SIOCGIFNAME ? emu_netif_port_by_index(r.ifr_ifindex) :
					emu_netif_port_by_name(r.ifr_name);
	errno = saved_errno;
	if (!port)
		return false;
	emu_adapter_lock();
	err = interface_request(port, request, &r, &copy_back);
	emu_adapter_unlock();
	if (!err && copy_back)
		err = emu_copy_out(user, &r, sizeof(r));
	*ret = err ? -1 : 0;
	if (err)
		errno = err;
	return true;
}

static unsigned (*real_if_nametoindex)(const char *);
static char *(*real_if_indextoname)(unsigned, char[IF_NAMESIZE]);

EXPORT unsigned if_nametoindex(const char *name)
{
	unsigned port = name ? emu_netif_port_by_name(name) : 0;

	if (port)
		return (unsigned)emu_netif_index(port);
	if (!real_if_nametoindex)
		*(void **)&real_if_nametoindex = emu_next_symbol("if_nametoindex");
	return real_if_nametoindex(name);
}

EXPORT char *if_indextoname(unsigned ifindex, char name[IF_NAMESIZE])
{
	unsigned port = ifindex <= INT32_MAX ? emu_netif_port_by_index((int)ifindex) : 0;

	if (port) {
		snprintf(name, IF_NAMESIZE, "%s", emu_netif_name(port));
		return name;
	}
	if (!real_if_indextoname)
		*(void **)&real_if_indextoname = emu_next_symbol("if_indextoname");
	return real_if_indextoname(ifindex, name);
}
