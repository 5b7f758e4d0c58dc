/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One entry of a sendmmsg/recvmmsg batch of UDP datagrams over IPv4: a
 * single buffer and the peer's address (the destination of a send, where
 * a receive writes the source).
 */
#ifndef MLX4EMU_WIRE_MMSG_H
#define MLX4EMU_WIRE_MMSG_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

static inline void emu_mmsg_entry(struct mmsghdr *m, struct iovec *v, void *buf, size_t len,
				  struct sockaddr_in *peer)
{
	*v = (struct iovec){ buf, len };
	*m = (struct mmsghdr){ .msg_hdr = {
		.msg_name = peer,
		.msg_namelen = sizeof(*peer),
		.msg_iov = v,
		.msg_iovlen = 1,
	} };
}

#endif
