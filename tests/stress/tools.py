"""Helpers several stress test modules share."""
from __future__ import annotations

import asyncio
import re


async def raw_exchange(port: int, payload: bytes, *, read_timeout: float = 2.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(payload)
        await writer.drain()
        chunks = []
        try:
            async with asyncio.timeout(read_timeout):
                while chunk := await reader.read(65536):
                    chunks.append(chunk)
                    if b"\r\n\r\n" in b"".join(chunks):
                        head, _, rest = b"".join(chunks).partition(b"\r\n\r\n")
                        m = re.search(rb"content-length: (\d+)", head, re.I)
                        if m and len(rest) >= int(m.group(1)):
                            break
        except TimeoutError:
            pass
        return b"".join(chunks)
    finally:
        writer.close()
