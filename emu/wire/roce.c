// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Which extended headers follow the BTH, by opcode (IBTA Vol. 1 table 38). */
#include "wire/roce.h"

int emu_roce_ext_len(uint8_t opcode)
{
	uint8_t tr = opcode & 0xe0, op = opcode & 0x1f;

	if (tr == EMU_TR_UD)
		return op == EMU_BOP_SEND_ONLY ? EMU_DETH_BYTES :
		       op == EMU_BOP_SEND_ONLY_IMM ? EMU_DETH_BYTES + EMU_IMMDT_BYTES : -1;
	if (tr != EMU_TR_RC && tr != EMU_TR_UC)
		return -1;
	switch (op) {
	case EMU_BOP_SEND_FIRST:
	case EMU_BOP_SEND_MIDDLE:
	case EMU_BOP_SEND_LAST:
	case EMU_BOP_SEND_ONLY:
	case EMU_BOP_WRITE_MIDDLE:
	case EMU_BOP_WRITE_LAST:
		return 0;
	case EMU_BOP_SEND_LAST_IMM:
	case EMU_BOP_SEND_ONLY_IMM:
	case EMU_BOP_WRITE_LAST_IMM:
		return EMU_IMMDT_BYTES;
	case EMU_BOP_WRITE_FIRST:
	case EMU_BOP_WRITE_ONLY:
		return EMU_RETH_BYTES;
	case EMU_BOP_WRITE_ONLY_IMM:
		return EMU_RETH_BYTES + EMU_IMMDT_BYTES;
	default:
		break;
	}
	if (tr != EMU_TR_RC)
		return -1;
	switch (op) {
	case EMU_BOP_READ_REQUEST:
		return EMU_RETH_BYTES;
	case EMU_BOP_READ_RESP_FIRST:
	case EMU_BOP_READ_RESP_LAST:
	case EMU_BOP_READ_RESP_ONLY:
	case EMU_BOP_ACK:
		return EMU_AETH_BYTES;
	case EMU_BOP_READ_RESP_MIDDLE:
		return 0;
	case EMU_BOP_ATOMIC_ACK:
		return EMU_AETH_BYTES + EMU_ATOMIC_ACK_ETH_BYTES;
	case EMU_BOP_CMP_SWAP:
	case EMU_BOP_FETCH_ADD:
		return EMU_ATOMIC_ETH_BYTES;
	case EMU_BOP_SEND_LAST_INV:
	case EMU_BOP_SEND_ONLY_INV:
		return EMU_IETH_BYTES;
	default:
		return -1;
	}
}
