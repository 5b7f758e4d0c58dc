/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the two-process pair programs (rc_pair, uc_pair) share: the count
 * of failed checks with CHECK and DIE, the address each side hands its
 * peer, and the lock-step exchange over the TCP connection (peer_io.h).
 * A program's exit status is 0 when no check failed, 1 when one did, and
 * 2 when the set-up failed (DIE, a lost or silent peer).
 */
#ifndef MLX4DV_TEST_WIRE_PAIR_CHECK_H
#define MLX4DV_TEST_WIRE_PAIR_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Checks that failed so far in this process. */
extern int pair_failures;

void pair_check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prints "<program>: <message>" and exits with status 2. */
void pair_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A failed check is counted and printed; the program goes on. */
#define CHECK(cond, ...) do { \
	if (!(cond)) \
		pair_check_failed(__FILE__, __LINE__, #cond, __VA_ARGS__); \
} while (0)

/* A failure of the set-up, not of a check. */
#define DIE(...) pair_die(__VA_ARGS__)

/* One side's address, as the exchange carries it (host order: both
 * processes are on one machine). */
struct pair_dest {
	uint32_t lid, qpn, psn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

/* n bytes to or from the peer; a lost peer, or one silent for longer than
 * any scenario runs between two steps, ends the program (status 2). */
void pair_send(int fd, const void *p, size_t n);
void pair_recv(int fd, void *p, size_t n);
/* Sends c and waits for the peer's byte, which must be c too: both sides
 * have reached the same step. */
void pair_sync_byte(int fd, char c);

#endif
