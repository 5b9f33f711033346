"""Faults to switch on and off in a test: a loopback TCP proxy that can freeze a database.

`PausableProxy` forwards a local port to PostgreSQL. `pause()` stops forwarding bytes in both
directions while every connection stays open and new ones are still accepted: to the app, the
database has frozen (a hung host, a partition whose packets are still acknowledged). `resume()`
lets the bytes through again.
"""

import socket
import threading
from contextlib import suppress


class PausableProxy:
    """A TCP proxy from 127.0.0.1:`port` to `upstream` (a (host, port) pair or a Unix socket)."""

    def __init__(self, upstream: tuple[str, int] | str):
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.running = threading.Event()
        self.running.set()
        self.closed = threading.Event()
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    def pause(self) -> None:
        """Forward nothing more, keeping every connection open."""
        self.running.clear()

    def resume(self) -> None:
        """Forward again what waited, and what comes."""
        self.running.set()

    def close(self) -> None:
        self.closed.set()
        self.running.set()
        self.listener.close()
        with self.lock:
            for sock in self.sockets:
                with suppress(OSError):
                    sock.close()

    def _connect_upstream(self) -> socket.socket:
        if isinstance(self.upstream, str):
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.upstream)
            return upstream
        return socket.create_connection(self.upstream)

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = self._connect_upstream()
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(
                    target=self._pump, args=(source, target), name="proxy-pump", daemon=True
                ).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        with suppress(OSError):
            while True:
                self.running.wait()
                if self.closed.is_set():
                    return
                # A short timeout, so a pause also holds bytes that arrive while waiting.
                source.settimeout(0.05)
                try:
                    data = source.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    break
                self.running.wait()  # paused meanwhile: hold what was read until resumed
                target.sendall(data)
        for sock in (source, target):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
