// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The debug trace: one line per event on stderr, prefixed "mlx4emu:". */
#include <stdarg.h>
#include <stdio.h>

#include "base/trace.h"

void emu_trace(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mlx4emu: %s\n", line);
}
