// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD multicast, adapter side.  Groups are keyed by MGID, as the mlx4 MCG
 * table is (mlx4_qp_attach_common hashes the GID; the MLID only names the
 * attachment at the uverbs level).  A group holds its attachments, each a
 * (QPN, MLID) pair; it is created by its first attachment and freed with
 * its last.  Lookups scan the group pointers: a program has few groups,
 * and a send that is not multicast never gets here.
 */
#include "adapter/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adapter/adapter.h"
#include "adapter/objects.h"

struct mcast_attachment {
	uint32_t qpn;
	uint16_t mlid;
};

struct mcast_group {
	uint8_t gid[16];
	uint32_t n;
	struct mcast_attachment a[EMU_MCAST_QP_PER_GRP];
};

static struct mcast_group *groups[EMU_MAX_MCAST_GRP];
static uint32_t ngroups;	/* slots below this index may be in use */

bool emu_gid_is_multicast(const uint8_t gid[16])
{
	static const uint8_t v4_mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	if (gid[0] == 0xff)
		return true;
	return !memcmp(gid, v4_mapped, sizeof(v4_mapped)) && (gid[12] & 0xf0) == 0xe0;
}

static struct mcast_group *group_find(const uint8_t gid[16], uint32_t *slot)
{
	for (uint32_t i = 0; i < ngroups; i++)
		if (groups[i] && !memcmp(groups[i]->gid, gid, 16)) {
			if (slot)
				*slot = i;
			return groups[i];
		}
	return NULL;
}

static struct mcast_group *group_create(const uint8_t gid[16])
{
	for (uint32_t i = 0; i < EMU_MAX_MCAST_GRP; i++) {
		if (groups[i])
			continue;
		groups[i] = calloc(1, sizeof(*groups[i]));
		if (!groups[i])
			return NULL;
		memcpy(groups[i]->gid, gid, 16);
		if (i >= ngroups)
			ngroups = i + 1;
		return groups[i];
	}
	return NULL;
}

static void group_free(uint32_t slot)
{
	free(groups[slot]);
	groups[slot] = NULL;
	while (ngroups && !groups[ngroups - 1])
		ngroups--;
}

static int attachment_index(const struct mcast_group *g, uint32_t qpn, uint16_t mlid)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (g->a[i].qpn == qpn && g->a[i].mlid == mlid)
			return (int)i;
	return -1;
}

int emu_mcast_attach(const struct emu_qp *qp, const uint8_t gid[16], uint16_t mlid)
{
	struct mcast_group *g = group_find(gid, NULL);

	if (g && attachment_index(g, qp->qpn, mlid) >= 0)
		return 0;
	if (!g)
		g = group_create(gid);
	if (!g || g->n == EMU_MCAST_QP_PER_GRP)
		return ENOMEM;
	g->a[g->n++] = (struct mcast_attachment){ qp->qpn, mlid };
	EMU_TRACE("attach_mcast qpn 0x%x mlid 0x%x (%u in group)", qp->qpn, mlid, g->n);
	return 0;
}

static void remove_at(uint32_t slot, uint32_t i)
{
	struct mcast_group *g = groups[slot];

	memmove(&g->a[i], &g->a[i + 1], (g->n - i - 1) * sizeof(g->a[0]));
	if (--g->n == 0)
		group_free(slot);
}

int emu_mcast_detach(const struct emu_qp *qp, const uint8_t gid[16], uint16_t mlid)
{
	uint32_t slot;
	struct mcast_group *g = group_find(gid, &slot);
	int i = g ? attachment_index(g, qp->qpn, mlid) : -1;

	if (i < 0)
		return EINVAL;
	remove_at(slot, (uint32_t)i);
	EMU_TRACE("detach_mcast qpn 0x%x mlid 0x%x", qp->qpn, mlid);
	return 0;
}

void emu_mcast_detach_all(uint32_t qpn)
{
	for (uint32_t s = 0; s < ngroups; s++) {
		struct mcast_group *g = groups[s];
		uint32_t kept = 0;

		if (!g)
			continue;
		for (uint32_t i = 0; i < g->n; i++)
			if (g->a[i].qpn != qpn)
				g->a[kept++] = g->a[i];
		g->n = kept;
		if (!kept)
			group_free(s);
	}
}

bool emu_mcast_qp_attached(uint32_t qpn)
{
	for (uint32_t s = 0; s < ngroups; s++)
		for (uint32_t i = 0; groups[s] && i < groups[s]->n; i++)
			if (groups[s]->a[i].qpn == qpn)
				return true;
	return false;
}

/* An earlier attachment of the same QP already got the copy. */
static bool seen_before(const struct mcast_group *g, uint32_t i)
{
	for (uint32_t j = 0; j < i; j++)
		if (g->a[j].qpn == g->a[i].qpn)
			return true;
	return false;
}

void emu_mcast_fanout(const uint8_t gid[16], const struct emu_qp *sender,
		      void (*deliver)(void *arg, struct emu_qp *qp), void *arg)
{
	const struct mcast_group *g = group_find(gid, NULL);

	for (uint32_t i = 0; g && i < g->n; i++) {
		struct emu_qp *d = emu_qp_by_qpn(g->a[i].qpn);

		if (!d || seen_before(g, i) || (d == sender && sender->block_mcast_lb))
			continue;
		deliver(arg, d);
	}
}

bool emu_mcast_send(const uint8_t *av, bool eth, uint32_t dqpn,
		    const struct emu_qp *sender,
		    void (*deliver)(void *arg, struct emu_qp *qp), void *arg)
{
	bool grh = eth || (av[5] & 0x80);
	uint16_t dlid = (uint16_t)(av[6] << 8 | av[7]);

	if (grh && emu_gid_is_multicast(av + 16)) {
		if (dqpn == EMU_MCAST_QPN)
			emu_mcast_fanout(av + 16, sender, deliver, arg);
		return true;
	}
	return !eth && dlid >= 0xc000 && dlid != 0xffff;
}
