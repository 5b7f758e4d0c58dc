// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "options.h"

#include "exchange.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	LONG_BLUEFLAME = 0x100,
	LONG_SIGNAL_EVERY,
	LONG_VERBS,
	LONG_VLAN,
	LONG_MASKED,
	LONG_TEMPLATE,
};

static bool parse_ulong(const char *arg, unsigned long min, unsigned long max,
			unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!arg || !*arg || *arg == '-')
		return false;
	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int ex_parse_main(const struct ex_program *prog, int argc, char **argv,
		  struct ex_options *opts)
{
	switch (ex_parse_options(prog, argc, argv, opts)) {
	case EX_PARSE_HELP:
		return 0;
	case EX_PARSE_ERROR:
		return 2;
	case EX_PARSE_RUN:
		break;
	}
	return EX_MAIN_RUN;
}

void ex_print_usage(const struct ex_program *prog)
{
	unsigned x = prog->extras;

	if (x & EX_OPT_PEER)
		printf("Usage: %s [options]            both endpoints in this process\n"
		       "       %s [options] -p PORT    server: waits for a client on TCP PORT\n"
		       "       %s [options] HOST       client of the server on HOST\n%s\n\nOptions:\n",
		       prog->name, prog->name, prog->name, prog->summary);
	else
		printf("Usage: %s [options]\n%s\n\nOptions:\n", prog->name, prog->summary);
	printf("  -d, --ib-dev=DEV       use device DEV (default: the first mlx4 device)\n");
	printf("  -i, --ib-port=PORT     use port PORT of the device (default 1)\n");
	printf("  -s, --size=SIZE        message size in bytes (default %zu, %zu..%zu)\n",
	       prog->default_size, prog->min_size, prog->max_size);
	printf("  -n, --iters=ITERS      iterations (default %u)\n", prog->default_iters);
	printf("  -g, --gid-idx=INDEX    source GID index; adds a GRH (default: only on Ethernet, index 0)\n");
	if (x & EX_OPT_PEER)
		printf("  -p, --port=PORT        TCP port of the two-process exchange (default %u)\n",
		       EX_DEFAULT_TCP_PORT);
	if (x & EX_OPT_RX_DEPTH)
		printf("  -r, --rx-depth=DEPTH   receive WQEs kept posted (default %u)\n",
		       prog->default_rx_depth);
	if (x & EX_OPT_EVENTS)
		printf("  -e, --events           sleep on completion events instead of polling\n");
	if (x & EX_OPT_BATCH)
		printf("  -b, --batch=N          WQEs per doorbell (default %u)\n", prog->default_batch);
	if (x & EX_OPT_INLINE)
		printf("  -I, --inline           copy the payload into the WQE (inline data)\n");
	if (x & EX_OPT_BLUEFLAME)
		printf("      --bf               post single WQEs through a BlueFlame register\n");
	if (x & EX_OPT_TEMPLATE)
		printf("      --template         build each batch from a WQE template (mlx4dv_sq_batch_*)\n");
	if (x & EX_OPT_SIGNAL_EVERY)
		printf("      --signal-every=N   request a completion every N WQEs (default: once per batch)\n");
	if (x & EX_OPT_VERBS)
		printf("      --verbs            also run the workload through ibv_post_send/ibv_poll_cq and compare\n");
	if (x & EX_OPT_VLAN)
		printf("      --vlan=ID          insert an 802.1Q tag with VLAN ID (0..4095) on send\n");
	if (x & EX_OPT_MASKED)
		printf("      --masked           also run masked compare-and-swap and masked fetch-and-add\n");
	printf("  -h, --help             show this text\n");
	printf("\nWithout a ConnectX-3, run it on the software device: mlx4emu-run %s [options]\n",
	       prog->name);
}

static void set_defaults(const struct ex_program *prog, struct ex_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->ib_port = 1;
	opts->gid_index = -1;
	opts->size = prog->default_size;
	opts->iters = prog->default_iters;
	opts->batch = prog->default_batch ? prog->default_batch : 1;
	opts->rx_depth = prog->default_rx_depth;
	opts->vlan = -1;
	opts->tcp_port = EX_DEFAULT_TCP_PORT;
}

static enum ex_parse_result bad_value(const struct ex_program *prog,
				      const char *what, const char *arg)
{
	fprintf(stderr, "%s: invalid %s '%s' (see --help)\n", prog->name, what,
		arg ? arg : "");
	return EX_PARSE_ERROR;
}

enum ex_parse_result ex_parse_options(const struct ex_program *prog, int argc,
				      char **argv, struct ex_options *opts)
{
	static const struct option longopts[] = {
		{ "ib-dev",	  required_argument, NULL, 'd' },
		{ "ib-port",	  required_argument, NULL, 'i' },
		{ "size",	  required_argument, NULL, 's' },
		{ "iters",	  required_argument, NULL, 'n' },
		{ "gid-idx",	  required_argument, NULL, 'g' },
		{ "rx-depth",	  required_argument, NULL, 'r' },
		{ "events",	  no_argument,	     NULL, 'e' },
		{ "batch",	  required_argument, NULL, 'b' },
		{ "inline",	  no_argument,	     NULL, 'I' },
		{ "bf",		  no_argument,	     NULL, LONG_BLUEFLAME },
		{ "signal-every", required_argument, NULL, LONG_SIGNAL_EVERY },
		{ "verbs",	  no_argument,	     NULL, LONG_VERBS },
		{ "vlan",	  required_argument, NULL, LONG_VLAN },
		{ "masked",	  no_argument,	     NULL, LONG_MASKED },
		{ "template",	  no_argument,	     NULL, LONG_TEMPLATE },
		{ "port",	  required_argument, NULL, 'p' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c;

	set_defaults(prog, opts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":d:i:s:n:g:r:eb:Ip:h", longopts,
				NULL)) != -1) {
		unsigned needs = 0;

		switch (c) {
		case 'r': needs = EX_OPT_RX_DEPTH; break;
		case 'e': needs = EX_OPT_EVENTS; break;
		case 'b': needs = EX_OPT_BATCH; break;
		case 'I': needs = EX_OPT_INLINE; break;
		case LONG_BLUEFLAME: needs = EX_OPT_BLUEFLAME; break;
		case LONG_SIGNAL_EVERY: needs = EX_OPT_SIGNAL_EVERY; break;
		case LONG_VERBS: needs = EX_OPT_VERBS; break;
		case LONG_VLAN: needs = EX_OPT_VLAN; break;
		case LONG_MASKED: needs = EX_OPT_MASKED; break;
		case LONG_TEMPLATE: needs = EX_OPT_TEMPLATE; break;
		case 'p': needs = EX_OPT_PEER; break;
		default: break;
		}
		if (needs && !(prog->extras & needs)) {
			fprintf(stderr, "%s: option '%s' is not supported by this program (see --help)\n",
				prog->name, argv[optind - 1]);
			return EX_PARSE_ERROR;
		}

		switch (c) {
		case 'd':
			opts->ib_devname = optarg;
			break;
		case 'i':
			if (!parse_ulong(optarg, 1, 2, &v))
				return bad_value(prog, "port", optarg);
			opts->ib_port = (uint8_t)v;
			break;
		case 's':
			if (!parse_ulong(optarg, prog->min_size, prog->max_size, &v))
				return bad_value(prog, "size", optarg);
			opts->size = v;
			break;
		case 'n':
			if (!parse_ulong(optarg, 1, UINT_MAX, &v))
				return bad_value(prog, "iteration count", optarg);
			opts->iters = (unsigned)v;
			break;
		case 'g':
			if (!parse_ulong(optarg, 0, 255, &v))
				return bad_value(prog, "GID index", optarg);
			opts->gid_index = (int)v;
			break;
		case 'r':
			if (!parse_ulong(optarg, 1, 16384, &v))
				return bad_value(prog, "receive depth", optarg);
			opts->rx_depth = (unsigned)v;
			break;
		case 'e':
			opts->events = true;
			break;
		case 'b':
			if (!parse_ulong(optarg, 1, 1024, &v))
				return bad_value(prog, "batch", optarg);
			opts->batch = (unsigned)v;
			break;
		case 'I':
			opts->use_inline = true;
			break;
		case LONG_BLUEFLAME:
			opts->blueflame = true;
			break;
		case LONG_SIGNAL_EVERY:
			if (!parse_ulong(optarg, 1, 1024, &v))
				return bad_value(prog, "signal interval", optarg);
			opts->signal_every = (unsigned)v;
			break;
		case LONG_VERBS:
			opts->verbs = true;
			break;
		case LONG_VLAN:
			if (!parse_ulong(optarg, 0, 4095, &v))
				return bad_value(prog, "VLAN ID", optarg);
			opts->vlan = (int)v;
			break;
		case LONG_MASKED:
			opts->masked = true;
			break;
		case LONG_TEMPLATE:
			opts->template_batch = true;
			break;
		case 'p':
			if (!parse_ulong(optarg, 1, 65535, &v))
				return bad_value(prog, "TCP port", optarg);
			opts->tcp_port = (uint16_t)v;
			opts->two_process = true;
			break;
		case 'h':
			ex_print_usage(prog);
			return EX_PARSE_HELP;
		case ':':
			fprintf(stderr, "%s: option '%s' needs a value (see --help)\n",
				prog->name, argv[optind - 1]);
			return EX_PARSE_ERROR;
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n",
				prog->name, argv[optind - 1]);
			return EX_PARSE_ERROR;
		}
	}
	if (optind < argc && (prog->extras & EX_OPT_PEER)) {
		opts->host = argv[optind++];
		opts->two_process = true;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n",
			prog->name, argv[optind]);
		return EX_PARSE_ERROR;
	}
	return EX_PARSE_RUN;
}
