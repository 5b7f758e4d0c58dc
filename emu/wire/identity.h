/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The adapter's identity on the wire.  Every port owns one IPv4 address,
 * claimed by binding a UDP socket to ADDR:4791 (the RoCEv2 port); every
 * other identifier derives from it, so that two adapters never share one:
 *
 *   node GUID          0002:c900:AABB:CCDD  (AABBCCDD = port 1 address)
 *   port P GUID        0002:c90P:<port P address>
 *   system image GUID  0002:c903:<port 1 address>
 *   LID (IB port)      the low 16 bits of the port address
 *   MAC (Ethernet)     02:c9:<port address>, unless MLX4EMU_MAC sets one
 *   GID 0              fe80::<port GUID> (IB) or fe80::<EUI-64 of the MAC>
 *   GID 1 (Ethernet)   ::ffff:<port address>, type RoCE v2
 *
 * Addresses are IPv4 in host byte order throughout.
 */
#ifndef MLX4EMU_WIRE_IDENTITY_H
#define MLX4EMU_WIRE_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_ROCE_UDP_PORT 4791

/* First and last LID the automatic loopback addresses 127.0.H.L use. */
#define EMU_AUTO_LID_FIRST 0x0002u
#define EMU_AUTO_LID_LAST 0xbfffu

/*
 * Claims one address per configured port: MLX4EMU_ADDR's, or the first
 * free 127.0.H.L (H.L = a LID in [EMU_AUTO_LID_FIRST, EMU_AUTO_LID_LAST])
 * at or after a start derived from the process ID, found by bind()
 * (EADDRINUSE: another adapter has it).  Returns 0, or -1 with a message
 * on stderr.  Called once, from the library constructor.
 */
int emu_identity_claim(void);
/* Closes the sockets (destructor). */
void emu_identity_release(void);

/* Options of emu_wire_udp_bind(). */
enum {
	/* the kernel counts the datagrams a full receive buffer dropped
	 * (SO_RXQ_OVFL control data on every message read) */
	EMU_UDP_COUNT_DROPS = 1u << 0,
	/* the kernel may hand over a run of one peer's datagrams as one
	 * (UDP_GRO control data gives the segment size) */
	EMU_UDP_GRO = 1u << 1,
};

/*
 * A non-blocking UDP socket bound to addr:udp_port (both host order) with
 * 4 MiB buffers and the EMU_UDP_* options in `opts`.  -1 with errno on
 * failure.
 */
int emu_wire_udp_bind(uint32_t addr, uint16_t udp_port, unsigned opts);

struct cmsghdr;
/*
 * For a socket bound with EMU_UDP_COUNT_DROPS: when c is the SO_RXQ_OVFL
 * control message of a datagram read, what the socket's drop count grew
 * by since *seen (the count last read, updated; the kernel's counter is
 * 32 bits and wraps), else 0.
 */
uint32_t emu_wire_udp_drops_grown(const struct cmsghdr *c, uint32_t *seen);

/* The port's address and its bound, non-blocking UDP socket (-1: none). */
uint32_t emu_port_addr(unsigned port);
int emu_port_socket(unsigned port);

/* LID of an InfiniBand port (0 on Ethernet). */
uint16_t emu_port_lid(unsigned port);
void emu_port_mac(unsigned port, uint8_t mac[6]);
uint64_t emu_node_guid(void);
uint64_t emu_sys_image_guid(void);

/* GID `index` of the port (zeros beyond the valid entries); true if valid.
 * *roce_v2 tells the GID type (sysfs "RoCE v2" vs "IB/RoCE v1"). */
bool emu_port_gid_entry(unsigned port, unsigned index, uint8_t gid[16],
			bool *roce_v2);

/* The adapter's own address? (any of its ports) */
bool emu_addr_is_self(uint32_t addr);

/*
 * Address of the adapter a LID names, seen from `port`: the MLX4EMU_LID_MAP
 * entry for it, else the port's own /16 with the LID as its low 16 bits.
 * false for LID 0 and multicast LIDs (>= 0xc000).
 */
bool emu_lid_to_addr(unsigned port, uint16_t lid, uint32_t *addr);
/*
 * Address of the adapter a GID names: ::ffff:a.b.c.d, a link-local GID
 * whose EUI-64 is a MAC 02:c9:<address>, or an IB GID fe80::0002:c90P:
 * <address> (a port GUID).  false for any other GID.
 */
bool emu_gid_to_addr(const uint8_t gid[16], uint32_t *addr);

#endif
