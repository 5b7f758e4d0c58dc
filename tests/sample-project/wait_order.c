/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * echo_wait_order: echo_wait() with the two kinds of completion in a CQ
 * in the order the other side's timing gives them. Two RC QPs of one
 * process, connected to each other (on the software ConnectX-3: one
 * adapter, no wire), set up the order deterministically:
 *
 *  1. B sends to A and waits for its send completion: A's receive
 *     completion is then in A's CQ. A sends to B and waits for one send
 *     completion alone, so it polls its receive completion first. The
 *     next wait of A for one receive must return that one (its length),
 *     not time out.
 *  2. The reverse: A sends to B, then B sends to A; A waits for one
 *     receive alone and polls its send completion first. The next wait
 *     of A for one send must return at once.
 *
 * This is the server's order when the acknowledgement of its reply is
 * late (delayed, reordered or lost on the wire) and the client's next
 * message arrives first. Exit 0 when both cases hold.
 */
#define _POSIX_C_SOURCE 200809L

#include "verbs_echo.h"

#include <stdio.h>
#include <string.h>

#define SIZE 4096
/* a wait that must return at once gets this long before the case fails */
#define WAIT_MS 5000

static void fill(struct echo_conn *c, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		c->buf[c->size + i] = (uint8_t)(seed + i * 13u);
}

static int check(const char *what, const struct echo_conn *c, uint32_t len,
		 uint32_t want_len, uint8_t seed)
{
	if (len != want_len) {
		fprintf(stderr, "echo_wait_order: %s: %u bytes received, not %u\n", what,
			len, want_len);
		return -1;
	}
	for (uint32_t i = 0; i < len; i++) {
		if (c->buf[i] != (uint8_t)(seed + i * 13u)) {
			fprintf(stderr, "echo_wait_order: %s: byte %u differs\n", what, i);
			return -1;
		}
	}
	return 0;
}

/* Case 1: A's receive completion comes before the send one it waits for. */
static int receive_first(struct echo_conn *a, struct echo_conn *b)
{
	uint32_t len = 0;

	fill(b, SIZE / 2, 0x51);
	if (echo_post_recv(a) || echo_post_recv(b) || echo_post_send(b, SIZE / 2) ||
	    echo_wait(b, 1, 0, NULL, WAIT_MS))
		return -1;
	fill(a, SIZE / 4, 0x27);
	if (echo_post_send(a, SIZE / 4) || echo_wait(a, 1, 0, NULL, WAIT_MS))
		return -1;
	if (echo_wait(b, 0, 1, &len, WAIT_MS) || check("B from A", b, len, SIZE / 4, 0x27))
		return -1;
	len = 0;
	if (echo_wait(a, 0, 1, &len, WAIT_MS)) {
		fprintf(stderr, "echo_wait_order: a receive completion polled while "
			"waiting for a send one was lost\n");
		return -1;
	}
	return check("A from B, polled early", a, len, SIZE / 2, 0x51);
}

/* Case 2: A's send completion comes before the receive one it waits for. */
static int send_first(struct echo_conn *a, struct echo_conn *b)
{
	uint32_t len = 0;

	fill(a, SIZE / 8, 0x93);
	if (echo_post_recv(a) || echo_post_recv(b) || echo_post_send(a, SIZE / 8) ||
	    echo_wait(b, 0, 1, &len, WAIT_MS) || check("B from A", b, len, SIZE / 8, 0x93))
		return -1;
	fill(b, SIZE, 0x0d);
	if (echo_post_send(b, SIZE) || echo_wait(b, 1, 0, NULL, WAIT_MS))
		return -1;
	len = 0;
	if (echo_wait(a, 0, 1, &len, WAIT_MS) || check("A from B", a, len, SIZE, 0x0d))
		return -1;
	if (echo_wait(a, 1, 0, NULL, WAIT_MS)) {
		fprintf(stderr, "echo_wait_order: a send completion polled while "
			"waiting for a receive one was lost\n");
		return -1;
	}
	return 0;
}

int main(void)
{
	struct echo_conn a, b;
	int rc = 1;

	if (echo_open(&a, SIZE))
		return 1;
	if (echo_open(&b, SIZE)) {
		echo_close(&a);
		return 1;
	}
	if (echo_connect(&a, &b.self) == 0 && echo_connect(&b, &a.self) == 0 &&
	    receive_first(&a, &b) == 0 && send_first(&a, &b) == 0) {
		printf("echo_wait_order: completions polled early are kept for the next wait\n");
		rc = 0;
	}
	echo_close(&b);
	echo_close(&a);
	return rc;
}
