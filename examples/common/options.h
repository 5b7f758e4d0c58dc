/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Command-line options shared by the example programs, with the letters of
 * rdma-core's ibv_*_pingpong programs: -d device, -i port, -s size,
 * -n iterations, -g GID index, -p TCP port and a HOST argument for two
 * processes, plus per-program extras.
 */
#ifndef MLX4DV_EXAMPLE_OPTIONS_H
#define MLX4DV_EXAMPLE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Extra options a program accepts (struct ex_program.extras). */
enum ex_option_extras {
	EX_OPT_EVENTS		= 1 << 0,	/* -e, --events */
	EX_OPT_BATCH		= 1 << 1,	/* -b, --batch N */
	EX_OPT_INLINE		= 1 << 2,	/* -I, --inline */
	EX_OPT_BLUEFLAME	= 1 << 3,	/* --bf */
	EX_OPT_SIGNAL_EVERY	= 1 << 4,	/* --signal-every N */
	EX_OPT_VERBS		= 1 << 5,	/* --verbs */
	EX_OPT_RX_DEPTH		= 1 << 6,	/* -r, --rx-depth N */
	EX_OPT_VLAN		= 1 << 7,	/* --vlan ID */
	EX_OPT_MASKED		= 1 << 8,	/* --masked */
	EX_OPT_PEER		= 1 << 9,	/* -p PORT, [HOST]: two processes */
	EX_OPT_TEMPLATE		= 1 << 10,	/* --template */
};

/* What a program is and which options it takes. */
struct ex_program {
	const char	*name;
	const char	*summary;	/* one line for --help */
	unsigned	extras;		/* enum ex_option_extras */
	size_t		default_size;	/* bytes */
	size_t		min_size;
	size_t		max_size;
	unsigned	default_iters;
	unsigned	default_rx_depth;
	unsigned	default_batch;
};

/* Parsed options; every field holds its default when not given. */
struct ex_options {
	const char	*ib_devname;	/* NULL: the first mlx4 device */
	uint8_t		ib_port;	/* 1-based */
	int		gid_index;	/* -1: GRH only where the link needs it */
	size_t		size;		/* message size in bytes */
	unsigned	iters;
	bool		events;
	unsigned	batch;
	bool		use_inline;
	bool		blueflame;
	bool		template_batch;
	unsigned	signal_every;	/* 0: the program's default */
	bool		verbs;
	unsigned	rx_depth;
	int		vlan;		/* -1: no VLAN tag */
	bool		masked;
	/* two processes (EX_OPT_PEER): -p PORT alone makes the server, a
	 * HOST argument the client (port 18515 unless -p gives one);
	 * neither: both endpoints in this process */
	bool		two_process;
	const char	*host;		/* NULL: server (or one process) */
	uint16_t	tcp_port;
};

/* Outcome of ex_parse_options(). */
enum ex_parse_result {
	EX_PARSE_RUN,		/* options are valid, run the program */
	EX_PARSE_HELP,		/* --help was printed, exit 0 */
	EX_PARSE_ERROR,		/* a message was printed, exit 2 */
};

enum ex_parse_result ex_parse_options(const struct ex_program *prog, int argc,
				      char **argv, struct ex_options *opts);

/* What ex_parse_main() returns when the program is to run. */
#define EX_MAIN_RUN (-1)

/* ex_parse_options() as main() uses it: EX_MAIN_RUN, or the status main()
 * returns (0 after --help, 2 after a usage message). */
int ex_parse_main(const struct ex_program *prog, int argc, char **argv,
		  struct ex_options *opts);

/* Prints the usage text of prog to stdout. */
void ex_print_usage(const struct ex_program *prog);

#endif /* MLX4DV_EXAMPLE_OPTIONS_H */
