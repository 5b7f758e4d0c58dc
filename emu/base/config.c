// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Environment parsing; every option of mlx4emu-run maps to one variable. */
#include "base/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct emu_config emu_cfg;

/*
 * A message about setting `name` (MLX4EMU_FOO_BAR), naming it both ways a
 * user may have given it: the mlx4emu-run option that sets it (every
 * MLX4EMU_FOO_BAR is --foo-bar) and the variable, as in
 * "mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in [1, 2]".
 */
__attribute__((format(printf, 2, 3)))
static void setting_msg(const char *name, const char *fmt, ...)
{
	static const char prefix[] = "MLX4EMU_";
	char option[64], text[256];
	const char *n = name;
	size_t i = 0;
	va_list ap;

	if (!strncmp(n, prefix, sizeof(prefix) - 1))
		n += sizeof(prefix) - 1;
	for (; *n && i < sizeof(option) - 1; n++, i++)
		option[i] = *n == '_' ? '-' : (char)tolower((unsigned char)*n);
	option[i] = '\0';
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* one write: the line stays whole beside other processes' output */
	fprintf(stderr, "mlx4emu: --%s / %s: %s\n", option, name, text);
}

/*
 * A whole number as written by a user: decimal digits, or hexadecimal
 * after 0x.  No sign, no blanks, no octal (strtoul's "010" would be 8);
 * returns the end of the number, or NULL when there is none or it
 * overflows.
 */
static const char *scan_number(const char *s, unsigned long long *x)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return NULL;
	errno = 0;
	*x = strtoull(digits, &end, hex ? 16 : 10);
	return errno ? NULL : end;
}

/* The whole of `v` is a number. */
static bool whole_number(const char *v, unsigned long long *x)
{
	const char *end = scan_number(v, x);

	return end && !*end;
}

static int parse_uint(const char *name, unsigned long min, unsigned long max,
		      unsigned long def, unsigned long *out)
{
	const char *v = getenv(name);
	unsigned long long x;

	*out = def;
	if (!v || !*v)
		return 0;
	if (!whole_number(v, &x)) {
		setting_msg(name, "%s is not a number", v);
		return -1;
	}
	if (x < min || x > max) {
		setting_msg(name, "%s is not in [%lu, %lu]", v, min, max);
		return -1;
	}
	*out = (unsigned long)x;
	return 0;
}

static int parse_bool(const char *name, bool def, bool *out)
{
	const char *v = getenv(name);

	*out = def;
	if (!v || !*v)
		return 0;
	if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "false")) {
		*out = false;
		return 0;
	}
	setting_msg(name, "%s is not a boolean", v);
	return -1;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned b[6];
	int n = 0;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%n", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &n) != 6 || s[n] != '\0')
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* A per-port list "A[,B]", split in place. */
struct port_list {
	char buf[128];
	char *item[2];
	unsigned n;
};

/*
 * Empty items and more items than ports are errors: a value meant for a
 * port that does not exist, or a stray comma, would otherwise be dropped
 * unseen.
 */
static int split_port_list(const char *name, const char *v, unsigned ports,
			   struct port_list *l)
{
	unsigned items = 1;
	char *p = l->buf;

	for (const char *c = v; *c; c++)
		items += *c == ',';
	if (items > ports) {
		setting_msg(name, "%s: %u values for %u port%s", v, items, ports,
			    ports == 1 ? "" : "s");
		return -1;
	}
	if (strlen(v) >= sizeof(l->buf)) {
		setting_msg(name, "%.64s...: too long", v);
		return -1;
	}
	memcpy(l->buf, v, strlen(v) + 1);
	for (l->n = 0; l->n < items; l->n++) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (!*p) {
			setting_msg(name, "%s: an empty value in the list", v);
			return -1;
		}
		l->item[l->n] = p;
		p += strlen(p) + 1;	/* past the comma, on the last item unused */
	}
	return 0;
}

static int parse_link_layers(unsigned ports)
{
	const char *v = getenv("MLX4EMU_LINK_LAYER");
	struct port_list l;

	emu_cfg.link_layer[0] = emu_cfg.link_layer[1] = EMU_LL_IB;
	if (!v || !*v)
		return 0;
	if (split_port_list("MLX4EMU_LINK_LAYER", v, ports, &l))
		return -1;
	for (unsigned i = 0; i < l.n; i++) {
		const char *tok = l.item[i];

		if (!strcasecmp(tok, "ib") || !strcasecmp(tok, "infiniband"))
			emu_cfg.link_layer[i] = EMU_LL_IB;
		else if (!strcasecmp(tok, "eth") || !strcasecmp(tok, "ethernet") ||
			 !strcasecmp(tok, "roce"))
			emu_cfg.link_layer[i] = EMU_LL_ETH;
		else {
			setting_msg("MLX4EMU_LINK_LAYER", "bad value '%s' (ib, infiniband, "
				    "eth, ethernet or roce)", tok);
			return -1;
		}
	}
	/* one value applies to every port */
	if (l.n == 1)
		emu_cfg.link_layer[1] = emu_cfg.link_layer[0];
	return 0;
}

static int parse_macs(unsigned ports)
{
	const char *v = getenv("MLX4EMU_MAC");
	struct port_list l;

	for (unsigned p = 0; p < 2; p++) {
		static const uint8_t base[6] = { 0x00, 0x02, 0xc9, 0x0e, 0x4d, 0x00 };

		memcpy(emu_cfg.mac[p], base, 6);
		emu_cfg.mac[p][5] = (uint8_t)(p + 1);
	}
	if (!v || !*v)
		return 0;
	if (split_port_list("MLX4EMU_MAC", v, ports, &l))
		return -1;
	for (unsigned i = 0; i < l.n; i++) {
		if (parse_mac(l.item[i], emu_cfg.mac[i])) {
			setting_msg("MLX4EMU_MAC", "bad MAC '%s'", l.item[i]);
			return -1;
		}
		emu_cfg.mac_set[i] = true;
	}
	return 0;
}

static int parse_ipv4(const char *s, uint32_t *addr)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*addr = ntohl(a.s_addr);
	return 0;
}

/* MLX4EMU_ADDR=IP[,IP]: the address each port claims. */
static int parse_addrs(unsigned ports)
{
	const char *v = getenv("MLX4EMU_ADDR");
	struct port_list l;

	emu_cfg.addr[0] = emu_cfg.addr[1] = 0;
	if (!v || !*v)
		return 0;
	if (split_port_list("MLX4EMU_ADDR", v, ports, &l))
		return -1;
	for (unsigned i = 0; i < l.n; i++) {
		if (parse_ipv4(l.item[i], &emu_cfg.addr[i]) || !emu_cfg.addr[i]) {
			setting_msg("MLX4EMU_ADDR", "bad IPv4 address '%s'", l.item[i]);
			return -1;
		}
	}
	return 0;
}

/* MLX4EMU_LID_MAP=LID=IP[,LID=IP...]: adapters of other hosts by LID. */
static int parse_lid_map(void)
{
	const char *v = getenv("MLX4EMU_LID_MAP");
	char buf[64 * EMU_LID_MAP_MAX];
	char *save = NULL, *tok;

	emu_cfg.nlid_map = 0;
	if (!v || !*v)
		return 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		unsigned long lid;
		uint32_t addr;

		bool bad;

		if (eq)
			*eq = '\0';
		lid = strtoul(tok, &end, 0);
		bad = !eq || *end || end == tok || lid < 1 || lid > 0xbfff ||
		      parse_ipv4(eq + 1, &addr) || emu_cfg.nlid_map == EMU_LID_MAP_MAX;
		if (bad) {
			/* the message quotes the whole entry, as written */
			if (eq)
				*eq = '=';
			setting_msg("MLX4EMU_LID_MAP", "bad entry '%s' (LID=IPv4, LID in "
				    "[1, 0xbfff], at most %d entries)", tok, EMU_LID_MAP_MAX);
			return -1;
		}
		emu_cfg.lid_map[emu_cfg.nlid_map].lid = (uint16_t)lid;
		emu_cfg.lid_map[emu_cfg.nlid_map].addr = addr;
		emu_cfg.nlid_map++;
	}
	return 0;
}

/* MLX4EMU_PCI_ADDR: domain:bus:device.function, written back normalised. */
static int parse_pci_addr(unsigned *bus, unsigned *slot, unsigned *fn)
{
	const char *v = getenv("MLX4EMU_PCI_ADDR");
	unsigned dom = 0;
	int n = 0;

	*bus = 3;
	*slot = 0;
	*fn = 0;
	if (v && *v &&
	    (sscanf(v, "%x:%x:%x.%x%n", &dom, bus, slot, fn, &n) != 4 || v[n] ||
	     dom > 0xffff || *bus > 0xff || *slot > 0x1f || *fn > 7)) {
		setting_msg("MLX4EMU_PCI_ADDR", "%s is not dddd:bb:dd.f", v);
		return -1;
	}
	snprintf(emu_cfg.pci_addr, sizeof(emu_cfg.pci_addr), "%04x:%02x:%02x.%x",
		 dom, *bus, *slot, *fn);
	return 0;
}

/*
 * MLX4EMU_IFNAME: one name per port.  The default is the name udev's
 * path policy gives an mlx4_en port: en + p<bus> s<slot> [f<function>],
 * and d<dev_port> for the second port.
 */
static int parse_ifnames(unsigned ports, unsigned bus, unsigned slot, unsigned fn)
{
	const char *v = getenv("MLX4EMU_IFNAME");
	char fpart[4] = "";
	struct port_list l;

	if (fn)
		snprintf(fpart, sizeof(fpart), "f%u", (uint8_t)(fn & 7));
	/* at most "enp255s31f7d1": bus, slot and function are range-checked */
	snprintf(emu_cfg.ifname[0], sizeof(emu_cfg.ifname[0]), "enp%us%u%s",
		 (uint8_t)bus, (uint8_t)(slot & 31), fpart);
	snprintf(emu_cfg.ifname[1], sizeof(emu_cfg.ifname[1]), "enp%us%u%sd1",
		 (uint8_t)bus, (uint8_t)(slot & 31), fpart);
	if (!v || !*v)
		return 0;
	if (split_port_list("MLX4EMU_IFNAME", v, ports, &l))
		return -1;
	for (unsigned i = 0; i < l.n; i++) {
		const char *tok = l.item[i];

		if (strlen(tok) >= sizeof(emu_cfg.ifname[i]) || strchr(tok, '/') ||
		    !strcmp(tok, ".") || !strcmp(tok, "..")) {
			setting_msg("MLX4EMU_IFNAME", "bad name '%s'", tok);
			return -1;
		}
		snprintf(emu_cfg.ifname[i], sizeof(emu_cfg.ifname[i]), "%s", tok);
	}
	if (ports == 2 && !strcmp(emu_cfg.ifname[0], emu_cfg.ifname[1])) {
		setting_msg("MLX4EMU_IFNAME", "both ports named '%s'", emu_cfg.ifname[0]);
		return -1;
	}
	return 0;
}

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/*
 * MLX4EMU_DOORBELL=trap|poll.  Trapping needs the x86-64 store decoder;
 * under valgrind the default is poll: the handler would run (and be
 * counted) on the program's thread for every doorbell.
 */
static int parse_doorbell(void)
{
	const char *v = getenv("MLX4EMU_DOORBELL");
#if defined(__x86_64__)
	bool can_trap = true;
#else
	bool can_trap = false;
#endif

	emu_cfg.doorbell_trap = can_trap && !RUNNING_ON_VALGRIND;
	if (!v || !*v)
		return 0;
	if (!strcasecmp(v, "poll")) {
		emu_cfg.doorbell_trap = false;
		return 0;
	}
	if (!strcasecmp(v, "trap")) {
		if (!can_trap)
			setting_msg("MLX4EMU_DOORBELL", "trap needs x86-64; polling");
		emu_cfg.doorbell_trap = can_trap;
		return 0;
	}
	setting_msg("MLX4EMU_DOORBELL", "%s: expected trap or poll", v);
	return -1;
}

/* "N[:syndrome][:id]", the syndrome only `with_syndrome`; an id is a
 * QPN or CQN, 24 bits. */
static int parse_fault(const char *name, uint64_t *n, uint8_t *syndrome,
		       uint32_t *id, bool with_syndrome)
{
	const char *v = getenv(name), *p;
	unsigned long long f[3] = { 0, with_syndrome ? 0x04 : 0, 0 };
	unsigned nfields = with_syndrome ? 3 : 2, id_field = nfields - 1;

	*n = 0;
	if (!v || !*v)
		return 0;
	p = v;
	for (unsigned k = 0;; k++) {
		if (k == nfields || !(p = scan_number(p, &f[k])))
			goto bad;
		if (!*p)
			break;
		if (*p++ != ':')
			goto bad;
	}
	if (f[0] < 1 || (with_syndrome && f[1] > 0xff) || f[id_field] > 0xffffff)
		goto bad;
	*n = f[0];
	if (with_syndrome)
		*syndrome = (uint8_t)f[1];
	*id = (uint32_t)f[id_field];
	return 0;
bad:
	setting_msg(name, "%s: expected N%s[:id] with N >= 1", v,
		    with_syndrome ? "[:syndrome]" : "");
	return -1;
}

/*
 * A share of frames: a percentage 0..100 in decimal, fractions allowed
 * ("0.5"), an optional '%' after it ("5%"), in parts per million (a
 * fifth decimal rounds).  Read digit by digit: no sign, exponent or hex
 * float as strtod() would take, and no locale's decimal comma.
 */
static int parse_share(const char *s, const char **end, uint32_t *ppm)
{
	static const unsigned place[4] = { 1000, 100, 10, 1 };
	const char *p = s;
	uint32_t whole = 0, frac = 0;
	bool digits = false, frac_nonzero = false;

	for (; isdigit((unsigned char)*p) && whole <= 100; p++, digits = true)
		whole = whole * 10 + (uint32_t)(*p - '0');
	if (*p == '.') {
		for (unsigned i = 0; isdigit((unsigned char)*++p); i++, digits = true) {
			unsigned d = (unsigned)(*p - '0');

			frac_nonzero |= d != 0;
			if (i < 4)
				frac += d * place[i];
			else if (i == 4 && d >= 5)
				frac++;
		}
	}
	if (!digits || whole > 100 || (whole == 100 && frac_nonzero))
		return -1;
	if (*p == '%')
		p++;
	*ppm = whole * 10000 + frac;
	*end = p;
	return 0;
}

/* "PCT" (drop, dup), "PCT[:USEC]" (reorder) or "USEC[:PCT]" (delay). */
static int parse_wire_fault(const char *name, bool usec_first, uint32_t def_second,
			    uint32_t *ppm, uint32_t *us)
{
	const char *v = getenv(name), *e = NULL, *te;
	unsigned long long t;

	*ppm = 0;
	if (us)
		*us = def_second;
	if (!v || !*v)
		return 0;
	if (usec_first) {
		te = scan_number(v, &t);
		if (!te || t > 10000000ul)
			goto bad;
		*us = (uint32_t)t;
		*ppm = 1000000;
		if (*te == ':' && parse_share(te + 1, &e, ppm) == 0 && !*e)
			return 0;
		if (!*te)
			return 0;
		goto bad;
	}
	if (parse_share(v, &e, ppm))
		goto bad;
	if (!*e)
		return 0;
	if (us && *e == ':') {
		if (whole_number(e + 1, &t) && t >= 1 && t <= 10000000ul) {
			*us = (uint32_t)t;
			return 0;
		}
	}
bad:
	setting_msg(name, "%s: expected %s", v,
		    usec_first ? "USEC[:PCT] (USEC <= 10000000, PCT 0..100)" :
		    us ? "PCT[:USEC] (PCT 0..100, USEC 1..10000000)" : "PCT (0..100)");
	return -1;
}

static int parse_wire_faults(void)
{
	const char *seed = getenv("MLX4EMU_WIRE_SEED");
	unsigned long long x;
	int err = 0;

	err |= parse_wire_fault("MLX4EMU_WIRE_DROP", false, 0, &emu_cfg.wire_drop_ppm, NULL);
	err |= parse_wire_fault("MLX4EMU_WIRE_DUP", false, 0, &emu_cfg.wire_dup_ppm, NULL);
	err |= parse_wire_fault("MLX4EMU_WIRE_REORDER", false, 1000,
				&emu_cfg.wire_reorder_ppm, &emu_cfg.wire_reorder_us);
	err |= parse_wire_fault("MLX4EMU_WIRE_DELAY", true, 0, &emu_cfg.wire_delay_ppm,
				&emu_cfg.wire_delay_us);
	emu_cfg.wire_seed = 1;
	if (seed && *seed) {
		if (whole_number(seed, &x)) {
			emu_cfg.wire_seed = x;
		} else {
			setting_msg("MLX4EMU_WIRE_SEED", "%s is not a number", seed);
			err = -1;
		}
	}
	return err;
}

int emu_config_load(void)
{
	unsigned long x;
	unsigned list_ports;
	bool b;
	uint8_t dummy;
	int err = 0;

	/* per-port lists are held to the port count, or with that count
	 * itself wrong to the most ports (one message, not one per list) */
	list_ports = 2;
	if (parse_uint("MLX4EMU_PORTS", 1, 2, 1, &x))
		err = -1;
	else
		list_ports = (unsigned)x;
	emu_cfg.ports = (unsigned)x;
	err |= parse_link_layers(list_ports);
	err |= parse_macs(list_ports);
	err |= parse_addrs(list_ports);
	err |= parse_lid_map();
	err |= parse_uint("MLX4EMU_CQE_SIZE", 32, 64, 32, &x);
	if (x != 32 && x != 64) {
		setting_msg("MLX4EMU_CQE_SIZE", "%lu: must be 32 or 64", x);
		err = -1;
	}
	emu_cfg.cqe_size = (unsigned)x;
	err |= parse_bool("MLX4EMU_BF", true, &b);
	emu_cfg.bf_reg_size = b ? 512 : 0;
	err |= parse_uint("MLX4EMU_DEVICE_ID", 0, 0xffff, 0x1003, &x);
	if (x != 0x1003 && x != 0x1007) {
		setting_msg("MLX4EMU_DEVICE_ID", "0x%lx: must be 0x1003 or 0x1007", x);
		err = -1;
	}
	emu_cfg.device_id = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_QP", 16, 131000, 0, &x);
	emu_cfg.max_qp = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_QP_WR", 16, 16351, 0, &x);
	emu_cfg.max_qp_wr = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_SGE", 2, 32, 0, &x);
	emu_cfg.max_sge = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_INLINE", 0, 1024, 1024, &x);
	emu_cfg.max_inline = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_CQE", 1, 0x3fffff, 0, &x);
	emu_cfg.max_cqe = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_MR", 16, 524032, 0, &x);
	emu_cfg.max_mr = (unsigned)x;
	err |= parse_uint("MLX4EMU_MAX_SRQ_WR", 16, 16383, 0, &x);
	emu_cfg.max_srq_wr = (unsigned)x;
	err |= parse_uint("MLX4EMU_RNR_TIMER_CAP_US", 0, 1000000, 1000, &x);
	emu_cfg.rnr_cap_us = (unsigned)x;
	err |= parse_bool("MLX4EMU_DEBUG", false, &emu_cfg.debug);
	{
		unsigned bus, slot, fn;

		if (parse_pci_addr(&bus, &slot, &fn))
			err = -1;
		else
			err |= parse_ifnames(list_ports, bus, slot, fn);
	}
	err |= parse_uint("MLX4EMU_LINK_SPEED", 10, 100000, 40000, &x);
	emu_cfg.link_speed = (unsigned)x;
	err |= parse_bool("MLX4EMU_WIRE_FILTER", true, &emu_cfg.wire_filter);
	err |= parse_bool("MLX4EMU_DATAGRAM_CREDITS", true, &emu_cfg.datagram_credits);
	err |= parse_bool("MLX4EMU_CROSS_CABLE", false, &emu_cfg.cross_cable);
	if (emu_cfg.cross_cable &&
	    (emu_cfg.ports != 2 || emu_cfg.link_layer[0] != EMU_LL_ETH ||
	     emu_cfg.link_layer[1] != EMU_LL_ETH)) {
		setting_msg("MLX4EMU_CROSS_CABLE", "needs two Ethernet ports");
		err = -1;
	}
	err |= parse_doorbell();
	emu_cfg.pcap = getenv("MLX4EMU_PCAP");
	if (emu_cfg.pcap && !*emu_cfg.pcap)
		emu_cfg.pcap = NULL;
	err |= parse_wire_faults();
	err |= parse_uint("MLX4EMU_WIRE_SEGMENT", 0, 0xffffff, 0, &x);
	emu_cfg.wire_segment = (uint32_t)x;
	err |= parse_fault("MLX4EMU_FAULT_CQE", &emu_cfg.fault_cqe_n,
			   &emu_cfg.fault_cqe_syndrome, &emu_cfg.fault_cqe_qpn, true);
	err |= parse_fault("MLX4EMU_FAULT_QP_ERR", &emu_cfg.fault_err_n, &dummy,
			   &emu_cfg.fault_err_qpn, false);
	err |= parse_fault("MLX4EMU_FAULT_CQ_OVERRUN", &emu_cfg.fault_overrun_n,
			   &dummy, &emu_cfg.fault_overrun_cqn, false);
	return err ? -1 : 0;
}
