/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The program's NETLINK_ROUTE sockets, answered as on a host whose kernel
 * has the Ethernet ports' interfaces: a request for the links or the
 * addresses goes to the kernel as the program wrote it, and the answer the
 * program receives has the ports' interfaces added (a dump) or put in
 * place of the kernel's "no such device" (a request naming one of them).
 * The sockets stay the kernel's: bind, getsockname, poll and everything
 * else about them is the kernel's own.  Sent with sendmsg, sendto or send
 * and received with recvmsg, recvfrom or recv (iproute2, libnl, libmnl);
 * read() and write() on them are passed through unchanged.
 */
#ifndef MLX4EMU_RTNL_H
#define MLX4EMU_RTNL_H

/* A NETLINK_ROUTE socket the program opened, and its close. */
void emu_rtnl_opened(int fd);
void emu_rtnl_closed(int fd);

#endif
