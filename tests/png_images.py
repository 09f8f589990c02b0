"""PNG images written with the standard library, each row with a chosen filter (for tests)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

Pixel = tuple[int, int, int, int]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _filtered(kind: int, line: bytes, previous: bytes, step: int) -> bytes:
    out = bytearray()
    for i, value in enumerate(line):
        a = line[i - step] if i >= step else 0
        b = previous[i]
        c = previous[i - step] if i >= step else 0
        predictor = [0, a, b, (a + b) >> 1, _paeth(a, b, c)][kind]
        out.append((value - predictor) & 0xFF)
    return bytes([kind]) + bytes(out)


def png(width: int, height: int, pixel: Callable[[int, int], Pixel]) -> bytes:
    """An 8-bit RGBA PNG; row y uses filter y % 5, so every filter is exercised."""
    raw, previous = b"", bytes(width * 4)
    for y in range(height):
        line = bytes(v for x in range(width) for v in pixel(x, y))
        raw += _filtered(y % 5, line, previous, 4)
        previous = line

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def gradient(x: int, y: int) -> Pixel:
    return (min(255, x * 2), min(255, y * 2), 128, 255)


def stripes(x: int, y: int) -> Pixel:
    return (255, 255, 255, 255) if (x // 16) % 2 else (0, 0, 0, 255)


def checks(x: int, y: int) -> Pixel:
    return (255, 255, 255, 255) if (x // 8 + y // 8) % 2 else (0, 0, 0, 255)
