// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Every RC opcode through libmlx4's ibv_post_send, checked end to end:
 * payload at the receiver, completion opcode, length, immediate, QPNs.
 * Expected values come from the request itself (what was sent), never
 * from the emulator.
 */
#include "emu_test.h"

#include <string.h>
#include "test_exit.h"

struct pair {
	struct emu_env e;
	struct emu_qp a, b;
};

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));
	int acc = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE;

	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->a, IBV_QPT_RC, 64, 64, 256, 1 << 16, NULL);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, 64, 64, 256, 1 << 16, NULL);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, acc);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, acc);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
	free(p);
	return 0;
}

static void send_recv(struct pair *p, enum ibv_wr_opcode opcode, int inline_data,
		      uint32_t len, int nsge)
{
	struct ibv_sge sge[4];
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint32_t per = nsge ? len / (uint32_t)nsge : 0;

	memset(p->b.buf, 0xee, 8192);
	emu_fill(p->a.buf, len, len + (uint32_t)opcode);
	emu_post_recv(p->b.qp, 0x1000 + len, p->b.buf, 8192, p->b.mr->lkey);
	memset(&wr, 0, sizeof(wr));
	for (int i = 0; i < nsge; i++) {
		sge[i].addr = (uintptr_t)p->a.buf + (uint32_t)i * per;
		sge[i].length = i == nsge - 1 ? len - (uint32_t)i * per : per;
		sge[i].lkey = p->a.mr->lkey;
	}
	wr.wr_id = 0x2000 + len;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED | (inline_data ? IBV_SEND_INLINE : 0);
	wr.imm_data = htobe32(0xabcd0000 + len);
	assert_int_equal(emu_post_send(p->a.qp, &wr), 0);

	wc = emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x2000 + len);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	assert_int_equal(wc.qp_num, p->a.qp->qp_num);

	wc = emu_poll_one(p->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x1000 + len);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, len);
	assert_int_equal(wc.qp_num, p->b.qp->qp_num);
	assert_int_equal(wc.src_qp, p->a.qp->qp_num);
	if (opcode == IBV_WR_SEND_WITH_IMM) {
		assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
		assert_int_equal(be32toh(wc.imm_data), 0xabcd0000 + len);
	} else {
		assert_false(wc.wc_flags & IBV_WC_WITH_IMM);
	}
	assert_memory_equal(p->b.buf, p->a.buf, len);
	/* nothing written past the message */
	assert_int_equal(p->b.buf[len], 0xee);
}

static void test_send(void **state)
{
	struct pair *p = *state;
	static const uint32_t lens[] = { 1, 15, 16, 64, 100, 1024, 4096, 8000 };

	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		send_recv(p, IBV_WR_SEND, 0, lens[i], 1);
		send_recv(p, IBV_WR_SEND_WITH_IMM, 0, lens[i], 1);
	}
}

static void test_send_gather(void **state)
{
	struct pair *p = *state;

	send_recv(p, IBV_WR_SEND, 0, 4000, 4);
	send_recv(p, IBV_WR_SEND_WITH_IMM, 0, 333, 3);
	send_recv(p, IBV_WR_SEND, 0, 2, 2);
}

static void test_send_inline(void **state)
{
	struct pair *p = *state;

	/* sizes around the 64-byte inline segment boundaries */
	for (uint32_t len = 1; len <= 64; len += 7)
		send_recv(p, IBV_WR_SEND, 1, len, 1);
	send_recv(p, IBV_WR_SEND, 1, 28, 1);
	send_recv(p, IBV_WR_SEND, 1, 29, 1);
	send_recv(p, IBV_WR_SEND, 1, 60, 2);
	send_recv(p, IBV_WR_SEND_WITH_IMM, 1, 64, 3);
}

static void test_send_zero_length(void **state)
{
	struct pair *p = *state;

	send_recv(p, IBV_WR_SEND, 0, 0, 0);
	send_recv(p, IBV_WR_SEND_WITH_IMM, 0, 0, 0);
}

static void test_scatter_several(void **state)
{
	struct pair *p = *state;
	struct ibv_sge rs[3], ss = { (uintptr_t)p->a.buf, 300, p->a.mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = rs, .num_sge = 3 }, *rbad;
	struct ibv_send_wr wr = { .wr_id = 8, .sg_list = &ss, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	emu_fill(p->a.buf, 300, 9);
	memset(p->b.buf, 0, 4096);
	rs[0] = (struct ibv_sge){ (uintptr_t)p->b.buf + 1000, 100, p->b.mr->lkey };
	rs[1] = (struct ibv_sge){ (uintptr_t)p->b.buf + 2000, 50, p->b.mr->lkey };
	rs[2] = (struct ibv_sge){ (uintptr_t)p->b.buf + 3000, 500, p->b.mr->lkey };
	assert_int_equal(ibv_post_recv(p->b.qp, &rwr, &rbad), 0);
	assert_int_equal(emu_post_send(p->a.qp, &wr), 0);
	emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(p->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 300);
	assert_memory_equal(p->b.buf + 1000, p->a.buf, 100);
	assert_memory_equal(p->b.buf + 2000, p->a.buf + 100, 50);
	assert_memory_equal(p->b.buf + 3000, p->a.buf + 150, 150);
}

static void rdma(struct pair *p, enum ibv_wr_opcode op, uint32_t len, int inl)
{
	struct ibv_sge sge = { (uintptr_t)p->a.buf, len, p->a.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htobe32(0x1234567);
	wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf + 512;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	assert_int_equal(emu_post_send(p->a.qp, &wr), 0);
	wc = emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x77);
	assert_int_equal(wc.opcode, op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
				    IBV_WC_RDMA_WRITE);
	if (op == IBV_WR_RDMA_READ)
		assert_int_equal(wc.byte_len, len);
}

static void test_rdma_write(void **state)
{
	struct pair *p = *state;

	for (uint32_t len = 1; len <= 8192; len *= 3) {
		memset(p->b.buf, 0, 16384);
		emu_fill(p->a.buf, len, len);
		rdma(p, IBV_WR_RDMA_WRITE, len, 0);
		assert_memory_equal(p->b.buf + 512, p->a.buf, len);
		assert_int_equal(p->b.buf[511], 0);
		assert_int_equal(p->b.buf[512 + len], 0);
	}
	memset(p->b.buf, 0, 1024);
	emu_fill(p->a.buf, 40, 3);
	rdma(p, IBV_WR_RDMA_WRITE, 40, 1);
	assert_memory_equal(p->b.buf + 512, p->a.buf, 40);
	emu_assert_cq_empty(&p->e, p->b.rcq);
}

static void test_rdma_write_imm(void **state)
{
	struct pair *p = *state;
	struct ibv_wc wc;

	emu_post_recv(p->b.qp, 0x55, p->b.buf + 8192, 64, p->b.mr->lkey);
	emu_fill(p->a.buf, 777, 5);
	rdma(p, IBV_WR_RDMA_WRITE_WITH_IMM, 777, 0);
	wc = emu_poll_one(p->b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 0x55);
	assert_int_equal(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc.byte_len, 777);
	assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
	assert_int_equal(be32toh(wc.imm_data), 0x1234567);
	assert_memory_equal(p->b.buf + 512, p->a.buf, 777);
}

static void test_rdma_read(void **state)
{
	struct pair *p = *state;

	for (uint32_t len = 1; len <= 8192; len *= 5) {
		emu_fill(p->b.buf + 512, len, len + 1);
		memset(p->a.buf, 0, len + 1);
		rdma(p, IBV_WR_RDMA_READ, len, 0);
		assert_memory_equal(p->a.buf, p->b.buf + 512, len);
		assert_int_equal(p->a.buf[len], 0);
	}
}

static uint64_t atomic_op(struct pair *p, enum ibv_wr_opcode op, uint64_t cmp_add,
			  uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint64_t old;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x99;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)p->b.buf + 64;
	wr.wr.atomic.rkey = p->b.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	assert_int_equal(emu_post_send(p->a.qp, &wr), 0);
	wc = emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, op == IBV_WR_ATOMIC_CMP_AND_SWP ?
				    IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD);
	assert_int_equal(wc.byte_len, 8);
	memcpy(&old, p->a.buf, 8);
	return old;
}

static void test_atomics(void **state)
{
	struct pair *p = *state;
	uint64_t v = 0x1122334455667788ull, now;

	memcpy(p->b.buf + 64, &v, 8);
	/* compare fails: value unchanged, old value returned */
	assert_true(atomic_op(p, IBV_WR_ATOMIC_CMP_AND_SWP, 5, 6) == v);
	memcpy(&now, p->b.buf + 64, 8);
	assert_true(now == v);
	/* compare matches: swapped */
	assert_true(atomic_op(p, IBV_WR_ATOMIC_CMP_AND_SWP, v, 42) == v);
	memcpy(&now, p->b.buf + 64, 8);
	assert_true(now == 42);
	assert_true(atomic_op(p, IBV_WR_ATOMIC_FETCH_AND_ADD, 100, 0) == 42);
	assert_true(atomic_op(p, IBV_WR_ATOMIC_FETCH_AND_ADD, ~0ull, 0) == 142);
	memcpy(&now, p->b.buf + 64, 8);
	assert_true(now == 141);
}

static void test_unsignaled(void **state)
{
	struct pair *p = *state;
	struct ibv_sge sge = { (uintptr_t)p->a.buf, 8, p->a.mr->lkey };
	struct ibv_send_wr wr[8];
	struct ibv_wc wc;

	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 8; i++) {
		wr[i].wr_id = 500 + (uint64_t)i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].wr.rdma.remote_addr = (uintptr_t)p->b.buf;
		wr[i].wr.rdma.rkey = p->b.mr->rkey;
		wr[i].next = i < 7 ? &wr[i + 1] : NULL;
	}
	wr[7].send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(emu_post_send(p->a.qp, wr), 0);
	wc = emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 507);
	emu_assert_cq_empty(&p->e, p->a.scq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send),
		cmocka_unit_test(test_send_gather),
		cmocka_unit_test(test_send_inline),
		cmocka_unit_test(test_send_zero_length),
		cmocka_unit_test(test_scatter_several),
		cmocka_unit_test(test_rdma_write),
		cmocka_unit_test(test_rdma_write_imm),
		cmocka_unit_test(test_rdma_read),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_unsignaled),
	};

	t_run_group_tests(tests, setup, teardown);
	return t_exit();
}
