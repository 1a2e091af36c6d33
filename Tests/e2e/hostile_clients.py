"""What hostile clients do to an HTTP server, as functions over a running server's port, at any scale: the short
form runs in the test suite (test_hostile_clients.py), the long form from bench/hostile-clients.sh.

    python3 Tests/e2e/hostile_clients.py PORT PID [--long]    prints one line per check with its figures"""
import multiprocessing
import os
import resource
import socket
import sys
import time

SHAPES = [
    # (name, request bytes, statuses accepted; None: a clean close without an answer is also right)
    ("bare LF line endings", b"GET /healthz HTTP/1.1\nHost: t\nConnection: close\n\n", {200, 400}),
    ("obs-fold header continuation", b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\r\n  folded\r\nConnection: close\r\n\r\n", {400}),
    ("duplicate Content-Length", b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", {400}),
    ("conflicting Content-Length", b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc", {400}),
    ("Content-Length list", b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc", {400}),
    ("signed Content-Length", b"GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: +3\r\n\r\nabc", {400}),
    ("Transfer-Encoding with Content-Length", b"GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", {400}),
    ("Transfer-Encoding chunked", b"GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", {400, 411, 413, 501}),
    ("Transfer-Encoding obfuscated", b"GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n", {400}),
    ("space before colon", b"GET /healthz HTTP/1.1\r\nHost : t\r\n\r\n", {400}),
    ("invalid method token", b"G(T /healthz HTTP/1.1\r\nHost: t\r\n\r\n", {400}),
    ("unknown method", b"BREW /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {405, 501}),
    ("lower-case version", b"GET /healthz http/1.1\r\nHost: t\r\n\r\n", {400}),
    ("absolute-form target", b"GET http://t/healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {200}),
    ("asterisk-form target", b"OPTIONS * HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {204, 400, 404, 405}),
    ("authority-form target", b"CONNECT t:443 HTTP/1.1\r\nHost: t\r\n\r\n", {400, 405}),
    ("NUL in target", b"GET /heal\x00thz HTTP/1.1\r\nHost: t\r\n\r\n", {400}),
    ("NUL in header", b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\x00b\r\n\r\n", {400}),
    ("control byte in header", b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\x07b\r\n\r\n", {400}),
    ("bare CR", b"GET /healthz HTTP/1.1\rHost: t\r\n\r\n", {400}),
    ("missing Host in 1.1", b"GET /healthz HTTP/1.1\r\n\r\n", {400}),
    ("two Host headers", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", {400}),
    ("dot-dot", b"GET /../../etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("encoded dot-dot", b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("double-encoded dot-dot", b"GET /%252e%252e/etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("backslashes", b"GET /..\\..\\etc\\passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("encoded backslash", b"GET /images/..%5c..%5cetc/tiles/0/0/0.jpg HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("encoded slash", b"GET /images/a%2fb/tiles/0/0/0.jpg HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", {400, 404}),
    ("overlong request line", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", {414}),
    ("oversized header", b"GET / HTTP/1.1\r\nHost: t\r\nX: " + b"b" * 70000 + b"\r\n\r\n", {431}),
    ("header flood", b"GET / HTTP/1.1\r\nHost: t\r\n" + b"X: y\r\n" * 5000 + b"\r\n", {431}),
    ("binary garbage", bytes(range(256)) * 4, {400}),
]


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def roomy_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))


def exchange(port, data, timeout=5.0):
    """Sends `data`, reads until close or quiet; returns (first status or None, seconds to close or None)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    started = time.monotonic()
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    chunks, closed = [], None
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                closed = time.monotonic() - started
                break
            chunks.append(chunk)
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = time.monotonic() - started
    s.close()
    data = b"".join(chunks)
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else None
    return status, closed


def shapes(port):
    """Every malformed or smuggling shape: (name, status, closed, right). A refused framing (400, 413, 414, 431)
    must also close the connection: what follows such bytes cannot be trusted to be a request."""
    out = []
    for name, request, accepted in SHAPES:
        status, closed = exchange(port, request)
        closes = status in (400, 413, 414, 431)
        out.append((name, status, closed, status in accepted and (closed is not None or not closes)))
    return out


def healthy_client(port, path, seconds, queue):
    """One keep-alive connection fetching `path` over and over; puts the sorted latencies (ms)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    request = f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode()
    latencies, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        while len(body) < length:
            body += s.recv(65536)
        latencies.append((time.monotonic() - started) * 1000)
        time.sleep(0.005)
    s.close()
    queue.put(sorted(latencies))


def slowloris(port, connections, seconds, tile_path):
    """`connections` sockets trickle header bytes while a healthy client (its own process) fetches a tile.
    Returns (healthy p99 ms, healthy requests, slow ones closed by the server, slow ones still open)."""
    roomy_fd_limit()
    queue = multiprocessing.Queue()
    healthy = multiprocessing.Process(target=healthy_client, args=(port, tile_path, seconds, queue))
    slow = []
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setblocking(False)
        s.send(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")
        slow.append(s)
    healthy.start()
    closed = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for i, s in enumerate(slow):
            if i in closed:
                continue
            try:
                s.send(b"X")
                if s.recv(4096) == b"":
                    closed.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        time.sleep(0.5)
    latencies = queue.get()
    healthy.join()
    for s in slow:
        s.close()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return p99, len(latencies), len(closed), connections - len(closed)


def pipelined(port, count):
    """`count` requests in one write on one connection: returns how many 200 responses came back."""
    request = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(request * (count - 1) + b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    data = bytearray()
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.count(b"HTTP/1.1 200 ")


def connect_close(port, cycles):
    """`cycles` connections opened and closed at once (half of them after sending half a request)."""
    for i in range(cycles):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        if i % 2:
            s.send(b"GET /heal")
        s.close()
    return cycles


def keep_alive_crowd(port, count):
    """`count` keep-alive connections open at once, each answered twice: returns the answers."""
    roomy_fd_limit()
    request = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
    sockets, answered = [], 0
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        sockets.append(s)
    for _round in range(2):
        for s in sockets:
            s.sendall(request)
        for s in sockets:
            data = b""
            while b"\r\n\r\n" not in data or not data.endswith(b"\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            answered += data.startswith(b"HTTP/1.1 200 ")
    for s in sockets:
        s.close()
    return answered


def still_answers(port):
    status, _ = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    return status == 200


def settle_fds(pid, baseline, seconds=5.0):
    """Waits for the descriptor count to come back to `baseline`; returns the count."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and open_fds(pid) > baseline:
        time.sleep(0.05)
    return open_fds(pid)


if __name__ == "__main__":
    port, pid, long = int(sys.argv[1]), int(sys.argv[2]), "--long" in sys.argv
    tile = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else "/tiles/0/0/0.jpg"
    still_answers(port)
    base = open_fds(pid)
    print(f"descriptors at start: {base}")
    bad = [r for r in shapes(port) if not r[3]]
    print(f"malformed and smuggling shapes: {len(SHAPES) - len(bad)} of {len(SHAPES)} right" + "".join(f"\n  WRONG {r}" for r in bad))
    n, secs = (1000, 60 if long else 15)
    p99, healthy, closed, still_open = slowloris(port, n, secs, tile)
    print(f"slowloris: {n} trickling connections for {secs} s: healthy client p99 {p99:.1f} ms over {healthy} requests; "
          f"{closed} slow ones closed by the server, {still_open} still open")
    print(f"pipelined: {pipelined(port, 10000)} of 10000 answered 200 on one connection")
    started = time.monotonic()
    print(f"connect-and-close: {connect_close(port, 20000)} cycles in {time.monotonic() - started:.1f} s")
    print(f"keep-alive crowd: {keep_alive_crowd(port, 5000)} of 10000 answers on 5000 open connections")
    print(f"still answers: {still_answers(port)}; descriptors after: {settle_fds(pid, base)} (start {base})")
