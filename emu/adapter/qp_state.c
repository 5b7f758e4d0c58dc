// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "adapter/qp_state.h"

#include <errno.h>
#include <stdbool.h>

#include "adapter/adapter.h"

enum {
	M_STATE = 1 << 0, M_CUR_STATE = 1 << 1, M_EN_SQD = 1 << 2,
	M_ACCESS = 1 << 3, M_PKEY = 1 << 4, M_PORT = 1 << 5, M_QKEY = 1 << 6,
	M_AV = 1 << 7, M_MTU = 1 << 8, M_TIMEOUT = 1 << 9, M_RETRY = 1 << 10,
	M_RNR_RETRY = 1 << 11, M_RQ_PSN = 1 << 12, M_RD_ATOMIC = 1 << 13,
	M_ALT_PATH = 1 << 14, M_MIN_RNR = 1 << 15, M_SQ_PSN = 1 << 16,
	M_DEST_RD_ATOMIC = 1 << 17, M_MIG = 1 << 18, M_CAP = 1 << 19,
	M_DEST_QPN = 1 << 20, M_RATE_LIMIT = 1 << 25,
};

/* transport column of the table; XINI/XTGT: XRC initiator and target */
enum { T_UD, T_UC, T_RC, T_RAW, T_XINI, T_XTGT, T_N };

struct rule {
	bool valid;
	uint32_t req[T_N];
	uint32_t opt[T_N];
};

#define S(x) EMU_QPS_##x

static const struct rule rules[7][7] = {
	[S(RESET)][S(RESET)] = { true, { 0 }, { 0 } },
	[S(RESET)][S(INIT)] = { true,
		{ [T_UD] = M_PKEY | M_PORT | M_QKEY,
		  [T_UC] = M_PKEY | M_PORT | M_ACCESS,
		  [T_RC] = M_PKEY | M_PORT | M_ACCESS,
		  [T_RAW] = M_PORT,
		  [T_XINI] = M_PKEY | M_PORT | M_ACCESS,
		  [T_XTGT] = M_PKEY | M_PORT | M_ACCESS },
		{ 0 } },
	[S(INIT)][S(INIT)] = { true, { 0 },
		{ [T_UD] = M_PKEY | M_PORT | M_QKEY,
		  [T_UC] = M_PKEY | M_PORT | M_ACCESS,
		  [T_RC] = M_PKEY | M_PORT | M_ACCESS,
		  [T_RAW] = M_PORT,
		  [T_XINI] = M_PKEY | M_PORT | M_ACCESS,
		  [T_XTGT] = M_PKEY | M_PORT | M_ACCESS } },
	[S(INIT)][S(RTR)] = { true,
		{ [T_UC] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN,
		  [T_RC] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN |
			   M_DEST_RD_ATOMIC | M_MIN_RNR,
		  [T_XINI] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN,
		  [T_XTGT] = M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN |
			     M_DEST_RD_ATOMIC | M_MIN_RNR },
		{ [T_UD] = M_PKEY | M_QKEY,
		  [T_UC] = M_ALT_PATH | M_ACCESS | M_PKEY,
		  [T_RC] = M_ALT_PATH | M_ACCESS | M_PKEY,
		  [T_XINI] = M_ALT_PATH | M_ACCESS | M_PKEY,
		  [T_XTGT] = M_ALT_PATH | M_ACCESS | M_PKEY } },
	[S(RTR)][S(RTS)] = { true,
		{ [T_UD] = M_SQ_PSN, [T_UC] = M_SQ_PSN,
		  [T_RC] = M_TIMEOUT | M_RETRY | M_RNR_RETRY | M_SQ_PSN |
			   M_RD_ATOMIC,
		  [T_XINI] = M_TIMEOUT | M_RETRY | M_RNR_RETRY | M_SQ_PSN |
			     M_RD_ATOMIC,
		  [T_XTGT] = M_TIMEOUT | M_SQ_PSN },
		{ [T_UD] = M_CUR_STATE | M_QKEY,
		  [T_UC] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIG,
		  [T_RC] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIN_RNR | M_MIG,
		  [T_RAW] = M_RATE_LIMIT,
		  [T_XINI] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIG,
		  [T_XTGT] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIN_RNR | M_MIG } },
	[S(RTS)][S(RTS)] = { true, { 0 },
		{ [T_UD] = M_CUR_STATE | M_QKEY,
		  [T_UC] = M_CUR_STATE | M_ACCESS | M_ALT_PATH | M_MIG,
		  [T_RC] = M_CUR_STATE | M_ACCESS | M_ALT_PATH | M_MIG | M_MIN_RNR,
		  [T_RAW] = M_RATE_LIMIT,
		  [T_XINI] = M_CUR_STATE | M_ACCESS | M_ALT_PATH | M_MIG,
		  [T_XTGT] = M_CUR_STATE | M_ACCESS | M_ALT_PATH | M_MIG | M_MIN_RNR } },
	[S(RTS)][S(SQD)] = { true, { 0 },
		{ [T_UD] = M_EN_SQD, [T_UC] = M_EN_SQD, [T_RC] = M_EN_SQD,
		  [T_RAW] = M_EN_SQD, [T_XINI] = M_EN_SQD, [T_XTGT] = M_EN_SQD } },
	[S(SQD)][S(RTS)] = { true, { 0 },
		{ [T_UD] = M_CUR_STATE | M_QKEY,
		  [T_UC] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIG,
		  [T_RC] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIN_RNR | M_MIG,
		  [T_XINI] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIG,
		  [T_XTGT] = M_CUR_STATE | M_ALT_PATH | M_ACCESS | M_MIN_RNR | M_MIG } },
	[S(SQD)][S(SQD)] = { true, { 0 },
		{ [T_UD] = M_PKEY | M_QKEY,
		  [T_UC] = M_AV | M_ALT_PATH | M_ACCESS | M_PKEY | M_MIG,
		  [T_RC] = M_PORT | M_AV | M_TIMEOUT | M_RETRY | M_RNR_RETRY |
			   M_RD_ATOMIC | M_DEST_RD_ATOMIC | M_ALT_PATH | M_ACCESS |
			   M_PKEY | M_MIN_RNR | M_MIG,
		  [T_XINI] = M_PORT | M_AV | M_TIMEOUT | M_RETRY | M_RNR_RETRY |
			     M_RD_ATOMIC | M_ALT_PATH | M_ACCESS | M_PKEY | M_MIG,
		  [T_XTGT] = M_PORT | M_AV | M_TIMEOUT | M_DEST_RD_ATOMIC |
			     M_ALT_PATH | M_ACCESS | M_PKEY | M_MIN_RNR | M_MIG } },
	[S(SQE)][S(RTS)] = { true, { 0 },
		{ [T_UD] = M_CUR_STATE | M_QKEY,
		  [T_UC] = M_CUR_STATE | M_ACCESS } },
};

static int transport(uint8_t qp_type)
{
	switch (qp_type) {
	case EMU_QPT_UD: return T_UD;
	case EMU_QPT_UC: return T_UC;
	case EMU_QPT_RC: return T_RC;
	case EMU_QPT_XRC_INI: return T_XINI;
	case EMU_QPT_XRC_TGT: return T_XTGT;
	default: return T_RAW;
	}
}

int emu_qp_transition_ok(uint8_t qp_type, int cur, int next, uint32_t mask)
{
	const struct rule *r;
	int t = transport(qp_type);

	if (cur < S(RESET) || cur > S(ERR) || next < S(RESET) || next > S(ERR))
		return EINVAL;
	if ((mask & M_CUR_STATE) && cur != S(RTS) && cur != S(SQD) && cur != S(SQE))
		return EINVAL;
	/* every state may go to RESET or ERR, with no other attribute */
	if (next == S(RESET) || next == S(ERR))
		return (mask & ~(uint32_t)(M_STATE | M_CUR_STATE)) ? EINVAL : 0;
	r = &rules[cur][next];
	if (!r->valid)
		return EINVAL;
	if ((mask & r->req[t]) != r->req[t])
		return EINVAL;
	if (mask & ~(r->req[t] | r->opt[t] | M_STATE))
		return EINVAL;
	return 0;
}
