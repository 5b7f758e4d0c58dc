// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The receive buffer of a port's socket, and what one datagram costs in
 * it.  Linux charges a received datagram the true size of its buffer:
 * the data area (payload, IPv4/UDP and link headers, headroom and the
 * shared info block, 320 bytes on x86-64), allocated in a power of two,
 * plus the struct sk_buff; on loopback a 4148-byte RoCE packet costs
 * 8456 bytes, a 1104-byte one 2304 (measured with an unread socket: the
 * number of datagrams it holds before the next is dropped and counted in
 * RcvbufErrors of /proc/net/snmp).  The bound below is those sizes with
 * room to spare.
 */
#include "wire/rcvbuf.h"

#include <sys/socket.h>

#include "wire/identity.h"

/* headers, headroom and shared info, rounded up */
#define SKB_DATA_OVERHEAD 512
/* struct sk_buff and slab rounding, rounded up */
#define SKB_STRUCT 512

uint64_t emu_port_rcvbuf(unsigned port)
{
	int fd = emu_port_socket(port), buf = 0;
	socklen_t len = sizeof(buf);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, &len) || buf < 0)
		return 0;
	return (uint64_t)buf;
}

uint32_t emu_link_truesize(size_t len)
{
	uint32_t data = 1024;

	while (data < len + SKB_DATA_OVERHEAD)
		data <<= 1;
	return data + SKB_STRUCT;
}
