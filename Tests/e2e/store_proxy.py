"""A slow or hung object store as a test fixture: a TCP proxy in front of any store (SeaweedFS, nginx) that holds
each request a fixed delay with jitter, or stops forwarding altogether. Used by the e2e tests and by
bench/object-storage.py."""
import random
import time


class StallingProxy:
    """A TCP proxy to the store that can stop forwarding: connections stay open and nothing moves, as a store
    that hangs does. With `delay`, each request (a client's first bytes after an answer) is held that many seconds,
    as by a store far away, give or take up to `jitter` seconds (uniformly)."""

    def __init__(self, upstream_port, delay=0.0, jitter=0.0, record=True):
        import socket
        import threading
        self.upstream = upstream_port
        self.delay = delay
        self.jitter = jitter
        self.record = record
        self.forwarding = threading.Event()
        self.forwarding.set()
        self.sent = []  # what clients sent through it, a bytearray a connection, for tests that read the requests
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        import socket
        import threading
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream))
            sent = bytearray()
            if self.record:
                self.sent.append(sent)
            fresh = [True]  # no byte of the next request forwarded yet
            for a, b, record in ((client, upstream, sent), (upstream, client, None)):
                threading.Thread(target=self.pump, args=(a, b, record, fresh), daemon=True).start()

    def pump(self, source, sink, record, fresh):
        while True:
            self.forwarding.wait()
            try:
                data = source.recv(65536)
                self.forwarding.wait()
                if not data:
                    break
                if record is not None:
                    if self.record:
                        record += data
                    if fresh[0] and self.delay:
                        time.sleep(max(0.0, self.delay + random.uniform(-self.jitter, self.jitter)))
                    fresh[0] = False
                else:
                    fresh[0] = True
                sink.sendall(data)
            except OSError:
                break
        for s in (source, sink):
            try:
                s.close()
            except OSError:
                pass

    def close(self):
        self.forwarding.set()
        self.listener.close()
