"""One HTTP/1.1 client connection over a raw non-blocking socket, for the load generator."""

from __future__ import annotations

import asyncio
import socket

HEADER_END = b"\r\n\r\n"
RECV_BYTES = 65536


class ResponseError(Exception):
    pass


class Connection:
    """One keep-alive connection over a raw non-blocking socket, reopened when the server closes it.

    ``loop.sock_*`` calls on a plain socket cost a fraction of asyncio streams (no transport, protocol,
    reader and writer objects per connection), and gunicorn's sync workers make a connection per request.
    """

    def __init__(self, host: str, port: int) -> None:
        self.address = (host, port)
        self.sock: socket.socket | None = None
        self.buffer = b""

    async def post(self, request: bytes) -> int:
        loop = asyncio.get_running_loop()
        try:
            if self.sock is None:
                self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                self.sock.setblocking(False)
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                await loop.sock_connect(self.sock, self.address)
            await loop.sock_sendall(self.sock, request)
            status, length, chunked, close = parse_head(await self._until(HEADER_END))
            if chunked:
                while size := int((await self._until(b"\r\n")).split(b";")[0], 16):
                    await self._exactly(size + 2)
                await self._until(b"\r\n")
            elif length is not None:
                await self._exactly(length)
            else:
                while await self._more(loop):
                    self.buffer = b""
                close = True
        except BaseException:
            self.close()
            raise
        if close:
            self.close()
        return status

    async def _more(self, loop: asyncio.AbstractEventLoop) -> bool:
        assert self.sock is not None
        chunk = await loop.sock_recv(self.sock, RECV_BYTES)
        self.buffer += chunk
        return bool(chunk)

    async def _until(self, marker: bytes) -> bytes:
        loop = asyncio.get_running_loop()
        while (end := self.buffer.find(marker)) < 0:
            if not await self._more(loop):
                raise asyncio.IncompleteReadError(self.buffer, None)
        found, self.buffer = self.buffer[: end + len(marker)], self.buffer[end + len(marker) :]
        return found

    async def _exactly(self, size: int) -> bytes:
        loop = asyncio.get_running_loop()
        while len(self.buffer) < size:
            if not await self._more(loop):
                raise asyncio.IncompleteReadError(self.buffer, size)
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""


def parse_head(head: bytes) -> tuple[int, int | None, bool, bool]:
    """Status, Content-Length, chunked?, close? from a response head."""
    lines = head.split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    if not version.startswith(b"HTTP/1."):
        raise ResponseError(f"not an HTTP/1.x response: {lines[0][:80]!r}")
    status = int(rest[:3])
    length, chunked, close = None, False, version == b"HTTP/1.0"
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
        elif name == b"connection":
            close = value.strip().lower() == b"close"
    return status, length, chunked, close
