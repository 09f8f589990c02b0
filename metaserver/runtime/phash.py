"""A perceptual hash of PNG images (difference hash, 64 bits), standard library only.

Figures are compared by this hash (Hamming distance below 20 is the same figure): a stored
notebook figure is hashed by metaserver (which has no image library), a rerun's figure by the
generated server; both decode the PNG here, so the two sides compute the hash the same way.
Gray is ITU-R 601 luma, alpha is ignored, the image is box-averaged to 9 x 8 and each bit
says whether a cell is brighter than its right neighbour.
"""

from __future__ import annotations

import struct
import zlib

__all__ = ["SAME_FIGURE", "hamming", "png_hash"]

SAME_FIGURE = 20
"""Hamming distances below this are the same figure."""
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
MAX_PIXELS = 25_000_000


def png_hash(data: bytes) -> str | None:
    """The 16-hex-digit difference hash of a PNG, or None for a PNG this cannot decode."""
    try:
        width, height, gray = grayscale(data)
    except (ValueError, zlib.error, struct.error, IndexError):
        return None
    cells = _shrink(width, height, gray, 9, 8)
    bits = 0
    for y in range(8):
        for x in range(8):
            bits = (bits << 1) | (cells[y * 9 + x] > cells[y * 9 + x + 1])
    return f"{bits:016x}"


def hamming(a: str, b: str) -> int:
    return bin(int(a, 16) ^ int(b, 16)).count("1")


def grayscale(data: bytes) -> tuple[int, int, list[int]]:
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    position, idat, palette = 8, bytearray(), b""
    width = height = depth = color = interlace = 0
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if color not in _CHANNELS or depth not in (8, 16) or interlace or width * height == 0:
        raise ValueError("unsupported PNG")
    if width * height > MAX_PIXELS:
        raise ValueError("too large")
    channels = _CHANNELS[color]
    step = channels * depth // 8
    stride = width * step
    raw = zlib.decompress(bytes(idat))
    rows = _unfilter(raw, height, stride, step)
    gray: list[int] = []
    for row in rows:
        if depth == 16:
            row = row[::2]  # the high byte of each sample
        if color == 0 or color == 4:
            gray.extend(row[::channels])
        elif color == 3:
            for index in row:
                r, g, b = palette[3 * index : 3 * index + 3]
                gray.append((r * 299 + g * 587 + b * 114) // 1000)
        else:
            gray.extend(
                (r * 299 + g * 587 + b * 114) // 1000
                for r, g, b in zip(row[::channels], row[1::channels], row[2::channels], strict=True)
            )
    return width, height, gray


def _unfilter(raw: bytes, height: int, stride: int, step: int) -> list[bytes]:
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(step, stride):
                line[i] = (line[i] + line[i - step]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - step] if i >= step else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - step] if i >= step else 0
                b = previous[i]
                c = previous[i - step] if i >= step else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad filter {kind}")
        rows.append(bytes(line))
        previous = line
    return rows


def _shrink(width: int, height: int, gray: list[int], columns: int, lines: int) -> list[float]:
    """Box averages of ``gray`` over a ``columns`` x ``lines`` grid."""
    sums = [0.0] * (columns * lines)
    counts = [0] * (columns * lines)
    column_of = [min(columns - 1, x * columns // width) for x in range(width)]
    for y in range(height):
        line = min(lines - 1, y * lines // height) * columns
        row = gray[y * width : (y + 1) * width]
        for x, value in enumerate(row):
            cell = line + column_of[x]
            sums[cell] += value
            counts[cell] += 1
    return [s / c if c else 0.0 for s, c in zip(sums, counts, strict=True)]
