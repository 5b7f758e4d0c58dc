// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Seeded fates of frames sent, and the frames held for delay or reorder. */
#include "wire/faults.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "wire/link.h"

bool emu_faults_on;

struct held {
	uint64_t due_ns;
	uint32_t dst;
	unsigned port;
	unsigned copies;
	size_t len;
	uint8_t *pkt;		/* EMU_LINK_MAX_PACKET bytes of the arena */
	bool used;		/* reorder slots only */
	uint64_t seq;		/* reorder slots: order of arrival */
};

/* The delay area is a ring (one delay for all: due times grow with
 * arrival); the reorder slots are released by peer, in arrival order. */
static struct held delayed[EMU_FAULTS_DELAY_MAX];
static unsigned delay_head, delay_count;
static struct held reorder[EMU_FAULTS_REORDER_MAX];
static unsigned reorder_count;
static uint64_t reorder_seq;
static uint8_t *arena;
static uint8_t *spare;		/* swapped in when the delay ring is full */

static uint64_t rng[2];
static atomic_uint_fast64_t n_frames, n_dropped, n_duplicated, n_reordered, n_delayed;
/* link packets: their own generators, so that how many of them a run
 * sends (a matter of timing) leaves the data frames' fates alone */
static uint64_t link_rng[2];
static atomic_uint_fast64_t n_link_frames, n_link_dropped, n_link_duplicated;

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* True with probability ppm / 10^6. */
static bool draw_from(uint64_t *gen, uint32_t ppm)
{
	if (!ppm)
		return false;
	return ((splitmix64(gen) >> 32) * 1000000ull >> 32) < ppm;
}

static bool draw(unsigned port, uint32_t ppm)
{
	return draw_from(&rng[port - 1], ppm);
}

static bool holds_frames(void)
{
	return (emu_cfg.wire_delay_ppm && emu_cfg.wire_delay_us) || emu_cfg.wire_reorder_ppm;
}

int emu_faults_init(void)
{
	const size_t slots = EMU_FAULTS_DELAY_MAX + EMU_FAULTS_REORDER_MAX + 1;

	for (unsigned p = 0; p < 2; p++) {
		/* decorrelates the ports while keeping each one's sequence a
		 * function of the seed alone */
		uint64_t s = emu_cfg.wire_seed ^ (0x5851f42d4c957f2dull * (p + 1));

		rng[p] = splitmix64(&s);
		link_rng[p] = splitmix64(&s);
	}
	emu_faults_on = emu_cfg.wire_drop_ppm || emu_cfg.wire_dup_ppm || holds_frames();
	if (!holds_frames())
		return 0;
	/* untouched pages of the arena cost no memory */
	arena = malloc(slots * EMU_LINK_MAX_PACKET);
	if (!arena) {
		fprintf(stderr, "mlx4emu: no memory to hold delayed frames: "
			"delay and reorder are off\n");
		emu_cfg.wire_delay_ppm = emu_cfg.wire_reorder_ppm = 0;
		emu_faults_on = emu_cfg.wire_drop_ppm || emu_cfg.wire_dup_ppm;
		return ENOMEM;
	}
	for (size_t i = 0; i < EMU_FAULTS_DELAY_MAX; i++)
		delayed[i].pkt = arena + i * EMU_LINK_MAX_PACKET;
	for (size_t i = 0; i < EMU_FAULTS_REORDER_MAX; i++)
		reorder[i].pkt = arena + (EMU_FAULTS_DELAY_MAX + i) * EMU_LINK_MAX_PACKET;
	spare = arena + (slots - 1) * EMU_LINK_MAX_PACKET;
	return 0;
}

struct emu_fate emu_faults_decide(unsigned port)
{
	struct emu_fate f = { .copies = 1, .hold = EMU_HOLD_NONE };

	atomic_fetch_add_explicit(&n_frames, 1, memory_order_relaxed);
	if (draw(port, emu_cfg.wire_drop_ppm)) {
		f.drop = true;
		atomic_fetch_add_explicit(&n_dropped, 1, memory_order_relaxed);
		return f;
	}
	if (draw(port, emu_cfg.wire_dup_ppm)) {
		f.copies = 2;
		atomic_fetch_add_explicit(&n_duplicated, 1, memory_order_relaxed);
	}
	if (emu_cfg.wire_delay_us && draw(port, emu_cfg.wire_delay_ppm))
		f.hold = EMU_HOLD_DELAY;
	else if (draw(port, emu_cfg.wire_reorder_ppm))
		f.hold = EMU_HOLD_REORDER;
	return f;
}

struct emu_fate emu_faults_decide_link(unsigned port)
{
	struct emu_fate f = { .copies = 1, .hold = EMU_HOLD_NONE };

	atomic_fetch_add_explicit(&n_link_frames, 1, memory_order_relaxed);
	if (draw_from(&link_rng[port - 1], emu_cfg.wire_drop_ppm)) {
		f.drop = true;
		atomic_fetch_add_explicit(&n_link_dropped, 1, memory_order_relaxed);
	} else if (draw_from(&link_rng[port - 1], emu_cfg.wire_dup_ppm)) {
		f.copies = 2;
		atomic_fetch_add_explicit(&n_link_duplicated, 1, memory_order_relaxed);
	}
	return f;
}

static void fill(struct held *h, unsigned port, uint32_t dst, const uint8_t *pkt,
		 size_t len, unsigned copies, uint64_t due_ns)
{
	if (h->pkt != pkt)
		memcpy(h->pkt, pkt, len);
	h->len = len;
	h->port = port;
	h->dst = dst;
	h->copies = copies;
	h->due_ns = due_ns;
}

static void release_one(struct held *h, emu_fault_release_fn *release)
{
	release(h->port, h->dst, h->pkt, h->len, h->copies);
}

static void hold_delay(const struct emu_fate *f, unsigned port, uint32_t dst,
		       const uint8_t *pkt, size_t len, uint64_t now_ns,
		       emu_fault_release_fn *release)
{
	uint64_t due = now_ns + (uint64_t)emu_cfg.wire_delay_us * 1000u;
	struct held *h;

	if (delay_count == EMU_FAULTS_DELAY_MAX) {
		/* pkt may live where the link builds its next frame, which
		 * releasing the oldest reuses: keep it aside first; the new
		 * frame then takes the oldest's place at the ring's tail */
		uint8_t *buf;

		h = &delayed[delay_head];
		memcpy(spare, pkt, len);
		release_one(h, release);
		buf = h->pkt;
		h->pkt = spare;
		spare = buf;
		fill(h, port, dst, h->pkt, len, f->copies, due);
		delay_head = (delay_head + 1) % EMU_FAULTS_DELAY_MAX;
	} else {
		h = &delayed[(delay_head + delay_count) % EMU_FAULTS_DELAY_MAX];
		fill(h, port, dst, pkt, len, f->copies, due);
		delay_count++;
	}
	atomic_fetch_add_explicit(&n_delayed, 1, memory_order_relaxed);
}

static void hold_reorder(const struct emu_fate *f, unsigned port, uint32_t dst,
			 const uint8_t *pkt, size_t len, uint64_t now_ns,
			 emu_fault_release_fn *release)
{
	struct held *h = NULL;

	for (unsigned i = 0; i < EMU_FAULTS_REORDER_MAX && !h; i++)
		if (!reorder[i].used)
			h = &reorder[i];
	if (!h) {
		release(port, dst, pkt, len, f->copies);
		return;
	}
	fill(h, port, dst, pkt, len, f->copies,
	     now_ns + (uint64_t)emu_cfg.wire_reorder_us * 1000u);
	h->used = true;
	h->seq = reorder_seq++;
	reorder_count++;
	atomic_fetch_add_explicit(&n_reordered, 1, memory_order_relaxed);
}

void emu_faults_hold(const struct emu_fate *f, unsigned port, uint32_t dst,
		     const uint8_t *pkt, size_t len, uint64_t now_ns,
		     emu_fault_release_fn *release)
{
	if (f->hold == EMU_HOLD_DELAY)
		hold_delay(f, port, dst, pkt, len, now_ns, release);
	else
		hold_reorder(f, port, dst, pkt, len, now_ns, release);
}

/* Releases the reorder slots that `pick` selects, in arrival order. */
static unsigned release_reorder(bool (*pick)(const struct held *, const void *),
				const void *arg, emu_fault_release_fn *release)
{
	unsigned n = 0;

	while (reorder_count) {
		struct held *first = NULL;

		for (unsigned i = 0; i < EMU_FAULTS_REORDER_MAX; i++) {
			struct held *h = &reorder[i];

			if (h->used && pick(h, arg) && (!first || h->seq < first->seq))
				first = h;
		}
		if (!first)
			break;
		first->used = false;
		reorder_count--;
		release_one(first, release);
		n++;
	}
	return n;
}

struct peer {
	unsigned port;
	uint32_t dst;
};

static bool same_peer(const struct held *h, const void *arg)
{
	const struct peer *p = arg;

	return h->port == p->port && h->dst == p->dst;
}

static bool is_due(const struct held *h, const void *arg)
{
	return h->due_ns <= *(const uint64_t *)arg;
}

unsigned emu_faults_release_after(unsigned port, uint32_t dst,
				  emu_fault_release_fn *release)
{
	struct peer p = { port, dst };

	if (!reorder_count)
		return 0;
	return release_reorder(same_peer, &p, release);
}

unsigned emu_faults_release_due(uint64_t now_ns, emu_fault_release_fn *release)
{
	unsigned n = 0;

	while (delay_count && delayed[delay_head].due_ns <= now_ns) {
		release_one(&delayed[delay_head], release);
		delay_head = (delay_head + 1) % EMU_FAULTS_DELAY_MAX;
		delay_count--;
		n++;
	}
	if (reorder_count)
		n += release_reorder(is_due, &now_ns, release);
	return n;
}

uint64_t emu_faults_next_due(void)
{
	uint64_t due = delay_count ? delayed[delay_head].due_ns : UINT64_MAX;

	for (unsigned i = 0; reorder_count && i < EMU_FAULTS_REORDER_MAX; i++)
		if (reorder[i].used && reorder[i].due_ns < due)
			due = reorder[i].due_ns;
	return due;
}

static void emu_faults_counts(struct emu_fault_counts *out)
{
	out->frames = atomic_load_explicit(&n_frames, memory_order_relaxed);
	out->dropped = atomic_load_explicit(&n_dropped, memory_order_relaxed);
	out->duplicated = atomic_load_explicit(&n_duplicated, memory_order_relaxed);
	out->reordered = atomic_load_explicit(&n_reordered, memory_order_relaxed);
	out->delayed = atomic_load_explicit(&n_delayed, memory_order_relaxed);
}

void emu_faults_report(void)
{
	struct emu_fault_counts c;

	if (!emu_faults_on)
		return;
	emu_faults_counts(&c);
	fprintf(stderr, "mlx4emu: wire faults (seed %llu): of %llu frames sent, %llu dropped, "
		"%llu duplicated, %llu reordered, %llu delayed\n",
		(unsigned long long)emu_cfg.wire_seed, (unsigned long long)c.frames,
		(unsigned long long)c.dropped, (unsigned long long)c.duplicated,
		(unsigned long long)c.reordered, (unsigned long long)c.delayed);
	if (atomic_load(&n_link_frames))
		fprintf(stderr, "mlx4emu: wire faults on link packets (datagram credits): of %llu "
			"sent, %llu dropped, %llu duplicated\n",
			(unsigned long long)atomic_load(&n_link_frames),
			(unsigned long long)atomic_load(&n_link_dropped),
			(unsigned long long)atomic_load(&n_link_duplicated));
}
