#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pcap_cm.sh CM_PAIR_SH MLX4EMU_RUN "EMU OPTIONS"
# A stock rping pair with the server capturing (--pcap: it sees every CM
# message, the DREP it answers the client's DREQ with too), then tshark's
# own reading of the capture is compared with what the connection did:
# the CM messages in order (ConnectRequest, ConnectReply, ReadyToUse, the
# data, DisconnectRequest, DisconnectReply), the REQ's service ID port and
# CMA header addresses as given to rping, the QPNs and starting PSNs the
# REQ and REP carry equal to the DestQP and the first PSN of the RC
# packets each side then sent, and no expert warning or malformed frame.
set -u
pair="$1"; run="$2"; opts="$3"
if ! command -v tshark >/dev/null 2>&1; then echo "tshark not installed: skipped"; exit 77; fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pcap_cm.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
CM_PAIR_SERVER_OPTS="--pcap=$dir/c.pcap" "$pair" "$run" "$opts" \
	rping -s -a @S@ -p @P@ -C 5 -V -- rping -c -a @S@ -p @P@ -C 5 -V >"$dir/pair.out" 2>&1 ||
	{ cat "$dir/pair.out"; fail "the rping pair failed"; }
tshark -r "$dir/c.pcap" 2>/dev/null >"$dir/summary"
cat "$dir/summary" | head -40
# a message the CM sent again (its timer ran out under load) and the MRA
# a repeated REQ gets count once: the exchange is what is checked
grep -o "CM: [A-Za-z]*" "$dir/summary" | grep -v MsgRcptAck | uniq | tr '\n' ' ' >"$dir/cm_seq"
echo "CM messages: $(cat "$dir/cm_seq")"
# a client that came before the server listened was rejected first
sed 's/^\(CM: ConnectRequest CM: ConnectReject \)*//' "$dir/cm_seq" |
	grep -q "^CM: ConnectRequest CM: ConnectReply CM: ReadyToUse CM: DisconnectRequest CM: DisconnectReply $" ||
	fail "CM messages out of order or missing"
grep -q "RC Send Only" "$dir/summary" || fail "no RC data in the capture"
grep -qi "malformed" "$dir/summary" && fail "tshark found a malformed frame"
tshark -r "$dir/c.pcap" -T fields -e _ws.expert.severity 2>/dev/null | grep -q . &&
	fail "tshark has expert notes on the capture"
tshark -r "$dir/c.pcap" -T fields -E separator=, -e ip.src -e infiniband.bth.opcode \
	-e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.cm.req.localqpn \
	-e infiniband.cm.req.startpsn -e infiniband.cm.rep.localqpn -e infiniband.cm.rep.startpsn \
	-e infiniband.cm.req.serviceid.dport -e infiniband.cm.req.ip_cm.sip4 \
	-e infiniband.cm.req.ip_cm.dip4 2>/dev/null >"$dir/fields"
awk -F, '
function hex(s,    i, v, c) {
	v = 0
	s = tolower(s)
	if (substr(s, 1, 2) != "0x")
		return s + 0
	for (i = 3; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
# the last REQ and the REP; then the first request packet of each side (SEND,
# WRITE or READ request: opcodes 0 to 12 of RC)
$5 != "" { client = $1; reqqpn = hex($5); reqpsn = hex($6); dport = $9; sip = $10; dip = $11; next }
$7 != "" { srv = $1; repqpn = hex($7); reppsn = hex($8); next }
srv != "" && $2 <= 12 && !(($1) in first) { first[$1] = 1; dq[$1] = hex($3); psn[$1] = $4 }
END {
	bad = 0
	if (sip != client || dip != srv) { print "CMA header addresses " sip " -> " dip; bad = 1 }
	if (dq[srv] != reqqpn) { print "server sends to QPN " dq[srv] ", the REQ named " reqqpn; bad = 1 }
	if (dq[client] != repqpn) { print "client sends to QPN " dq[client] ", the REP named " repqpn; bad = 1 }
	if (psn[client] != reqpsn) { print "client first PSN " psn[client] ", REQ " reqpsn; bad = 1 }
	if (psn[srv] != reppsn) { print "server first PSN " psn[srv] ", REP " reppsn; bad = 1 }
	printf "REQ: QPN 0x%x PSN 0x%x port %d, REP: QPN 0x%x PSN 0x%x\n", reqqpn, reqpsn, dport, repqpn, reppsn
	exit bad
}' "$dir/fields" || fail "the CM fields tshark decodes do not match the connection"
echo "PASS: tshark decodes REQ, REP, RTU, DREQ, DREP and they match the data"
