"""The framing of the language server's messages (`Content-Length: N`, a blank line, N bytes), read
with bounds and re-synchronised after anything that is not a message.

pygls reads the framing itself (`pygls.io_.run_async`), and trusts it: a header block without a
`Content-Length`, or with one that is not a number, makes it glue each following body to the next
header line, so it never finds a message again; a `Content-Length` of a terabyte makes it read (and
allocate) a terabyte. Here a `GuardedReader` stands in front of that loop: it reads the stream in
chunks of bounded size, finds each message by its `Content-Length` header, skips (and logs) what is
not a message, refuses a message longer than `MAX_MESSAGE_BYTES` without reading it, and hands
pygls only well-formed messages.

Re-synchronising means: after a header block it cannot use, the reader looks for the next
`Content-Length:` in the stream and starts again there (the body of the refused message, of unknown
or refused length, is skipped on the way).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

from ..inputs import clip
from ..rulebook import MAX_RULEBOOK_BYTES

logger = logging.getLogger(__name__)

# A message larger than this is refused unread. It is far above the largest rulebook (the server
# answers a document above that size with one diagnostic saying so, and that message must arrive),
# with room for JSON's escapes.
MAX_MESSAGE_BYTES = 160 * MAX_RULEBOOK_BYTES
MAX_HEADER_BYTES = 4096  # a header block (LSP knows two short headers)
CHUNK = 65536  # bytes read from the stream at a time

CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
HEADER_END = re.compile(rb"\r?\n\r?\n")
HEADER_LINE = re.compile(rb"[!-9;-~]+[ \t]*:[^\r\n]*")  # a name of visible characters but ':', a colon, a value
KEEP = 64  # bytes kept from a chunk searched in vain: a header name split between two chunks is still found


class Framer:
    """Reads whole messages from a byte stream (`next_body`), never holding much more than one."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES):
        self.stream = stream
        self.limit = limit
        self.buf = bytearray()

    def _fill(self) -> bool:
        """Read what the stream has (up to a chunk); False at its end."""
        read1 = getattr(self.stream, "read1", None)
        data = read1(CHUNK) if read1 is not None else self.stream.read(CHUNK)
        if not data:
            return False
        self.buf += data
        return True

    def next_body(self) -> bytes | None:
        """The body of the next well-formed message; None at the end of the stream."""
        while True:
            found = CONTENT_LENGTH.search(self.buf)
            if found is None:
                if len(self.buf) > KEEP:
                    self._skip(len(self.buf) - KEEP)
                if not self._fill():
                    return None
                continue
            if found.start():
                self._skip(found.start())
            end = HEADER_END.search(self.buf, 0, MAX_HEADER_BYTES)
            if end is None:
                if len(self.buf) >= MAX_HEADER_BYTES:
                    self._refuse(f"a header block longer than {MAX_HEADER_BYTES} bytes", len(found.group()))
                elif not self._fill():
                    return None
                continue
            length, problem = self._length(bytes(self.buf[: end.start()]))
            if problem:
                self._refuse(problem, end.end())  # its body, if any, is skipped on the way to the next header
                continue
            start = end.end()
            while len(self.buf) < start + length:
                if not self._fill():
                    return None
            body = bytes(self.buf[start : start + length])
            del self.buf[: start + length]
            return body

    def _length(self, header: bytes) -> tuple[int, str]:
        """The Content-Length of a header block (its first line), or why it cannot be used."""
        length = 0
        for line in header.split(b"\n"):
            line = line.rstrip(b"\r")
            if not HEADER_LINE.fullmatch(line):
                return 0, f"a header line that is not 'Name: value': {_shown(line)}"
            name, _, value = line.partition(b":")
            if name.strip().lower() != b"content-length":
                continue
            value = value.strip()
            if not (value.isdigit() and len(value) <= 20):
                return 0, f"a Content-Length that is not a number: {_shown(value)}"
            length = int(value)
        if length == 0:
            return 0, "an empty message"
        if length > self.limit:
            return 0, f"a message of {length} bytes, more than a message may be ({self.limit})"
        return length, ""

    def _skip(self, n: int) -> None:
        skipped = bytes(self.buf[:n])
        del self.buf[:n]
        lines = [line.rstrip(b"\r") for line in skipped.split(b"\n")]
        if not all(HEADER_LINE.fullmatch(line) for line in lines if line):  # headers before Content-Length are fine
            logger.warning("skipped %d bytes that are not a message: %s", n, _shown(skipped))

    def _refuse(self, why: str, n: int) -> None:
        logger.warning("refused %s; reading on from the next Content-Length", why)
        del self.buf[:n]


def _shown(data: bytes) -> str:
    return clip(data.decode("utf-8", "replace"))


class GuardedReader:
    """pygls's asynchronous reader (`readline`, `readexactly`), giving it only well-formed messages.

    Each message is handed over as pygls expects it: its header line, a blank line, its body.
    """

    def __init__(self, stream: BinaryIO, executor: ThreadPoolExecutor | None = None):
        self.framer = Framer(stream)
        self.executor = executor
        self.lines: list[bytes] = []
        self.body = b""

    async def _next(self) -> None:
        body = await asyncio.get_running_loop().run_in_executor(self.executor, self.framer.next_body)
        if body is not None:
            self.lines = [f"Content-Length: {len(body)}\r\n".encode(), b"\r\n"]
            self.body = body

    async def _readline(self) -> bytes:
        if not self.lines:
            await self._next()
        return self.lines.pop(0) if self.lines else b""  # b"": the end of the stream

    def readline(self) -> Awaitable[bytes]:
        return self._readline()

    async def _readexactly(self, n: int) -> bytes:
        body, self.body = self.body, b""
        return body[:n]

    def readexactly(self, n: int) -> Awaitable[bytes]:
        return self._readexactly(n)
