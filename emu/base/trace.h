/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The debug trace: one line per event on stderr, prefixed "mlx4emu:". */
#ifndef MLX4EMU_TRACE_H
#define MLX4EMU_TRACE_H

#include "base/config.h"

void emu_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define EMU_TRACE(...) do { if (emu_cfg.debug) emu_trace(__VA_ARGS__); } while (0)

#endif
