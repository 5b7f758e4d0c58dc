/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Two processes, with the conventions of rdma-core's ibv_*_pingpong: the
 * server (no host given) listens on a TCP port and takes one client; the
 * client connects to HOST:port.  Over that connection each side sends the
 * descriptions of its endpoints (struct ex_endpoint_info, in its wire
 * format), the client first, and reads the peer's; the same connection
 * then serves as a barrier (ex_exchange_sync) so that neither side tears
 * its QPs down while the other still uses them.
 */
#ifndef MLX4DV_EXAMPLE_EXCHANGE_H
#define MLX4DV_EXAMPLE_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"
#include "endpoint_info.h"
#include "options.h"

/* TCP port of ibv_*_pingpong when -p is not given. */
#define EX_DEFAULT_TCP_PORT 18515
/* How long the server waits for its client, the client for the server to
 * listen, and either side for the peer's bytes (ms). */
#define EX_EXCHANGE_TIMEOUT_MS 60000
/* How long a client retries refused connections before it says on stderr
 * what it waits for (ms). */
#define EX_CONNECT_NOTICE_MS 1000
/* Endpoints one ex_exchange_connect() call connects. */
#define EX_EXCHANGE_MAX_ENDPOINTS 16

struct ex_exchange {
	int	fd;		/* the connection, -1 when closed */
	bool	server;
};

/*
 * host NULL: listen on `port` (every address, IPv4 and IPv6) and accept one
 * client; otherwise connect to host:port, retrying while nobody listens
 * (after EX_CONNECT_NOTICE_MS it says so once on stderr, with host, port
 * and how long it keeps trying).  Prints what failed and returns -1 on
 * error or timeout.
 */
int ex_exchange_open(struct ex_exchange *x, const char *host, uint16_t port);

/*
 * Sends the n local descriptions and receives the peer's n (the client
 * writes first).  -1 with a message on a short read, a closed peer, a
 * timeout, or a description that does not unpack.
 */
int ex_exchange_info(struct ex_exchange *x, const struct ex_endpoint_info *local,
		     struct ex_endpoint_info *remote, size_t n);

/* Writes one byte and waits for the peer's: both sides have reached the
 * point `name` says.  0, or -1 with a message that quotes the name. */
int ex_exchange_sync(struct ex_exchange *x, const char *name);

void ex_exchange_close(struct ex_exchange *x);

/*
 * The two-process start of a program: opens the exchange as opts says
 * (server without a host, client with one), swaps the descriptions of the
 * n endpoints, prints both sides' addresses as ibv_rc_pingpong does,
 * connects each endpoint to its peer (ex_endpoint_connect) and waits
 * until the peer has connected too: a request sent to a QP not yet in RTR
 * would be dropped.  Receives should be posted before.  -1 with a
 * message on any failure (the exchange is then closed).
 */
int ex_exchange_connect(struct ex_exchange *x, const struct ex_options *opts,
			struct ex_endpoint *const *eps, size_t n);

#endif /* MLX4DV_EXAMPLE_EXCHANGE_H */
