#!/usr/bin/env python3
"""Hostile and fake peers of the launcher's daemon tree, for test/launch/run and
test/multinode/run. An independent implementation of the tree's framing and
handshake (launcher/tree.h, treewire.c), from the Python standard library only.
Everything it does is bounded in count and time.

  treepeer.py forged HOST PORT SIZE VPID   a HELLO as member VPID (one still to
                                           connect), then a PROOF with a wrong MAC
  treepeer.py oldhello HOST PORT           the old protocol: the secret in clear
  treepeer.py flood HOST PORT N HOLD       N silent connections held HOLD seconds
  treepeer.py garbage HOST PORT            garbage, oversized and malformed frames
  treepeer.py fake-daemon                  a daemon that joins with the real secret
                                           (boot line on stdin, as rdmpid) and then
                                           sends its parent commands it must refuse
  treepeer.py backlog RDMPID [tamper]      plays rdmpirun to a real rdmpid: WELCOME
                                           and SHUTDOWN in one write, so the command
                                           arrives with the welcome; rdmpid must
                                           still act on it (say BYE and exit); with
                                           tamper the SHUTDOWN's seal is wrong and
                                           rdmpid must refuse it and leave

Each mode prints one result line "treepeer MODE: key=value ..." and exits 0 when
the launcher behaved (closed what it had to close), 1 when not.
"""
import hashlib
import hmac
import os
import select
import socket
import struct
import sys
import time

PROTO = 3
MSG = dict(HELLO=1, WELCOME=2, UP=3, LAUNCH=4, STARTED=5, START_FAIL=6, EXIT=7, ABORT=8,
           IO=9, STDIN=10, SIGNAL=11, FENCE_UP=12, FENCE_DOWN=13, DMODEX_REQ=14,
           DMODEX_RESP=15, ERROR=16, SHUTDOWN=17, BYE=18, LOST=19, CHALLENGE=20, PROOF=21)
BOOT, LINK = 1, 2
CONNECT, ACCEPT = 1, 2
BCAST = 0xFFFFFFFF
SIG_GROUPS_ALL = 1


def frame(mtype, dst, src, payload=b"", reserved=0):
    return struct.pack("!IIII", len(payload), (mtype << 16) | reserved, dst, src) + payload


def lstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("!I", len(b)) + b


def mac(key, side, purpose, size, vpid, acceptor, nonce_c, nonce_a):
    msg = b"rdmpi tree proof\0" + struct.pack("!IIIIII", PROTO, side, purpose, size, vpid,
                                               acceptor) + nonce_c + nonce_a
    return hmac.new(key, msg, hashlib.sha256).digest()


def link_keys(key, side, purpose, size, vpid, acceptor, nonce_c, nonce_a):
    """The keys that seal a link's frames after its handshake: (ours, theirs) for side."""
    other = ACCEPT if side == CONNECT else CONNECT

    def k(s):
        return hmac.new(key, b"rdmpi tree links\0" + struct.pack("!IIIIII", PROTO, s, purpose, size,
                                                                  vpid, acceptor) +
                        nonce_c + nonce_a, hashlib.sha256).digest()
    return k(side), k(other)


def seal(key, seq, fr):
    return fr + hmac.new(key, struct.pack("!Q", seq) + fr, hashlib.sha256).digest()


def auth_key(secret_hex):
    return hashlib.blake2b(b"rdmpi tree auth", key=bytes.fromhex(secret_hex),
                           digest_size=32).digest()


def connect(host, port, timeout=3.0):
    s = socket.create_connection((host, port), timeout=timeout)
    s.settimeout(timeout)
    return s


def read_frame(s, until):
    buf = b""
    while True:
        if len(buf) >= 16:
            n, t, dst, src = struct.unpack("!IIII", buf[:16])
            if len(buf) >= 16 + n:
                return t >> 16, dst, src, buf[16:16 + n], buf[16 + n:]
        left = until - time.monotonic()
        if left <= 0:
            raise TimeoutError("no frame in time")
        s.settimeout(left)
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk


class Reader:
    """Frames from one socket, keeping what arrived past the last frame; once seal() gave
    it the link's keys, it checks the MAC of every frame it takes and seals what send()
    sends (launcher/tree.h)."""

    def __init__(self, s):
        self.s, self.buf = s, b""
        self.rx_key = self.tx_key = None
        self.rx_seq = self.tx_seq = 0

    def seal_rx(self, key):
        self.rx_key = key

    def seal_tx(self, key):
        self.tx_key = key

    def send(self, *frames):
        out = b""
        for fr in frames:
            if self.tx_key is not None:
                fr = seal(self.tx_key, self.tx_seq, fr)
                self.tx_seq += 1
            out += fr
        self.s.sendall(out)

    def next(self, timeout):
        until = time.monotonic() + timeout
        mac = 32 if self.rx_key is not None else 0
        while True:
            if len(self.buf) >= 16:
                n, t, dst, src = struct.unpack("!IIII", self.buf[:16])
                if len(self.buf) >= 16 + n + mac:
                    payload = self.buf[16:16 + n]
                    if mac:
                        want = seal(self.rx_key, self.rx_seq, self.buf[:16 + n])[16 + n:]
                        assert hmac.compare_digest(want, self.buf[16 + n:16 + n + mac]), \
                            "a frame with a wrong MAC"
                        self.rx_seq += 1
                    self.buf = self.buf[16 + n + mac:]
                    return t >> 16, dst, src, payload
            left = until - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.s], [], [], left)
            if not r:
                return None
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("closed by the peer")
            self.buf += chunk


def closed_by_peer(s, timeout):
    """Waits until the peer closes s; returns the seconds it took, or None."""
    t0 = time.monotonic()
    s.settimeout(0.1)
    while time.monotonic() - t0 < timeout:
        try:
            if not s.recv(65536):
                return time.monotonic() - t0
        except socket.timeout:
            continue
        except OSError:
            return time.monotonic() - t0
    return None


def hello_payload(purpose, vpid, to, size, nonce):
    return struct.pack("!IIIII", PROTO, purpose, vpid, to, size) + nonce


def result(mode, ok, **kv):
    print("treepeer %s: %s %s" % (mode, "ok" if ok else "FAILED",
                                  " ".join("%s=%s" % i for i in kv.items())), flush=True)
    sys.exit(0 if ok else 1)


def forged(host, port, size, vpid="1"):
    """A HELLO claiming a member still expected, then a PROOF made with a wrong key."""
    size, vpid = int(size), int(vpid)
    s = connect(host, int(port))
    nonce = os.urandom(32)
    s.sendall(frame(MSG["HELLO"], 0, vpid, hello_payload(BOOT, vpid, 0, size, nonce)))
    try:
        t, _, _, payload, _ = read_frame(s, time.monotonic() + 5)
    except (TimeoutError, ConnectionError, OSError) as e:
        result("forged", False, challenge="none (%s)" % e)
    if t != MSG["CHALLENGE"] or len(payload) != 72:
        result("forged", False, answer=t)
    wrong = mac(os.urandom(32), CONNECT, BOOT, size, vpid, 0, nonce, payload[8:40])
    s.sendall(frame(MSG["PROOF"], 0, vpid, wrong + struct.pack("!II", os.getpid(), 0) +
                    lstr("evil") + lstr("") + lstr("")))
    took = closed_by_peer(s, 3)
    result("forged", took is not None, closed_after=took)


def oldhello(host, port):
    """The previous protocol's HELLO: a 64-character secret in clear."""
    s = connect(host, int(port))
    s.sendall(frame(MSG["HELLO"], 0, 1, lstr("a" * 64) + struct.pack("!III", 1, BOOT, 1)))
    took = closed_by_peer(s, 3)
    result("oldhello", took is not None, closed_after=took)


def flood(host, port, n, hold):
    """n connections that say nothing: the launcher closes the oldest beyond its cap at
    once and the rest when their time to authenticate is over."""
    n, hold = min(int(n), 200), min(float(hold), 15.0)
    socks, opened = [], 0
    for _ in range(n):
        try:
            socks.append(connect(host, int(port)))
            opened += 1
        except OSError:
            pass
    t0 = time.monotonic()
    closed_at = {}
    live = {s.fileno(): s for s in socks}
    while live and time.monotonic() - t0 < hold:
        r, _, _ = select.select(list(live), [], [], 0.1)
        for fd in r:
            try:
                data = live[fd].recv(4096)
            except OSError:
                data = b""
            if not data:
                closed_at[fd] = time.monotonic() - t0
                live.pop(fd).close()
    early = sum(1 for v in closed_at.values() if v < 1.0)
    late = len(closed_at) - early
    for s in live.values():
        s.close()
    # every connection beyond the cap went at once, and no silent one outlived the timeout
    result("flood", not live, opened=opened, closed_early=early, closed_later=late,
           still_open=len(live), last=round(max(closed_at.values(), default=0), 2))


def garbage(host, port):
    cases = [
        ("random", os.urandom(4096)),
        ("oversized", struct.pack("!IIII", 0x7FFFFFFF, MSG["HELLO"] << 16, 0, 1)),
        ("big-unauth", struct.pack("!IIII", 5000, MSG["HELLO"] << 16, 0, 1) + b"x" * 5000),
        ("unknown-type", frame(77, 0, 1, b"abc")),
        ("reserved-bits", frame(MSG["HELLO"], 0, 1, b"\0" * 52, reserved=5)),
        ("short-hello", frame(MSG["HELLO"], 0, 1, struct.pack("!I", PROTO) + b"\0" * 10)),
        ("bad-purpose", frame(MSG["HELLO"], 0, 1, hello_payload(9, 1, 0, 3, b"\0" * 32))),
        ("launch-first", frame(MSG["LAUNCH"], BCAST, 0, b"\0" * 64)),
        ("http", b"GET / HTTP/1.0\r\n\r\n"),
        ("half-header", b"\0\0\0"),
    ]
    bad = []
    for name, data in cases:
        try:
            s = connect(host, int(port))
            s.sendall(data)
            if name == "half-header":
                s.shutdown(socket.SHUT_WR)
            if closed_by_peer(s, 7.0) is None:
                bad.append(name)
            s.close()
        except OSError as e:
            if not isinstance(e, (ConnectionResetError, BrokenPipeError)):
                bad.append("%s(%s)" % (name, e))
    result("garbage", not bad, cases=len(cases), not_closed=",".join(bad) or "none")


def fake_daemon():
    """Joins like rdmpid (it has the secret: rdmpirun started it), then, once the job is
    launched, sends its parent daemon commands only rdmpirun may give and reports that
    are not its own, and checks that the job goes on. FAKE_RANKS: its ranks."""
    line = sys.stdin.readline().split()
    assert line[0] in ("RDMPID1", "RDMPID2"), line[0]
    direct = line[0] == "RDMPID2"  # tree launch: addrs and port are the parent's
    secret, me, size, port, addrs, name = line[1], int(line[2]), int(line[3]), int(line[4]), \
        line[5], line[6]
    key = auth_key(secret)
    myranks = [int(x) for x in os.environ.get("FAKE_RANKS", "").split(",") if x]
    log = lambda *a: print("fake-daemon(%d):" % me, *a, file=sys.stderr, flush=True)

    def handshake(s, purpose, to):
        nonce = os.urandom(32)
        s.sendall(frame(MSG["HELLO"], to, me, hello_payload(purpose, me, to, size, nonce)))
        rd = Reader(s)
        t, _, _, p = rd.next(5)
        assert t == MSG["CHALLENGE"], t
        proto, vpid = struct.unpack("!II", p[:8])
        nonce_a, their = p[8:40], p[40:72]
        ok = hmac.compare_digest(their, mac(key, ACCEPT, purpose, size, me, to, nonce, nonce_a))
        assert ok and vpid == to, "the other side did not prove the secret"
        tx, rx = link_keys(key, CONNECT, purpose, size, me, to, nonce, nonce_a)
        rd.seal_rx(rx)
        rd.send(frame(MSG["PROOF"], to, me, mac(key, CONNECT, purpose, size, me, to, nonce,
                                                nonce_a) + struct.pack("!II", os.getpid(), 0) +
                      lstr(name) + lstr("") + lstr("")))
        rd.seal_tx(tx)
        return rd

    s = None
    for a in addrs.split(","):
        try:
            s = connect(a, port)
            break
        except OSError:
            continue
    if direct:
        parent = me & (me - 1)
        rd = handshake(s, LINK, parent)
        # UP tells rdmpirun what a boot PROOF would have (its layout, MAC unused)
        rd.send(frame(MSG["UP"], 0, me, b"\0" * 32 + struct.pack("!II", os.getpid(), 0) +
                      lstr(name) + lstr("") + lstr("")))
    else:
        rd = handshake(s, BOOT, 0)
        t, _, _, p = rd.next(30)
        assert t == MSG["WELCOME"], t
        parent, pport = struct.unpack("!II", p[:8])
        paddrs = p[12:].decode()
    if not direct and parent != 0:
        s.close()
        for a in paddrs.split(","):
            try:
                s = connect(a, pport)
                break
            except OSError:
                continue
        rd = handshake(s, LINK, parent)
    if not direct:
        rd.send(frame(MSG["UP"], 0, me))
    log("joined under member", parent)
    attacked = False
    while True:
        r, _, _ = select.select([s, sys.stdin], [], [], 60)
        if not r:
            log("nothing for 60 s")
            return 1
        if sys.stdin in r and not os.read(sys.stdin.fileno(), 256):
            return 0  # rdmpirun is gone
        if s not in r:
            continue
        while True:
            f = rd.next(0.05)
            if f is None:
                break
            t, dst, src, p = f
            if t == MSG["LAUNCH"] and not attacked:
                attacked = True
                started = struct.pack("!I", len(myranks))
                for rank in myranks:
                    started += struct.pack("!II", rank, os.getpid())
                rd.send(frame(MSG["STARTED"], 0, me, started))
                sig = struct.pack("!II", 9, SIG_GROUPS_ALL)
                # commands only rdmpirun may give, sent up to the parent under every disguise
                rd.send(frame(MSG["SIGNAL"], BCAST, 0, sig),
                        frame(MSG["SIGNAL"], parent, 0, sig),
                        frame(MSG["SIGNAL"], parent, me, sig),
                        frame(MSG["LAUNCH"], BCAST, 0, p),
                        frame(MSG["SHUTDOWN"], BCAST, 0),
                        frame(MSG["STDIN"], parent, 0, b"injected\n"),
                        # a report for a rank that is not ours, in another member's name
                        frame(MSG["EXIT"], 0, parent, struct.pack("!IIII", 0, 9, 0, 0)),
                        # joining messages on an established link
                        frame(MSG["WELCOME"], parent, me, b"\0" * 12))
                log("sent the forbidden messages")
                time.sleep(0.5)
                for rank in myranks:
                    rd.send(frame(MSG["EXIT"], 0, me, struct.pack("!IIII", rank, 0, 0, 0)))
            elif t == MSG["SHUTDOWN"]:
                rd.send(frame(MSG["BYE"], parent, me))
                time.sleep(0.2)
                return 0


def backlog(rdmpid, tamper=""):
    """rdmpirun's side of a daemon's join, with a command sent in the same write as the
    WELCOME: the daemon reads both in its blocking join and must not leave the second
    one unparsed until more bytes arrive (nothing more would)."""
    import subprocess
    secret = os.urandom(32).hex()
    key = auth_key(secret)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    port = ls.getsockname()[1]
    d = subprocess.Popen([rdmpid], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        d.stdin.write(("RDMPID1 %s 1 2 %d 127.0.0.1 node1\n" % (secret, port)).encode())
        d.stdin.flush()
        ls.settimeout(10)
        s, _ = ls.accept()
        rd = Reader(s)
        f = rd.next(10)
        assert f and f[0] == MSG["HELLO"], f
        proto, purpose, vpid, to, size = struct.unpack("!IIIII", f[3][:20])
        nonce_c, nonce_a = f[3][20:52], os.urandom(32)
        assert (purpose, vpid, to, size) == (BOOT, 1, 0, 2), (purpose, vpid, to, size)
        rd.send(frame(MSG["CHALLENGE"], 1, 0, struct.pack("!II", PROTO, 0) + nonce_a +
                      mac(key, ACCEPT, BOOT, 2, 1, 0, nonce_c, nonce_a)))
        tx, rx = link_keys(key, ACCEPT, BOOT, 2, 1, 0, nonce_c, nonce_a)
        rd.seal_tx(tx)
        f = rd.next(10)
        assert f and f[0] == MSG["PROOF"], f
        assert hmac.compare_digest(f[3][:32], mac(key, CONNECT, BOOT, 2, 1, 0, nonce_c,
                                                  nonce_a)), "the daemon's proof is wrong"
        rd.seal_rx(rx)
        welcome = frame(MSG["WELCOME"], 1, 0, struct.pack("!III", 0, 0, 0))
        shutdown = frame(MSG["SHUTDOWN"], BCAST, 0)
        if tamper:
            # as if someone wrote into the stream: a SHUTDOWN sealed with the wrong number
            s.sendall(seal(tx, 0, welcome) + seal(tx, 5, shutdown))
        else:
            rd.send(welcome, shutdown)
        seen = []
        until = time.monotonic() + 5
        while MSG["BYE"] not in seen and time.monotonic() < until:
            try:
                f = rd.next(until - time.monotonic())
            except ConnectionError:
                break
            if f is None:
                break
            seen.append(f[0])
        try:
            status = d.wait(5)
        except subprocess.TimeoutExpired:
            status = None
        if tamper:
            err = d.stderr.read().decode(errors="replace") if status is not None else ""
            # the daemon refuses the frame: no BYE, it leaves on its own, saying why
            result("tamper", MSG["BYE"] not in seen and status is not None and
                   "MAC is wrong" in err, frames=",".join(str(x) for x in seen) or "none",
                   exit=status, said=err.strip().replace("\n", " | ")[:200])
        result("backlog", MSG["UP"] in seen and MSG["BYE"] in seen and status == 0,
               frames=",".join(str(x) for x in seen) or "none", exit=status)
    finally:
        if d.poll() is None:
            d.kill()
            d.wait()


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        if mode == "forged":
            forged(*args)
        elif mode == "oldhello":
            oldhello(*args)
        elif mode == "flood":
            flood(*args)
        elif mode == "garbage":
            garbage(*args)
        elif mode == "backlog":
            backlog(*args)
        elif mode == "fake-daemon":
            sys.exit(fake_daemon())
    except (OSError, AssertionError, ValueError) as e:
        result(mode, False, error=repr(e))
    print("usage: treepeer.py forged|oldhello|flood|garbage|fake-daemon|backlog ...", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
