/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The physical state of the adapter's ports, as the Ethernet interface of
 * the port controls it: administratively up or down, the MTU, and the
 * link, which is up while the port is up and, when the two ports are
 * cabled to each other, the other end is up too.  Callers hold
 * emu_dev.lock.
 */
#ifndef MLX4EMU_PORT_H
#define MLX4EMU_PORT_H

#include <stdbool.h>
#include <stdint.h>

/* The interface MTU after reset, as mlx4_en starts (bytes of L3 payload). */
#define EMU_PORT_DEFAULT_MTU 1500
/* mlx4_en's range for the MTU: ETH_MIN_MTU and its max_mtu on ConnectX-3. */
#define EMU_PORT_MIN_MTU 68
#define EMU_PORT_MAX_MTU 9978

/* Every port up with the default MTU. */
void emu_ports_init(void);

/*
 * Brings port (1-based) up or down.  Every port whose link changes raises
 * IBV_EVENT_PORT_ACTIVE or IBV_EVENT_PORT_ERR on the async fd of every
 * context.
 */
void emu_port_set_admin(unsigned port, bool up);
bool emu_port_admin_up(unsigned port);
/* The link (IBV_PORT_ACTIVE when true, IBV_PORT_DOWN when not). */
bool emu_port_link_up(unsigned port);

/* mtu in [EMU_PORT_MIN_MTU, EMU_PORT_MAX_MTU], else EINVAL. */
int emu_port_set_mtu(unsigned port, uint32_t mtu);
uint32_t emu_port_mtu(unsigned port);

/* The port a frame sent on port ends up at: itself, or the cabled peer. */
unsigned emu_port_peer(unsigned port);

/* Counts a received frame the port dropped for exceeding its MTU. */
void emu_port_count_oversize(unsigned port);
uint64_t emu_port_oversize_drops(unsigned port);
/* Counts a frame sent on port that was lost to a link down (its own or
 * the receiving end's). */
void emu_port_count_link_down(unsigned port);
uint64_t emu_port_link_down_drops(unsigned port);
/* Counts a frame a raw QP or WQ of the port had no receive WQE for. */
void emu_port_count_no_wqe(unsigned port);
uint64_t emu_port_no_wqe_drops(unsigned port);
/* Counts a UD datagram a QP of the port had no receive WQE for. */
void emu_port_count_ud_no_wqe(unsigned port);
uint64_t emu_port_ud_no_wqe_drops(unsigned port);

#endif
