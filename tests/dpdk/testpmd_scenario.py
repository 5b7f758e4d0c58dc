#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Runs one dpdk-testpmd scenario on the software ConnectX-3 and checks
the counters testpmd prints.

usage: testpmd_scenario.py LAUNCHER PMD SCENARIO

LAUNCHER is mlx4emu-run, PMD the net_mlx4 shared object for EAL's -d.
testpmd runs interactively as a normal user would start it: no hugepages,
no shared configuration, no telemetry socket, its runtime directory
(RUNTIME_DIRECTORY) a private temporary one, so nothing is written to
/var/run/dpdk.  Every wait is bounded: a scenario that does not reach its
packet counts within WAIT_S fails, and the whole run is killed after
TOTAL_S.
"""
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
import time

WAIT_S = 60.0
TOTAL_S = float(os.environ.get("TESTPMD_TOTAL_S", "170"))
PROMPT = "testpmd> "
NUDGE_S = 10.0
# DPDK 22.11's mlx4_dev_close closes the verbs context, and with it the
# async event fd, before it unregisters that fd from the EAL interrupt
# thread: a rebuild of the thread's epoll set in between panics testpmd at
# exit ("Error adding fd N epoll_ctl").  The port events themselves are
# tested by the emulator's own tests; testpmd here reads the link state.
INTR_OPTS = ["--no-lsc-interrupt", "--no-rmv-interrupt"]


class Failure(Exception):
    pass


class Testpmd:
    instances = 0

    def __init__(self, launcher, pmd, emu_opts, pmd_opts):
        Testpmd.instances += 1
        self.nports = 2 if "--ports=2" in emu_opts else 1
        self.rundir = tempfile.mkdtemp(prefix="mlx4emu-dpdk.")
        env = dict(os.environ, RUNTIME_DIRECTORY=self.rundir)
        cpus = sorted(os.sched_getaffinity(0))
        cpuset = ",".join(str(c) for c in cpus)
        # two lcores (main, forwarding) that float over every CPU we have,
        # so that one CPU is enough and a busy machine still schedules both
        eal = ["--no-huge", "-m", "512", "--no-shconf", "--no-telemetry",
               "--file-prefix=mlx4emu%d_%d" % (os.getpid(), Testpmd.instances),
               "--lcores=(0-1)@(%s)" % cpuset, "-d", pmd]
        cmd = [launcher] + emu_opts + ["--", "dpdk-testpmd"] + eal + \
              ["--", "-i", "--total-num-mbufs=16384"] + INTR_OPTS + pmd_opts
        # a terminal, so that testpmd's output is line-buffered and each
        # command's output arrives before the next prompt
        self.master, slave = pty.openpty()
        attr = termios.tcgetattr(slave)
        attr[1] &= ~termios.ONLCR
        termios.tcsetattr(slave, termios.TCSANOW, attr)
        # (commands go through a pipe: no terminal line discipline between
        # the test and testpmd's command line)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=slave,
                                     stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.buf = ""
        self.eof = False
        self.transcript = ""	# everything since the last mark()
        self.lock = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.wait_prompt(WAIT_S)

    def _read(self):
        while True:
            try:
                chunk = os.read(self.master, 4096).decode("utf-8", "replace")
            except OSError:
                chunk = ""
            chunk = chunk.replace("\r", "")
            if not chunk and self.proc.poll() is None:
                # EIO while testpmd lives: the terminal's other side was
                # closed for a moment; keep reading
                time.sleep(0.05)
                continue
            if not chunk:
                with self.lock:
                    self.eof = True
                    self.lock.notify_all()
                return
            sys.stdout.write(chunk)
            with self.lock:
                self.buf += chunk
                self.lock.notify_all()

    def wait_prompt(self, timeout, echo=None):
        """Output up to the next prompt; with echo, the output between the
        echo of that command line and the prompt after it (prompts left
        over from earlier nudges are skipped)."""
        deadline = time.monotonic() + timeout
        nudge = time.monotonic() + NUDGE_S
        with self.lock:
            while True:
                start = 0
                if echo is not None:
                    start = self.buf.find(echo + "\n")
                if start >= 0 and PROMPT in self.buf[start:]:
                    break
                if self.eof:
                    raise Failure("testpmd exited (status %s)" % self.proc.wait())
                now = time.monotonic()
                if now > deadline:
                    raise Failure("no prompt within %.0f s" % timeout)
                if echo is not None and now > nudge:
                    # librte_cmdline 22.11 now and then leaves a validated
                    # line unexecuted until the next key: an empty line
                    # (which only prints a prompt) moves it on
                    self.send("")
                    nudge = now + NUDGE_S
                self.lock.wait(min(deadline, nudge) - now)
            if echo is not None:
                start += len(echo) + 1
            out, self.buf = self.buf[start:].split(PROMPT, 1)
        self.transcript += out
        return out

    def cmd(self, line, timeout=WAIT_S):
        sys.stdout.write("[%s]\n" % line)
        self.send(line)
        out = self.wait_prompt(timeout, echo=line)
        if re.search(r"^(Bad arguments|Invalid|Fail|fail|Error|error)|[Ff]ailed|error:", out, re.M):
            raise Failure("command '%s' failed" % line)
        return out

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def mark(self):
        """Starts a new transcript: what forwarding cores print (verbose
        packet dumps) lands between prompts, in any command's output."""
        self.transcript = ""

    def stats(self, port):
        """NIC statistics of a port: {'RX-packets': n, ...}."""
        out = self.cmd("show port stats %d" % port)
        return {k: int(v) for k, v in re.findall(r"([RT]X-[a-z]+):\s+(\d+)", out)}

    def xstats(self, port):
        out = self.cmd("show port xstats %d" % port)
        return {k: int(v) for k, v in re.findall(r"(\w+):\s+(\d+)", out)}

    def wait_rx(self, port, count):
        deadline = time.monotonic() + WAIT_S
        while True:
            st = self.stats(port)
            if st["RX-packets"] >= count:
                return st
            if time.monotonic() > deadline:
                raise Failure("port %d received %d of %d packets in %.0f s"
                              % (port, st["RX-packets"], count, WAIT_S))
            time.sleep(0.5)

    def wait_dumps(self, count):
        """Waits for `count` received-packet dumps (verbose 1) since mark().
        Commands are not sent meanwhile: a forwarding core's dump lines may
        land inside the echo of a command line and hide it from
        wait_prompt."""
        deadline = time.monotonic() + WAIT_S
        with self.lock:
            # dumps printed before the prompt of 'start' are in the transcript
            while (self.transcript + self.buf).count("Receive queue=") < count:
                if self.eof:
                    raise Failure("testpmd exited (status %s)" % self.proc.wait())
                now = time.monotonic()
                if now > deadline:
                    raise Failure("fewer than %d packet dumps in %.0f s" % (count, WAIT_S))
                self.lock.wait(deadline - now)

    def stop_forwarding(self):
        """'stop' while forwarding cores print: its output ends with
        "Done." and a prompt, whatever was printed around its echo."""
        sys.stdout.write("[stop]\n")
        self.send("stop")
        deadline = time.monotonic() + WAIT_S
        with self.lock:
            while True:
                end = self.buf.find("Done.\n")
                if end >= 0 and PROMPT in self.buf[end:]:
                    break
                if self.eof:
                    raise Failure("testpmd exited (status %s)" % self.proc.wait())
                now = time.monotonic()
                if now > deadline:
                    raise Failure("stop: no prompt within %.0f s" % WAIT_S)
                self.lock.wait(deadline - now)
            cut = self.buf.index(PROMPT, end)
            out, self.buf = self.buf[:cut], self.buf[cut + len(PROMPT):]
        self.transcript += out
        return out

    def quit(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        os.close(self.master)
        shutil.rmtree(self.rundir, ignore_errors=True)
        return self.proc.returncode


def expect(cond, what):
    if not cond:
        raise Failure(what)
    print("ok: " + what)


def fwd_stats(out):
    """Per-port forward statistics printed by 'stop'."""
    ports = {}
    for m in re.finditer(r"Forward statistics for port (\d+)\s+-+\n(.*?)\n\s+-{10}",
                         out, re.S):
        ports[int(m.group(1))] = {k: int(v) for k, v in
                                  re.findall(r"([\w-]+):\s+(\d+)", m.group(2))}
    return ports


def clean_nic(st, port, what):
    expect(st["RX-errors"] == 0 and st["RX-nombuf"] == 0 and st["TX-errors"] == 0,
           "port %d %s: no RX/TX errors, no mbuf shortage" % (port, what))


def clean_fwd(out, ports, what, dropped_ok=False):
    fs = fwd_stats(out)
    for p in ports:
        expect(p in fs and fs[p]["RX-packets"] > 0,
               "port %d %s: forwarded packets received" % (p, what))
        if not dropped_ok:
            expect(fs[p]["RX-dropped"] == 0 and fs[p]["TX-dropped"] == 0,
                   "port %d %s: nothing dropped" % (p, what))
    return fs


# MACs fixed, so that the checks and --eth-peer can name them (without
# --mac a port's MAC derives from its address, 02:c9:<address>)
MACS = "--mac=00:02:c9:0e:4d:01,00:02:c9:0e:4d:02"
PORT1_MACS = "--mac=00:02:c9:0e:4d:01"  # one port, one MAC
TWO_PORTS = ["--ports=2", "--link-layer=eth", "--cross-cable", MACS]


def io_tx_first(t):
    t.cmd("start tx_first")
    for p in (0, 1):
        t.wait_rx(p, 2000)
    out = t.cmd("stop")
    for p in (0, 1):
        clean_nic(t.stats(p), p, "io")
    clean_fwd(out, (0, 1), "io")


def io_one_port(t):
    # a single port: frames come back to the port's own receive queue
    t.cmd("start tx_first")
    t.wait_rx(0, 2000)
    clean_fwd(t.cmd("stop"), (0,), "io on one port")
    clean_nic(t.stats(0), 0, "io on one port")


def send_txonly(t, count):
    """Port 0 sends at least `count` packets in txonly mode, then stops."""
    t.cmd("set fwd txonly")
    t.cmd("start")
    deadline = time.monotonic() + WAIT_S
    while t.stats(0)["TX-packets"] < count:
        if time.monotonic() > deadline:
            raise Failure("txonly sent too little")
        time.sleep(0.5)
    t.cmd("stop")


def rxonly_dumps(t, port, what):
    """From cleared counters, rxonly with verbose dumps until 64 packets are
    dumped; returns the transcript since then, after checking that `port`
    counted no error or drop."""
    t.cmd("clear port stats all")
    t.cmd("set fwd rxonly")
    t.cmd("set verbose 1")
    t.mark()
    t.cmd("start")
    t.wait_dumps(64)
    t.stop_forwarding()
    out = t.transcript
    t.cmd("set verbose 0")
    clean_nic(t.stats(port), port, what)
    return out


def txonly_rxonly(t):
    send_txonly(t, 2000)
    st = t.stats(0)
    expect(st["TX-packets"] >= 2000 and st["TX-errors"] == 0, "txonly: sent, no errors")
    # what port 0 sent sits in port 1's receive ring until rxonly takes it
    out = rxonly_dumps(t, 1, "rxonly")
    expect("hw ptype: L2_ETHER L3_IPV4_EXT_UNKNOWN L4_UDP" in out,
           "rxonly: hardware packet type IPv4/UDP")
    expect("RTE_MBUF_F_RX_IP_CKSUM_GOOD" in out and "RTE_MBUF_F_RX_L4_CKSUM_GOOD" in out,
           "rxonly: IP and L4 checksums reported good")


def csum(t):
    t.cmd("port stop all")
    for p in (0, 1):
        t.cmd("csum set ip hw %d" % p)
        t.cmd("csum set udp hw %d" % p)
    t.cmd("port start all")
    t.cmd("set fwd csum")
    t.cmd("start tx_first")
    for p in (0, 1):
        t.wait_rx(p, 2000)
    out = t.cmd("stop")
    fs = clean_fwd(out, (0, 1), "csum")
    for p in (0, 1):
        expect(fs[p].get("Bad-ipcsum", -1) == 0 and fs[p].get("Bad-l4csum", -1) == 0,
               "port %d csum: no bad IP or L4 checksum" % p)
        clean_nic(t.stats(p), p, "csum")


def rss(t):
    # many flows (source address varies per packet) spread over 4 queues
    send_txonly(t, 2000)
    t.cmd("clear port stats all")
    t.cmd("set fwd rxonly")
    t.cmd("start")
    st = t.wait_rx(1, 512)
    t.cmd("stop")
    clean_nic(st, 1, "rss")
    xs = t.xstats(1)
    per_q = [xs.get("rx_q%d_packets" % q, 0) for q in range(4)]
    print("per-queue packets:", per_q)
    expect(all(n > 0 for n in per_q), "rss: every one of 4 queues received")
    expect(sum(per_q) == xs["rx_good_packets"], "rss: queues add up to the port")


def multiseg_scatter(t):
    # --max-pkt-len sizes the receive queues (scatter over 2176-byte mbufs)
    # but leaves the interface MTU: frames longer than 1518 bytes are
    # dropped by the port until the MTU is raised
    for p in (0, 1):
        t.cmd("port config mtu %d 9000" % p)
        expect("MTU: 9000" in t.cmd("show port info %d" % p), "port %d MTU 9000" % p)
    # three 1000-byte segments per packet, received into 2048-byte mbufs
    t.cmd("set txpkts 1000,1000,1000")
    send_txonly(t, 1000)
    clean_nic(t.stats(0), 0, "multi-segment send")
    out = rxonly_dumps(t, 1, "scattered receive")
    expect(re.search(r"length=3000 - nb_segs=2\b", out) is not None,
           "scatter: 3000-byte frames arrive in two mbufs")
    expect(re.search(r"length=(?!3000)\d+ - nb_segs", out) is None,
           "scatter: every frame arrives whole")


def restart(t):
    t.cmd("start tx_first")
    t.wait_rx(0, 500)
    t.cmd("stop")
    for rxq in (2, 1):
        t.cmd("port stop all")
        t.cmd("port config all rxq %d" % rxq)
        t.cmd("port config all txq %d" % rxq)
        t.cmd("port start all")
        t.cmd("clear port stats all")
        t.cmd("start tx_first")
        for p in (0, 1):
            t.wait_rx(p, 500)
        out = t.cmd("stop")
        clean_fwd(out, (0, 1), "after restart with %d queues" % rxq)
        for p in (0, 1):
            clean_nic(t.stats(p), p, "after restart with %d queues" % rxq)
    # one port alone, the other keeps running
    t.cmd("port stop 1")
    t.cmd("port start 1")
    t.cmd("clear port stats all")
    t.cmd("start tx_first")
    for p in (0, 1):
        t.wait_rx(p, 500)
    clean_fwd(t.cmd("stop"), (0, 1), "after port 1 restart")


def link(t):
    out = t.cmd("show port info 0")
    expect("Link status: up" in out and "Link speed: 40 Gbps" in out,
           "link: up at 40 Gbps")
    t.cmd("set link-down port 1")
    # the cable loses carrier at both ends
    for p in (0, 1):
        expect("Link status: down" in t.cmd("show port info %d" % p),
               "link: port %d down after port 1 went down" % p)
    t.cmd("set link-up port 1")
    for p in (0, 1):
        expect("Link status: up" in t.cmd("show port info %d" % p),
               "link: port %d up again" % p)
    t.cmd("start tx_first")
    for p in (0, 1):
        t.wait_rx(p, 500)
    clean_fwd(t.cmd("stop"), (0, 1), "after link down and up")


PORT1_MAC = "00:02:C9:0E:4D:02"


def rx_queues(t, port, what):
    """Receives on `port` with rxonly what port 0 sent with txonly (it
    waits in the receive rings); returns the per-queue packet counts."""
    send_txonly(t, 2000)
    t.cmd("clear port stats all")
    t.cmd("set fwd rxonly")
    t.cmd("start")
    st = t.wait_rx(port, 128)
    t.cmd("stop")
    clean_nic(st, port, what)
    xs = t.xstats(port)
    per_q = [xs.get("rx_q%d_packets" % q, 0) for q in range(4)]
    print("%s: per-queue packets:" % what, per_q)
    expect(sum(per_q) == xs["rx_good_packets"], "%s: queues add up to the port" % what)
    return per_q


def rx_nothing(t, port, what):
    """Like rx_queues, for traffic the port must not receive: rxonly polls
    for 2 s (a slow machine can only make this pass, not fail)."""
    send_txonly(t, 2000)
    t.cmd("clear port stats all")
    t.cmd("set fwd rxonly")
    t.cmd("start")
    for _ in range(4):
        time.sleep(0.5)
        st = t.stats(port)
    t.cmd("stop")
    clean_nic(st, port, what)
    expect(st["RX-packets"] == 0, "%s: nothing received" % what)


def create_rule(t, line, what):
    expect(re.search(r"Flow rule #\d+ created", t.cmd(line)) is not None,
           "flow: %s created" % what)


def flow(t):
    # port 0 sends many flows (the source address varies) to port 1's MAC,
    # UDP port 9: a rule on that port takes all of them to queue 1 alone
    eth_ip = "flow create 1 %%s ingress pattern eth dst is %s / ipv4 / " % PORT1_MAC
    udp9 = eth_ip % "priority 0" + "udp dst is 9 / end actions %s / end"
    create_rule(t, udp9 % "queue index 1", "rule 0, UDP port 9 to queue 1")
    per_q = rx_queues(t, 1, "flow udp 9")
    expect(per_q[1] > 0 and per_q[0] == per_q[2] == per_q[3] == 0,
           "flow: every packet to UDP port 9 on queue 1, none elsewhere")
    # a rule of lower priority (1) matching the same frames takes nothing
    # until the better one goes
    create_rule(t, eth_ip % "priority 1" + "end actions queue index 2 / end",
                "rule 1, priority 1, IPv4 to queue 2")
    per_q = rx_queues(t, 1, "flow two rules")
    expect(per_q[1] > 0 and per_q[0] == per_q[2] == per_q[3] == 0,
           "flow: priority 0 beats priority 1, queue 1 alone")
    t.cmd("flow destroy 1 rule 0")
    per_q = rx_queues(t, 1, "flow priority 1 alone")
    expect(per_q[2] > 0 and per_q[0] == per_q[1] == per_q[3] == 0,
           "flow: rule 0 destroyed, queue 2 alone")
    # the driver's drop queue (a raw QP never made ready) takes them away
    # from the priority 1 rule
    create_rule(t, udp9 % "drop", "drop rule, UDP port 9")
    rx_nothing(t, 1, "flow drop")
    # a rule for another port takes nothing: RSS spreads the frames again
    t.cmd("flow flush 1")
    create_rule(t, eth_ip % "priority 0" + "udp dst is 10 / end actions queue index 1 / end",
                "rule on UDP port 10")
    per_q = rx_queues(t, 1, "flow udp 10")
    expect(all(n > 0 for n in per_q), "flow: no match, every one of 4 queues received")

def port_mac(t):
    """The MAC testpmd shows for port 0."""
    m = re.search(r"^0\s+([0-9A-F:]{17})\s+mlx4_0 port 1", t.cmd("show port summary all"), re.M)
    if not m:
        raise Failure("no MAC for port 0")
    return m.group(1)


WIRE_LINE = re.compile(r"mlx4emu: port 1 Ethernet over the wire: (\d+) frames sent, (\d+) "
                       r"received; lost: (\d+) on send, (\d+) receive buffer overflow, "
                       r"(\d+) not taken, (\d+) no receive WQE")


def wire_losses(out):
    """(lost on send, lost on receive) from the device's exit line, which
    it prints when the port lost frames it exchanged over the wire."""
    m = WIRE_LINE.search(out)
    if not m:
        return 0, 0
    v = [int(x) for x in m.groups()]
    return v[2], v[3] + v[4] + v[5]


def wire(t):
    """Two adapters on the wire: this testpmd receives (rxonly) what a
    second one, another process, sends to its MAC (txonly, --eth-peer).
    Every frame sent is received or counted lost by a device."""
    mac = port_mac(t)
    expect(mac.startswith("02:C9:"), "port 0's MAC derives from its address: " + mac)
    tx = Testpmd(t.launcher, t.pmd, ["--link-layer=eth"], ["--eth-peer=0," + mac])
    timer = threading.Timer(TOTAL_S, tx.proc.kill)
    timer.start()
    try:
        expect(port_mac(tx) != mac, "the sender's port has a MAC of its own")
        t.cmd("set fwd rxonly")
        t.cmd("start")
        send_txonly(tx, 20000)
        sent = tx.stats(0)
        expect(sent["TX-errors"] == 0, "txonly: %d sent, no errors" % sent["TX-packets"])
        # in flight: wait until the receiver's count stands still
        deadline = time.monotonic() + WAIT_S
        last = -1
        while True:
            got = t.stats(0)["RX-packets"]
            if got == last or got >= sent["TX-packets"] or time.monotonic() > deadline:
                break
            last = got
            time.sleep(1.0)
        t.stop_forwarding()
        got = t.stats(0)
        clean_nic(got, 0, "rxonly from another adapter")
    finally:
        tx.quit()
        timer.cancel()
    tx_lost, _ = wire_losses(tx.buf)
    expect(got["RX-packets"] > 0, "rxonly: %d received over the wire" % got["RX-packets"])

    def after_exit(out):
        # the receiver's device reports its losses at exit
        _, rx_lost = wire_losses(out)
        expect(got["RX-packets"] + tx_lost + rx_lost == sent["TX-packets"],
               "every frame received or counted lost (%d received, %d lost on send, %d on "
               "receive, of %d)" % (got["RX-packets"], tx_lost, rx_lost, sent["TX-packets"]))
    return after_exit


SCENARIOS = {
    "io": (TWO_PORTS, [], io_tx_first),
    "io_2q": (TWO_PORTS, ["--rxq=2", "--txq=2"], io_tx_first),
    "io_one_port": (["--link-layer=eth", PORT1_MACS], [], io_one_port),
    "txonly_rxonly": (TWO_PORTS, ["--enable-rx-cksum"], txonly_rxonly),
    "csum": (TWO_PORTS, ["--enable-rx-cksum"], csum),
    "rss": (TWO_PORTS, ["--rxq=4", "--txq=4", "--txonly-multi-flow"], rss),
    "multiseg_scatter": (TWO_PORTS, ["--enable-scatter", "--mbuf-size=2176", "--max-pkt-len=9018",
                                     "--tx-offloads=0x8000"], multiseg_scatter),
    "flow": (TWO_PORTS, ["--rxq=4", "--txq=4", "--txonly-multi-flow",
                         "--eth-peer=0,%s" % PORT1_MAC], flow),
    "restart": (TWO_PORTS, [], restart),
    "link": (TWO_PORTS, [], link),
    "wire": (["--link-layer=eth"], [], wire),
}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in SCENARIOS:
        sys.exit("usage: testpmd_scenario.py LAUNCHER PMD {%s}" % "|".join(SCENARIOS))
    launcher, pmd, name = sys.argv[1:]
    emu_opts, pmd_opts, run = SCENARIOS[name]
    timer = None
    t = Testpmd(launcher, pmd, emu_opts, pmd_opts)
    t.launcher, t.pmd = launcher, pmd
    timer = threading.Timer(TOTAL_S, t.proc.kill)
    timer.start()
    try:
        out = t.cmd("show port summary all")
        if MACS in emu_opts or PORT1_MACS in emu_opts:
            expect(re.search(r"^0\s+00:02:C9:0E:4D:01\s+mlx4_0 port 1", out, re.M)
                   is not None, "port 0 is mlx4_0 port 1 with its MAC")
        after_exit = run(t)
    except Failure as e:
        print("FAIL: %s" % e)
        t.quit()
        timer.cancel()
        return 1
    rc = t.quit()
    timer.cancel()
    if rc != 0:
        print("FAIL: testpmd exit status %d" % rc)
        return 1
    try:
        if after_exit:
            after_exit(t.buf)
    except Failure as e:
        print("FAIL: %s" % e)
        return 1
    print("PASS: %s" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
