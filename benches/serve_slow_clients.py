#!/usr/bin/env python3
"""`sylcol serve` under slow and many clients: the memory and sockets they
make it hold, and its CPU time when out of file descriptors
(docs/security.md, "The server under slow and many clients"; the figures:
benches/serve.md).

    cargo build -p sylcol-cli
    python3 benches/serve_slow_clients.py CASE [path/to/sylcol]

CASE is one of
  body    100 connections each announce a 1 MiB body and send all of it
          but the last byte, then nothing
  read    100 connections each ask for the sample library's glTF (1.8 MB)
          three times at once (pipelined) and never read
  emfile  the server under `prlimit --nofile=40`, 60 connections held;
          its CPU time over 5 s, then whether it answers once they go

The server serves samples/MiscBin.pak on a free port. Memory is the
server's resident set (VmRSS) and sockets its open connections (socket
descriptors in /proc/PID/fd, less the listener), sampled at the times
printed; CPU time is utime + stime from /proc/PID/stat. Freed memory is
kept by the allocator for reuse, so the resident set shows the peak, not
what is held at the time: the open sockets show that.
"""

import os
import re
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples", "MiscBin.pak")


def start(sylcol, wrapper=()):
    """The server on a free port: the process and its address."""
    p = subprocess.Popen([*wrapper, sylcol, "serve", SAMPLES, "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(re.search(r"http://[^/]+:(\d+)/", p.stdout.readline()).group(1))
    return p, ("127.0.0.1", port)


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
    return 0


def cpu_s(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sockets(pid):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return n - 1


def sample(p, t0, times):
    for t in times:
        time.sleep(max(0.0, t - (time.time() - t0)))
        print(f"t={t:>3} s  RSS {rss_mb(p.pid):>4} MB  sockets {sockets(p.pid):>3}"
              f"  CPU {cpu_s(p.pid):6.2f} s", flush=True)


def slow_bodies(sylcol):
    p, addr = start(sylcol)
    print(f"baseline RSS {rss_mb(p.pid)} MB")
    head = (b"POST /api/query HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
    body = b" " * ((1 << 20) - 1)
    conns, t0 = [], time.time()
    for _ in range(100):
        s = socket.create_connection(addr)
        s.sendall(head)
        conns.append(s)

    def send(s):
        try:
            s.sendall(body)
        except OSError:
            pass
    threads = [threading.Thread(target=send, args=(s,), daemon=True) for s in conns]
    for t in threads:
        t.start()
    sample(p, t0, (2, 5, 12, 20, 35, 45))
    p.kill()


def never_reading(sylcol):
    p, addr = start(sylcol)
    print(f"baseline RSS {rss_mb(p.pid)} MB")
    ask = b"GET /api/objects/CollisionSet_S01.glb HTTP/1.1\r\nHost: localhost\r\n\r\n" * 3
    conns, t0 = [], time.time()
    for _ in range(100):
        s = socket.create_connection(addr)
        s.sendall(ask)
        conns.append(s)
    sample(p, t0, (5, 10, 35, 70, 100, 150, 200, 250, 300))
    p.kill()


def out_of_descriptors(sylcol):
    p, addr = start(sylcol, ("prlimit", "--nofile=40"))
    time.sleep(0.5)
    held = [socket.create_connection(addr) for _ in range(60)]
    time.sleep(0.5)
    c0, t0 = cpu_s(p.pid), time.time()
    time.sleep(5)
    used, wall = cpu_s(p.pid) - c0, time.time() - t0
    print(f"CPU with 60 connections held: {used:.2f} s in {wall:.1f} s ({100 * used / wall:.0f} %)")
    for s in held:
        s.close()
    s = socket.create_connection(addr, timeout=10)
    s.sendall(b"GET /api/objects HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    print("once they are closed:", s.recv(17).decode())
    p.kill()


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    sylcol = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "target", "debug", "sylcol")
    cases = {"body": slow_bodies, "read": never_reading, "emfile": out_of_descriptors}
    if case not in cases:
        sys.exit(__doc__)
    cases[case](sylcol)
