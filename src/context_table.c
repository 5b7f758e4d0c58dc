// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Per-context state of libmlx4dv: whether the context is libmlx4's, and
 * the context's BlueFlame page with the registers handed out on it.
 *
 * libmlx4 keeps its own BlueFlame mapping private, so the unit maps the
 * page a second time (same mmap offset of the same device fd, hence the
 * same device page) and stays off register 0, which libmlx4 uses for every
 * QP of the context (rdma-core 44.0 providers/mlx4/qp.c, bf_offset toggled
 * under bf_lock). Each handle gets a whole register, so two handles never
 * race on one register and no lock is needed on the data path.
 *
 * An entry belongs to one open context: a context allocated at the address
 * of a closed one, with the same device and the same fd numbers, must not
 * inherit its layout override or its cached answers. Entries are keyed by
 * the context pointer, device pointer, command fd and async fd, and an
 * entry whose context's async fd is no longer the file it was watched on
 * (context_watch.c) is dropped when next looked up. A context whose async
 * fd cannot be watched (not a uverbs context) is matched on the key alone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

enum {
	CONTEXT_TABLE_SIZE	= 64,
	/* ConnectX-3 GET_CONTEXT bf_reg_size (kernel mlx4_ib, from the
	 * firmware's QUERY_DEV_CAP log_bf_reg_size). */
	DEFAULT_BF_REG_SIZE	= 512,
	/* The value mlx4_core falls back to for log_max_bf_regs_per_page. */
	DEFAULT_BF_REGS_PER_PAGE = 8,
	MIN_BF_REG_SIZE		= 64,
	MAX_BF_REGS		= 64,
};

struct context_entry {
	struct ibv_context	*context;
	struct ibv_device	*device;
	int			cmd_fd;
	int			async_fd;
	bool			watched;	/* async_fd is watched */
	bool			is_mlx4;
	uint64_t		last_use;
	uint32_t		bf_reg_size;
	uint32_t		bf_regs_per_page;
	uint8_t			*bf_page;
	uint64_t		bf_regs_in_use;	/* bit i: register i taken */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct context_entry table[CONTEXT_TABLE_SIZE];
static uint64_t use_clock;

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

/* Layout is valid when BlueFlame is off (size 0) or leaves at least one
 * register besides libmlx4's register 0. */
static bool bf_layout_valid(uint32_t reg_size, uint32_t regs)
{
	if (reg_size == 0)
		return true;
	return mlx4dv_priv_is_pow2(reg_size) && reg_size >= MIN_BF_REG_SIZE &&
	       reg_size <= page_size() / 2 && mlx4dv_priv_is_pow2(regs) &&
	       regs >= 2;
}

static uint32_t bf_regs_cap(uint32_t reg_size, uint32_t regs)
{
	uint32_t fit;

	if (!reg_size)
		return 0;
	fit = (uint32_t)(page_size() / reg_size);
	if (regs > fit)
		regs = fit;
	return regs > MAX_BF_REGS ? MAX_BF_REGS : regs;
}

/* Parses an unsigned decimal environment value; false when absent. */
static bool env_u32(const char *name, uint32_t *out, bool *valid)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s)
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	*valid = !errno && end != s && *end == '\0' && v <= UINT32_MAX;
	*out = (uint32_t)v;
	return true;
}

/* Default layout, overridden by MLX4DV_BF_REG_SIZE and
 * MLX4DV_BF_REGS_PER_PAGE. A malformed override turns BlueFlame off
 * rather than guessing at a register. */
static void default_bf_layout(uint32_t *reg_size, uint32_t *regs)
{
	uint32_t v;
	bool ok = true, valid;

	*reg_size = DEFAULT_BF_REG_SIZE;
	*regs = DEFAULT_BF_REGS_PER_PAGE;
	if (env_u32("MLX4DV_BF_REG_SIZE", &v, &valid)) {
		ok = ok && valid;
		*reg_size = v;
	}
	if (env_u32("MLX4DV_BF_REGS_PER_PAGE", &v, &valid)) {
		ok = ok && valid;
		*regs = v;
	}
	if (!ok || !bf_layout_valid(*reg_size, *regs))
		*reg_size = 0;
	*regs = bf_regs_cap(*reg_size, *regs);
}

static bool entry_closed(const struct context_entry *e)
{
	return e->watched && !mlx4dv_priv_fd_watched(e->async_fd);
}

/* Forgets the context of an entry. A mapping still in use stays for
 * mlx4dv_priv_bf_reg_release(), which finds it by address. */
static void entry_retire(struct context_entry *e)
{
	e->context = NULL;
	e->device = NULL;
	e->watched = false;
}

static struct context_entry *find_entry(struct ibv_context *context)
{
	for (size_t i = 0; i < CONTEXT_TABLE_SIZE; i++) {
		struct context_entry *e = &table[i];

		if (e->context != context || e->device != context->device ||
		    e->cmd_fd != context->cmd_fd ||
		    e->async_fd != context->async_fd)
			continue;
		if (entry_closed(e)) {
			/* a new context where a closed one was */
			entry_retire(e);
			return NULL;
		}
		e->last_use = ++use_clock;
		return e;
	}
	return NULL;
}

/* A slot without a mapping: a free one, else one of a closed context,
 * else the least recently used. */
static struct context_entry *pick_slot(void)
{
	struct context_entry *victim = NULL;

	for (size_t i = 0; i < CONTEXT_TABLE_SIZE; i++) {
		struct context_entry *e = &table[i];

		if (e->bf_page)
			continue;
		if (!e->context || entry_closed(e))
			return e;
		if (!victim || e->last_use < victim->last_use)
			victim = e;
	}
	return victim;
}

static struct context_entry *new_entry(struct ibv_context *context)
{
	struct context_entry *e = pick_slot();

	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->context = context;
	e->device = context->device;
	e->cmd_fd = context->cmd_fd;
	e->async_fd = context->async_fd;
	e->watched = !mlx4dv_priv_fd_watch(context->async_fd);
	e->last_use = ++use_clock;
	default_bf_layout(&e->bf_reg_size, &e->bf_regs_per_page);
	return e;
}

static bool device_is_mlx4(struct ibv_device *device)
{
	char modalias[256];

	if (device->node_type != IBV_NODE_CA ||
	    device->transport_type != IBV_TRANSPORT_IB)
		return false;
	if (mlx4dv_priv_read_modalias(device, modalias, sizeof(modalias)))
		return false;
	return mlx4dv_priv_modalias_is_mlx4(modalias);
}

int mlx4dv_priv_context_check(struct ibv_context *context)
{
	struct context_entry *e;
	bool is_mlx4;

	if (!context || !context->device)
		return EINVAL;

	pthread_mutex_lock(&table_lock);
	e = find_entry(context);
	if (e) {
		is_mlx4 = e->is_mlx4;
		pthread_mutex_unlock(&table_lock);
		return is_mlx4 ? 0 : EPROTONOSUPPORT;
	}
	pthread_mutex_unlock(&table_lock);

	/* sysfs I/O outside the lock; two racing first calls agree. */
	is_mlx4 = device_is_mlx4(context->device);

	pthread_mutex_lock(&table_lock);
	e = find_entry(context);
	if (!e)
		e = new_entry(context);
	if (e)
		e->is_mlx4 = is_mlx4;
	pthread_mutex_unlock(&table_lock);
	return is_mlx4 ? 0 : EPROTONOSUPPORT;
}

int mlx4dv_priv_bf_reg_acquire(struct ibv_context *context, uint8_t **reg,
			  uint32_t *reg_size)
{
	struct context_entry *e;
	uint32_t idx;
	int ret = 0;

	pthread_mutex_lock(&table_lock);
	e = find_entry(context);
	if (!e || !e->is_mlx4) {
		ret = e ? EPROTONOSUPPORT : ENOMEM;
		goto out;
	}
	if (!e->bf_reg_size) {
		ret = ENOTSUP;
		goto out;
	}
	/* Register 0 is libmlx4's. */
	for (idx = 1; idx < e->bf_regs_per_page; idx++)
		if (!(e->bf_regs_in_use & (UINT64_C(1) << idx)))
			break;
	if (idx >= e->bf_regs_per_page) {
		ret = EBUSY;
		goto out;
	}
	if (!e->bf_page) {
		size_t ps = page_size();
		void *p = mmap(NULL, ps, PROT_WRITE, MAP_SHARED,
			       context->cmd_fd, (off_t)ps);

		if (p == MAP_FAILED) {
			ret = errno ? errno : ENODEV;
			goto out;
		}
		e->bf_page = p;
	}
	e->bf_regs_in_use |= UINT64_C(1) << idx;
	*reg = e->bf_page + (size_t)idx * e->bf_reg_size;
	*reg_size = e->bf_reg_size;
out:
	pthread_mutex_unlock(&table_lock);
	return ret;
}

void mlx4dv_priv_bf_reg_release(uint8_t *reg)
{
	size_t ps = page_size();

	if (!reg)
		return;
	pthread_mutex_lock(&table_lock);
	for (size_t i = 0; i < CONTEXT_TABLE_SIZE; i++) {
		struct context_entry *e = &table[i];
		uintptr_t off;

		if (!e->bf_page || reg < e->bf_page || reg >= e->bf_page + ps)
			continue;
		off = (uintptr_t)(reg - e->bf_page);
		e->bf_regs_in_use &= ~(UINT64_C(1) << (off / e->bf_reg_size));
		if (!e->bf_regs_in_use) {
			munmap(e->bf_page, ps);
			e->bf_page = NULL;
		}
		break;
	}
	pthread_mutex_unlock(&table_lock);
}

int mlx4dv_context_set_bf_layout(struct ibv_context *context,
				 uint32_t bf_reg_size,
				 uint32_t bf_regs_per_page)
{
	struct context_entry *e;
	uint32_t regs;
	int ret;

	if (!context || !bf_layout_valid(bf_reg_size, bf_reg_size ?
					 bf_regs_per_page : 2))
		return EINVAL;
	ret = mlx4dv_priv_context_check(context);
	if (ret)
		return ret;
	regs = bf_regs_cap(bf_reg_size, bf_regs_per_page);

	pthread_mutex_lock(&table_lock);
	e = find_entry(context);
	if (!e)
		e = new_entry(context);
	if (!e) {
		ret = ENOMEM;
	} else if (e->bf_page && (e->bf_reg_size != bf_reg_size ||
				  e->bf_regs_per_page != regs)) {
		ret = EBUSY;
	} else {
		e->is_mlx4 = true;
		e->bf_reg_size = bf_reg_size;
		e->bf_regs_per_page = regs;
	}
	pthread_mutex_unlock(&table_lock);
	return ret;
}

/* The 0.1 name (symbol version MLX4DV_0.1), kept while programs link it. */
int mlx4dv_set_blueflame_layout(struct ibv_context *context,
				uint32_t bf_reg_size,
				uint32_t bf_regs_per_page)
{
	return mlx4dv_context_set_bf_layout(context, bf_reg_size,
					    bf_regs_per_page);
}
