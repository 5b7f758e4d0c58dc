/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The rtnetlink messages that describe the interface of an Ethernet port
 * (os/netif.h) as the kernel would send them for an mlx4_en interface:
 * RTM_NEWLINK with its name, MAC, MTU, flags and operational state, and
 * RTM_NEWADDR with its IPv4 address (the port's address, prefix /16 as
 * getifaddrs() shows it, os/ifaddrs.c).  Each emu_rtnl_put_* appends one
 * message at out (NLMSG_ALIGNed), with the header fields given, and
 * returns its length, or 0 when cap bytes cannot hold it (nothing written).
 */
#ifndef MLX4EMU_RTNL_IFMSG_H
#define MLX4EMU_RTNL_IFMSG_H

#include <stddef.h>
#include <stdint.h>

struct emu_rtnl_hdr {
	uint32_t seq, pid;
	uint16_t flags;		/* NLM_F_MULTI in a dump, else 0 */
};

/* Upper bound of one message's length, for sizing buffers. */
#define EMU_RTNL_IFMSG_MAX 256

size_t emu_rtnl_put_link(uint8_t *out, size_t cap, unsigned port, const struct emu_rtnl_hdr *h);
/* 0 as well when the port has no address. */
size_t emu_rtnl_put_addr(uint8_t *out, size_t cap, unsigned port, const struct emu_rtnl_hdr *h);
/* NLMSG_DONE with error 0, or NLMSG_ERROR with error 0 (an ACK, the
 * request's header copied after it as the kernel does without
 * NETLINK_CAP_ACK). */
size_t emu_rtnl_put_done(uint8_t *out, size_t cap, const struct emu_rtnl_hdr *h);
size_t emu_rtnl_put_ack(uint8_t *out, size_t cap, const struct emu_rtnl_hdr *h, uint16_t type);

#endif
