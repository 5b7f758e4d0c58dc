// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Checks and the lock-step exchange of the pair programs (pair_check.h). */
#define _GNU_SOURCE
#include "pair_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer_io.h"

/* ctest's TIMEOUT ends a hung pair first; a pair started by hand does not
 * wait forever. */
#define PAIR_WAIT_MS 600000

int pair_failures;

void pair_check_failed(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	pair_failures++;
	fprintf(stderr, "FAILED %s:%d: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pair_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void pair_send(int fd, const void *p, size_t n)
{
	if (peer_write(program_invocation_short_name, fd, p, n))
		exit(2);
}

void pair_recv(int fd, void *p, size_t n)
{
	if (peer_read_within(program_invocation_short_name, fd, p, n, PAIR_WAIT_MS))
		exit(2);
}

void pair_sync_byte(int fd, char c)
{
	char got = 0;

	pair_send(fd, &c, 1);
	pair_recv(fd, &got, 1);
	if (got != c)
		pair_die("exchange out of step ('%c' for '%c')", got, c);
}
