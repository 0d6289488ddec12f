"""The traffic of a testbed run: one process per socket end, inside a node's namespace.

``sink`` accepts one connection, reads everything and samples the bytes received every
interval (the receiver-side goodput the simulator reports), and closes once the controller
has taken its last sample (a line on stdin); ``send`` connects at the flow's
start with the flow's congestion control and sends until its stop (bulk) or its size
(transfer); ``psend`` opens a new connection every period and sends the flow's size on
it, and ``psink`` receives on every connection at once (periodic). ``udpsend`` sends
datagrams of the flow's size at its rate, each stamped with its sequence number and send
time, and ``udpsink`` counts them and their one-way delays (one clock: every namespace is on
the same machine). ``ping`` sends ICMP echo requests of the
flow's size every interval and records each reply's round-trip time (the destination's
kernel answers).

Times are nanoseconds of CLOCK_MONOTONIC relative to the run's epoch, which every process of
the machine shares: an agent prints ``ready`` once set up and then reads the epoch from its
standard input, so that slow starts of the agents do not eat into the run. Each agent dies
with the controller (PR_SET_PDEATHSIG), so a killed run leaves no traffic behind; each writes
its record as JSON to ``--out``. A record says how far the agent can be trusted: every
interval sample carries how late it was taken, and ``sched`` the CPU the agent used and the
time it waited for a CPU while runnable, from the epoch to its end (the kernel's schedstat).

An agent needs the standard library only: it enters its namespace with setns(2) through
ctypes, since importing pyroute2 for that cost each agent 0.3 s of CPU and 23 MB.

Run as ``python .../agent.py ROLE --parent PID ...`` by :mod:`airlab.testbed.run`.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any, TypedDict

PR_SET_PDEATHSIG = 1
CLONE_NEWNET = 0x40000000
CHUNK = 1 << 16


_LIBC = ctypes.CDLL(None, use_errno=True)


def _die_with_parent(parent: int) -> None:
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the controller died before the call (we were reparented)
        sys.exit(1)


def _enter(netns: str) -> None:
    """Move this process into the network namespace bound at path ``netns``."""
    fd = os.open(netns, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if _LIBC.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns: {os.strerror(err)}", netns)
    finally:
        os.close(fd)


def _schedstat() -> tuple[int, int]:
    """(ns on a CPU, ns runnable but waiting for one) of this single-threaded process."""
    with open("/proc/self/schedstat") as f:
        on_cpu, waited, _ = f.read().split()
    return int(on_cpu), int(waited)


def _now(epoch: int) -> int:
    return time.monotonic_ns() - epoch


def _sleep_until(epoch: int, t: int) -> None:
    delay = (t - _now(epoch)) / 1e9
    if delay > 0:
        time.sleep(delay)


def _sample(
    args: argparse.Namespace, total: Callable[[], int], receive: Callable[[float], bool]
) -> list[tuple[int, int, int]]:
    """(boundary, the running ``total()``, how late it was read) at every interval boundary up
    to ``--until``. In between, ``receive(timeout_s)`` takes what arrives and returns False
    once nothing more will; the remaining boundaries then all see the final total. A process
    kept off the CPU reads its boundaries late: the lateness lets the controller tell."""
    samples: list[tuple[int, int, int]] = []
    next_sample, more = args.interval, True
    while next_sample <= args.until:
        now = _now(args.epoch)
        if more and now < next_sample:
            more = receive(max(next_sample - now, 1_000) / 1e9)
            continue
        samples.append((next_sample, total(), max(0, _now(args.epoch) - next_sample)))
        next_sample += args.interval
    return samples


def sink(args: argparse.Namespace) -> dict[str, Any]:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.addr, args.port))
    srv.listen(1)
    args.epoch = _await_epoch()
    conn, _ = srv.accept()
    accepted = _now(args.epoch)
    got: _Received = {"bytes": 0, "last_byte_ns": None}

    def receive(timeout: float) -> bool:
        conn.settimeout(timeout)
        try:
            data = conn.recv(CHUNK)
        except (TimeoutError, InterruptedError):
            return True
        if not data:  # the sender closed
            return False
        got["bytes"] += len(data)
        got["last_byte_ns"] = _now(args.epoch)
        return True

    samples = _sample(args, lambda: got["bytes"], receive)
    # Closing with data unread would reset the sender's connection, which then vanishes from
    # the controller's tcp_info dump: wait until it has taken the run's last sample.
    sys.stdin.readline()
    return {"accepted_ns": accepted, **got, "samples": samples}


class _Received(TypedDict):
    """What ``sink`` has read so far."""

    bytes: int
    last_byte_ns: int | None


def _socket_of(key: selectors.SelectorKey) -> socket.socket:
    """The socket a selector ``key`` watches: this module registers sockets only."""
    s = key.fileobj
    if not isinstance(s, socket.socket):
        raise TypeError(f"a selector watches {s!r}, not a socket")
    return s


def _marked(s: socket.socket, tos: int) -> socket.socket:
    """``s`` with its packets' TOS byte set (a flow's DSCP << 2)."""
    if tos:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    return s


#: The schedstat reading at the epoch, and the epoch (the window of the record's ``sched``).
_SCHED: dict[str, Any] = {}


def _await_epoch() -> int:
    """Say ``ready``, then wait for the run's epoch; the CPU accounting starts there."""
    print("ready", flush=True)
    epoch = int(sys.stdin.readline())
    _SCHED["start"] = _schedstat()
    _SCHED["epoch"] = epoch
    return epoch


def send(args: argparse.Namespace) -> dict[str, Any]:
    args.epoch = _await_epoch()
    _sleep_until(args.epoch, args.start)
    s = _marked(socket.socket(socket.AF_INET, socket.SOCK_STREAM), args.tos)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
    started = _now(args.epoch)
    s.connect((args.dst, args.port))
    s.settimeout(0.05)
    chunk = b"\0" * CHUNK
    left = args.size if args.size is not None else None
    sent = 0
    while _now(args.epoch) < args.stop and (left is None or left > 0):
        n = CHUNK if left is None else min(CHUNK, left)
        try:
            k = s.send(chunk[:n])
        except TimeoutError:
            continue
        except OSError:  # the receiver closed at the end of the run
            break
        sent += k
        if left is not None:
            left -= k
    s.close()
    return {"started_ns": started, "bytes_sent": sent, "complete": left in (None, 0)}


def psend(args: argparse.Namespace) -> dict[str, Any]:
    """A connection every ``--interval`` from ``--start`` until ``--stop``, each sending
    ``--size`` bytes and closing; connections overlap when one outlasts the period."""
    args.epoch = _await_epoch()
    sel = selectors.DefaultSelector()
    conns: list[dict[str, Any]] = []
    left: dict[socket.socket, int] = {}
    chunk = b"\0" * CHUNK
    next_open = args.start
    while next_open < args.stop or left:
        now = _now(args.epoch)
        if next_open < args.stop and now >= next_open:
            s = _marked(socket.socket(socket.AF_INET, socket.SOCK_STREAM), args.tos)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
            s.setblocking(False)
            started = _now(args.epoch)
            with contextlib.suppress(BlockingIOError):
                s.connect((args.dst, args.port))
            conns.append({"port": s.getsockname()[1], "started_ns": started})
            left[s] = args.size
            sel.register(s, selectors.EVENT_WRITE)
            next_open += args.interval
            continue
        wait = (next_open - now) / 1e9 if next_open < args.stop else 0.1
        for key, _ in sel.select(timeout=max(wait, 0)):
            s = _socket_of(key)
            try:
                sent = s.send(chunk[: min(CHUNK, left[s])])
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:  # refused or reset: the connection is over, incomplete
                sent, left[s] = 0, 0
            left[s] -= sent
            if left[s] <= 0:
                sel.unregister(s)
                del left[s]
                s.close()
    return {"connections": conns}


def psink(args: argparse.Namespace) -> dict[str, Any]:
    """Every connection's bytes and last byte time (by the sender's port), and the bytes of
    all of them per interval."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.addr, args.port))
    srv.listen(128)
    srv.setblocking(False)
    args.epoch = _await_epoch()
    sel = selectors.DefaultSelector()
    sel.register(srv, selectors.EVENT_READ)
    conns: dict[int, dict[str, Any]] = {}
    total = [0]

    def receive(timeout: float) -> bool:
        for key, _ in sel.select(timeout=timeout):
            if key.fileobj is srv:
                with contextlib.suppress(BlockingIOError):
                    conn, (_, port) = srv.accept()
                    conn.setblocking(False)
                    conns[port] = {"bytes": 0, "last_byte_ns": None}
                    sel.register(conn, selectors.EVENT_READ, port)
                continue
            conn = _socket_of(key)
            try:
                data = conn.recv(CHUNK)
            except (BlockingIOError, InterruptedError):
                continue
            if not data:
                sel.unregister(conn)
                conn.close()
                continue
            total[0] += len(data)
            conns[key.data]["bytes"] += len(data)
            conns[key.data]["last_byte_ns"] = _now(args.epoch)
        return True

    samples = _sample(args, lambda: total[0], receive)
    return {"bytes": total[0], "samples": samples, "connections": conns}


_STAMP = struct.Struct("!QQ")  # sequence number, send time (ns since the epoch)


def udpsend(args: argparse.Namespace) -> dict[str, Any]:
    """``--size``-byte payloads every ``--interval`` from ``--start`` to ``--stop``, on a
    schedule of absolute times (a late send is followed by its successors at once)."""
    s = _marked(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), args.tos)
    pad = b"\0" * max(0, args.size - _STAMP.size)
    args.epoch = _await_epoch()
    seq, t = 0, args.start
    while t < args.stop:
        _sleep_until(args.epoch, t)
        # A full local queue (ENOBUFS) loses the datagram, as a full qdisc would.
        with contextlib.suppress(OSError):
            s.sendto(_STAMP.pack(seq, _now(args.epoch)) + pad, (args.dst, args.port))
        seq += 1
        t += args.interval
    return {"sent": seq, "start_ns": args.start, "interval_ns": args.interval}


def udpsink(args: argparse.Namespace) -> dict[str, Any]:
    """Payload bytes received per interval, and each datagram's sequence number, send time
    and one-way delay (ns)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args.addr, args.port))
    args.epoch = _await_epoch()
    arrivals: list[tuple[int, int, int]] = []
    total = [0]

    def receive(timeout: float) -> bool:
        s.settimeout(timeout)
        try:
            data = s.recv(65536)
        except (TimeoutError, InterruptedError):
            return True
        seq, sent = _STAMP.unpack_from(data)
        total[0] += len(data)
        arrivals.append((seq, sent, _now(args.epoch) - sent))
        return True

    samples = _sample(args, lambda: total[0], receive)
    return {"bytes": total[0], "arrivals": arrivals, "samples": samples}


def _checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``."""
    if len(data) % 2:
        data += b"\0"
    total = sum(int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _echo_request(ident: int, seq: int, payload: bytes) -> bytes:
    header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    return struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload


def ping(args: argparse.Namespace) -> dict[str, Any]:
    """Echo requests of ``--size`` bytes (IP length, as the simulator's ping) every
    ``--interval`` from ``--start`` to ``--stop``; replies are collected until ``--until``."""
    s = _marked(socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP), args.tos)
    ident = args.port & 0xFFFF
    payload = b"\0" * max(0, args.size - 28)  # 20 bytes of IP header, 8 of ICMP
    args.epoch = _await_epoch()
    sent: dict[int, int] = {}
    rtt: dict[int, int] = {}
    seq, next_send = 0, args.start
    while True:
        now = _now(args.epoch)
        if next_send < args.stop and now >= next_send:
            s.sendto(_echo_request(ident, seq & 0xFFFF, payload), (args.dst, 0))
            sent[seq & 0xFFFF] = _now(args.epoch)
            seq += 1
            next_send += args.interval
            continue
        wake = min(next_send if next_send < args.stop else args.until, args.until)
        if now >= args.until:
            break
        s.settimeout(max(wake - now, 1_000) / 1e9)
        try:
            reply = s.recv(65536)
        except TimeoutError:
            continue
        ihl = (reply[0] & 0x0F) * 4
        kind, _, _, rid, rseq = struct.unpack("!BBHHH", reply[ihl : ihl + 8])
        if kind == 0 and rid == ident and rseq in sent and rseq not in rtt:
            rtt[rseq] = _now(args.epoch) - sent[rseq]
    return {"sent": [[q, t, rtt.get(q)] for q, t in sorted(sent.items(), key=lambda x: x[1])]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="airlab.testbed.agent")
    roles = ("sink", "send", "psend", "psink", "ping", "udpsend", "udpsink")
    ap.add_argument("role", choices=roles)
    ap.add_argument("--parent", type=int, required=True, help="the controller's pid")
    ap.add_argument("--netns", required=True, help="the path the namespace is bound at")
    ap.add_argument("--until", type=int, default=0, help="the last sample time (sink)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--addr")
    ap.add_argument("--dst")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--interval", type=int, default=100_000_000)
    ap.add_argument("--cc")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--stop", type=int, default=0)
    ap.add_argument("--size", type=int)
    ap.add_argument("--tos", type=int, default=0, help="the sending socket's IP_TOS")
    args = ap.parse_args(argv)
    _die_with_parent(args.parent)
    _enter(args.netns)
    run = {"sink": sink, "send": send, "psend": psend, "psink": psink, "ping": ping,
           "udpsend": udpsend, "udpsink": udpsink}  # fmt: skip
    record = run[args.role](args)
    if "start" in _SCHED:
        on_cpu, waited = _schedstat()
        record["sched"] = {
            "cpu_ns": on_cpu - _SCHED["start"][0],
            "wait_ns": waited - _SCHED["start"][1],
            "wall_ns": time.monotonic_ns() - _SCHED["epoch"],
        }
    tmp = f"{args.out}.tmp"
    with open(tmp, "w") as f:
        json.dump(record, f)
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
