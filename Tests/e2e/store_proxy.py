"""A slow or hung object store as a test fixture: a TCP proxy in front of any store (SeaweedFS, nginx) that holds
each request a fixed delay with jitter, or stops forwarding altogether. Used by the e2e tests and by
bench/object-storage.py.

One thread and one epoll loop for every connection: the bench sends tens of thousands of requests through it on
the same two cores as the server it measures, and a thread per direction (as this proxy had first) cost more than
the store it stood for (the JPEG trace took 1.79x its time on local disk through it with no delay at all, 1.17x
straight to the store), waiting on the interpreter's lock in turn. The store's answers go to the client through a
pipe by splice(2), never through the interpreter: copied through it, 32 MB in 16 ranged GETs took 28 ms against 13 ms
straight from nginx, on the cores the server measured needs, which a store in another building does not take."""
import fcntl
import heapq
import os
import random
import select
import socket
import threading
import time


_PIPE_BYTES = 1 << 20


class _Connection:
    """A client's connection and its own connection to the store, with what waits to be written each way: the
    client's requests in a list (each held until its release), the store's answers in a pipe."""

    def __init__(self, client, upstream, record):
        self.client, self.upstream = client, upstream
        self.record = record        # what the client sent, or None
        self.to_upstream = []       # [release time, bytes], in order
        self.pipe_r, self.pipe_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            fcntl.fcntl(self.pipe_w, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        except OSError:
            pass
        self.to_client = 0          # bytes of the store's answers in the pipe, not yet written to the client
        self.fresh = True           # no byte of the next request seen yet
        self.released = 0.0         # when the last request held is let through


class StallingProxy:
    """A TCP proxy to the store that can stop forwarding: connections stay open and nothing moves, as a store
    that hangs does. With `delay`, each request (a client's first bytes after an answer) is held that many seconds,
    as by a store far away, give or take up to `jitter` seconds (uniformly); the rest of a request follows it."""

    def __init__(self, upstream_port, delay=0.0, jitter=0.0, record=True):
        self.upstream = upstream_port
        self.delay = delay
        self.jitter = jitter
        self.record = record
        self.forwarding = threading.Event()
        self.forwarding.set()
        self.sent = []  # what clients sent through it, a bytearray a connection, for tests that read the requests
        self.arrivals = []  # (time.monotonic(), the first bytes) of each request as it arrived, when recording
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        poll = select.epoll()
        poll.register(self.listener.fileno(), select.EPOLLIN)
        ends = {}       # fd -> (connection, is the client's end)
        timers = []     # (release time, sequence, connection)
        sequence = 0

        def watch(conn):
            """Reads from the client always and from the store while the pipe is empty; writes where something is
            due."""
            now = time.monotonic()
            for sock, pending in ((conn.client, conn.to_client), (conn.upstream, conn.to_upstream)):
                due = bool(pending) and (sock is conn.client or pending[0][0] <= now)
                reading = sock is conn.client or not conn.to_client
                try:
                    poll.modify(sock.fileno(), (select.EPOLLIN if reading else 0) | (select.EPOLLOUT if due else 0))
                except OSError:
                    pass

        def drop(conn):
            for sock in (conn.client, conn.upstream):
                ends.pop(sock.fileno(), None)
                try:
                    poll.unregister(sock.fileno())
                except (OSError, ValueError):
                    pass
                sock.close()
            os.close(conn.pipe_r)
            os.close(conn.pipe_w)

        def drain(conn):
            """Writes what the pipe holds to the client, waiting for it (the store hung up)."""
            try:
                conn.client.setblocking(True)
                while conn.to_client:
                    conn.to_client -= os.splice(conn.pipe_r, conn.client.fileno(), conn.to_client)
                conn.client.setblocking(False)
            except OSError:
                conn.to_client = 0

        def flush(conn):
            """Writes what is due each way; False when a connection failed."""
            now = time.monotonic()
            try:
                while conn.to_client:
                    conn.to_client -= os.splice(conn.pipe_r, conn.client.fileno(), conn.to_client,
                                                flags=os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK)
                while conn.to_upstream and conn.to_upstream[0][0] <= now:
                    data = conn.to_upstream[0][1]
                    n = conn.upstream.send(data)
                    if n < len(data):
                        conn.to_upstream[0][1] = data[n:]
                        break
                    conn.to_upstream.pop(0)
            except BlockingIOError:
                pass
            except OSError:
                return False
            return True

        while not self.closed:
            if not self.forwarding.is_set():
                self.forwarding.wait(0.05)
                continue
            now = time.monotonic()
            wait = 0.05
            while timers and timers[0][0] <= now:
                _, _, conn = heapq.heappop(timers)
                if conn.client.fileno() in ends:
                    if not flush(conn):
                        drop(conn)
                        continue
                    watch(conn)
            if timers:
                wait = min(wait, max(0.0, timers[0][0] - now))
            for fd, events in poll.poll(wait):
                if not self.forwarding.is_set():
                    break
                if fd == self.listener.fileno():
                    try:
                        client, _ = self.listener.accept()
                    except OSError:
                        continue
                    try:
                        upstream = socket.create_connection(("127.0.0.1", self.upstream))
                    except OSError:
                        client.close()      # the store is down: so is the proxy's answer
                        continue
                    record = None
                    if self.record:
                        record = bytearray()
                        self.sent.append(record)
                    conn = _Connection(client, upstream, record)
                    for sock, is_client in ((client, True), (upstream, False)):
                        sock.setblocking(False)
                        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        ends[sock.fileno()] = (conn, is_client)
                        poll.register(sock.fileno(), select.EPOLLIN)
                    continue
                if fd not in ends:
                    continue
                conn, is_client = ends[fd]
                if events & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                    try:
                        if not is_client and conn.to_client and events & (select.EPOLLHUP | select.EPOLLERR):
                            drain(conn)
                        if is_client:
                            data = conn.client.recv(262144)
                        elif conn.to_client:
                            data = None     # the pipe is full: read on once the client took it
                        else:
                            moved = os.splice(conn.upstream.fileno(), conn.pipe_w, _PIPE_BYTES,
                                              flags=os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK)
                            conn.to_client += moved
                            data = b"x" if moved else b""
                    except BlockingIOError:
                        data = None
                    except OSError:
                        data = b""
                    if data == b"":
                        if not is_client:
                            drain(conn)     # the store's last answer before it closed still reaches the client
                        drop(conn)
                        continue
                    if data and is_client:
                        if conn.record is not None:
                            conn.record += data
                            if conn.fresh:
                                self.arrivals.append((time.monotonic(), bytes(data[:512])))
                        now = time.monotonic()
                        release = now
                        if conn.fresh and self.delay:
                            release = now + max(0.0, self.delay + random.uniform(-self.jitter, self.jitter))
                        conn.fresh = False
                        release = max(release, conn.released)
                        conn.released = release
                        conn.to_upstream.append([release, data])
                        if release > now:
                            sequence += 1
                            heapq.heappush(timers, (release, sequence, conn))
                    elif data:
                        conn.fresh = True
                if not flush(conn):
                    drop(conn)
                    continue
                watch(conn)
        for conn, _ in list(ends.values()):
            drop(conn)

    def close(self):
        self.forwarding.set()
        self.closed = True
        self.listener.close()
