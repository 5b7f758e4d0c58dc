/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Engine control of the software ConnectX-3 through its control API
 * (emu/mlx4emu_ctl.h). The functions live in the preload library that
 * mlx4emu-run injects and are looked up at run time, so the program also
 * starts outside the software device and says why it cannot measure.
 */
#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"

#include "bench_cases.h"
#include "bench_device.h"

#include <stdio.h>
#include <string.h>

/* Generous: under valgrind the engine runs some fifty times slower. */
#define WAIT_IDLE_MS 120000u

static struct mlx4emu_ctl ctl;

int bench_device_open(void)
{
	if (mlx4emu_ctl_load(&ctl)) {
		fprintf(stderr, "mlx4dv_bench: the software ConnectX-3 is not loaded: "
				"run the program under mlx4emu-run\n");
		return -1;
	}
	return 0;
}

void bench_device_pause(void)
{
	ctl.pause();
}

void bench_device_resume(void)
{
	ctl.resume();
}

void bench_device_wait_idle(void)
{
	int err = ctl.wait_idle(WAIT_IDLE_MS);

	if (err)
		bench_fail("the software device did not go idle: %s", strerror(err));
}

void bench_device_run_paused(void)
{
	bench_device_resume();
	bench_device_wait_idle();
	bench_device_pause();
}

static struct mlx4emu_counters counters(void)
{
	struct mlx4emu_counters c;

	memset(&c, 0, sizeof(c));
	ctl.get_counters(&c);
	return c;
}

uint64_t bench_device_blueflame_wqes(void)
{
	return counters().bf_posts;
}

uint64_t bench_device_wqes(void)
{
	return counters().wqes_executed;
}
