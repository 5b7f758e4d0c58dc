/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The network interface of each Ethernet port (what mlx4_en would create):
 * a name, an index, the flags and pause settings an interface has, its
 * sysfs folder below the PCI function and the class/net link.  The link
 * state and MTU are the port's own (adapter/port.h).  Callers hold
 * the adapter lock (adapter/lock.h) for everything but the lookups.
 */
#ifndef MLX4EMU_NETIF_H
#define MLX4EMU_NETIF_H

#include <stdbool.h>
#include <stdint.h>

/* Interface indexes of ports 1 and 2: far above what a kernel hands out
 * on a normal host, so that they never name a real interface. */
#define EMU_NETIF_FIRST_INDEX 0x4d01

struct emu_netif_pause {
	bool autoneg, rx, tx;
};

/* Creates the interfaces of the Ethernet ports and their sysfs entries
 * (after the PCI function exists).  0 or -1. */
int emu_netif_create(void);

/* Whether port (1 or 2) is an Ethernet port, which has an interface. */
bool emu_netif_exists(unsigned port);
/* The port (1 or 2) of an interface name or index, or 0 when it is not
 * one of the device's (Ethernet ports only). */
unsigned emu_netif_port_by_name(const char *name);
unsigned emu_netif_port_by_index(int ifindex);
int emu_netif_index(unsigned port);
const char *emu_netif_name(unsigned port);

/* SIOCGIFFLAGS's view: the stored flags plus IFF_UP, IFF_RUNNING. */
unsigned emu_netif_flags(unsigned port);
/* SIOCSIFFLAGS: keeps what the kernel lets a user set and brings the port
 * up or down with IFF_UP. */
void emu_netif_set_flags(unsigned port, unsigned flags);
int emu_netif_set_mtu(unsigned port, uint32_t mtu);

void emu_netif_get_pause(unsigned port, struct emu_netif_pause *out);
/* EINVAL for autoneg, which mlx4_en refuses. */
int emu_netif_set_pause(unsigned port, const struct emu_netif_pause *in);

#endif
