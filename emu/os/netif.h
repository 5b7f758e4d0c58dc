/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The network interface of each port: what mlx4_en creates for an
 * Ethernet port, and what ib_ipoib creates for an InfiniBand port (ib0
 * for the first InfiniBand port, ib1 for the second, in datagram mode):
 * a name, an index, a type and link-layer address, the flags (and, on
 * Ethernet, the pause settings) an interface has, its sysfs folder below
 * the PCI function and the class/net link.  An Ethernet interface's link
 * state and MTU are the port's own (adapter/port.h); an IPoIB interface
 * is up or down by itself, running while it is up and the port's link is
 * active, with an MTU of its own (2044 by default, as IPoIB's in a 2048-
 * byte broadcast group).  Callers hold the adapter lock (adapter/lock.h)
 * for everything but the lookups.
 */
#ifndef MLX4EMU_NETIF_H
#define MLX4EMU_NETIF_H

#include <stdbool.h>
#include <stdint.h>

/* Interface indexes of ports 1 and 2: far above what a kernel hands out
 * on a normal host, so that they never name a real interface. */
#define EMU_NETIF_FIRST_INDEX 0x4d01

/* An IPoIB interface's link-layer address: 4 bytes of flags and QPN,
 * then the port's GID 0 (RFC 4391, 9.1.1). */
#define EMU_NETIF_HWADDR_MAX 20
#define EMU_IPOIB_DEFAULT_MTU 2044
/* IPoIB in datagram mode: a 4096-byte IB MTU less the 4-byte header */
#define EMU_IPOIB_MAX_MTU 4092

struct emu_netif_pause {
	bool autoneg, rx, tx;
};

/* Creates the interfaces of the Ethernet ports and their sysfs entries
 * (after the PCI function exists).  0 or -1. */
int emu_netif_create(void);

/* Whether port (1 or 2) is one of the device's, which has an interface. */
bool emu_netif_exists(unsigned port);
/* Whether its interface is IPoIB's (an InfiniBand port). */
bool emu_netif_is_ipoib(unsigned port);
/* The port (1 or 2) of an interface name or index, or 0 when it is not
 * one of the device's. */
unsigned emu_netif_port_by_name(const char *name);
unsigned emu_netif_port_by_index(int ifindex);
int emu_netif_index(unsigned port);
const char *emu_netif_name(unsigned port);

/* ARPHRD_ETHER or ARPHRD_INFINIBAND. */
unsigned short emu_netif_type(unsigned port);
/* The link-layer address and the broadcast address into out (room for
 * EMU_NETIF_HWADDR_MAX bytes); return their length, 6 or 20. */
unsigned emu_netif_hwaddr(unsigned port, uint8_t *out);
unsigned emu_netif_broadcast(unsigned port, uint8_t *out);
/* The interface's MTU and the range SIOCSIFMTU takes. */
uint32_t emu_netif_mtu(unsigned port);
uint32_t emu_netif_min_mtu(unsigned port);
uint32_t emu_netif_max_mtu(unsigned port);
/* The transmit queue length (mlx4_en 1000, ib_ipoib twice its 128-entry
 * send queue). */
unsigned emu_netif_txqlen(unsigned port);

/* SIOCGIFFLAGS's view: the stored flags plus IFF_UP, IFF_RUNNING. */
unsigned emu_netif_flags(unsigned port);
/* SIOCSIFFLAGS: keeps what the kernel lets a user set and brings the port
 * up or down with IFF_UP. */
void emu_netif_set_flags(unsigned port, unsigned flags);
int emu_netif_set_mtu(unsigned port, uint32_t mtu);

void emu_netif_get_pause(unsigned port, struct emu_netif_pause *out);
/* EINVAL for autoneg, which mlx4_en refuses; EOPNOTSUPP on IPoIB. */
int emu_netif_set_pause(unsigned port, const struct emu_netif_pause *in);

#endif
