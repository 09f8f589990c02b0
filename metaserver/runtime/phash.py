"""A perceptual hash of PNG images (difference hash, 64 bits), standard library only.

Figures are compared by this hash (Hamming distance below 20 is the same figure): a stored
notebook figure is hashed by metaserver (which has no image library), a rerun's figure by the
generated server; both decode the PNG here, so the two sides compute the hash the same way.
Gray is ITU-R 601 luma, alpha is ignored, the image is box-averaged to 9 x 8 and each bit
says whether a cell is brighter than its right neighbour.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections import Counter
from itertools import pairwise
from typing import NamedTuple

__all__ = ["SAME_FIGURE", "hamming", "png_hash"]

SAME_FIGURE = 20
"""Hamming distances below this are the same figure."""
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
MAX_PIXELS = 25_000_000


def png_hash(data: bytes) -> str | None:
    """The 16-hex-digit difference hash of a PNG, or None for a PNG this cannot decode."""
    try:
        image = _decode(data)
    except (ValueError, zlib.error, struct.error, IndexError):
        return None
    width, height = image.width, image.height
    if image.depth == 8 and image.color in (2, 6) and width >= 9 and height >= 8:
        cells = _colour_cells(image, 9, 8)
    else:
        cells = _shrink(width, height, _luma(image), 9, 8)
    bits = 0
    for y in range(8):
        for x in range(8):
            bits = (bits << 1) | (cells[y * 9 + x] > cells[y * 9 + x + 1])
    return f"{bits:016x}"


def hamming(a: str, b: str) -> int:
    return bin(int(a, 16) ^ int(b, 16)).count("1")


class _Image(NamedTuple):
    width: int
    height: int
    depth: int
    color: int
    channels: int
    rows: list[bytes]
    palette: bytes


def grayscale(data: bytes) -> tuple[int, int, list[int]]:
    image = _decode(data)
    return image.width, image.height, _luma(image)


def _decode(data: bytes) -> _Image:
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
    return _Image(width, height, depth, color, channels, rows, palette)


def _luma(image: _Image) -> list[int]:
    channels, color, palette = image.channels, image.color, image.palette
    gray: list[int] = []
    for row in image.rows:
        if image.depth == 16:
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
    return gray


def _colour_cells(image: _Image, columns: int, lines: int) -> list[float]:
    """What :func:`_shrink` of :func:`_luma` gives, for 8-bit RGB(A), without a list of
    every pixel's luma: each row's part in a cell is counted by colour (in C), and a figure
    has few colours, so each colour's luma is computed once."""
    width, height, channels = image.width, image.height, image.channels
    edges = [0] + [x for x in range(1, width) if x * columns // width != (x - 1) * columns // width]
    edges.append(width)
    luma: dict[tuple[int, int, int], int] = {}
    sums = [0] * (columns * lines)
    counts = [0] * (columns * lines)
    for y, row in enumerate(image.rows):
        line = min(lines - 1, y * lines // height) * columns
        for cell, (start, end) in enumerate(pairwise(edges)):
            part = row[start * channels : end * channels]
            total = 0
            for rgb, count in Counter(
                zip(part[::channels], part[1::channels], part[2::channels], strict=True)
            ).items():
                value = luma.get(rgb)
                if value is None:
                    value = luma[rgb] = (rgb[0] * 299 + rgb[1] * 587 + rgb[2] * 114) // 1000
                total += value * count
            sums[line + cell] += total
            counts[line + cell] += end - start
    return [s / c if c else 0.0 for s, c in zip(sums, counts, strict=True)]


def _unfilter(raw: bytes, height: int, stride: int, step: int) -> list[bytes]:
    # A figure saved at 200 dpi (2372 x 1580 RGBA) took 4.4 s here, most of it in the Up
    # and Paeth rows, inside a tutorial tool's call budget (issue 30: PyDMD). Up is a
    # bytewise sum, done on the whole row as one integer; Paeth is written without calls.
    rows: list[bytes] = []
    previous = bytearray(stride)
    low = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(step, stride):
                line[i] = (line[i] + line[i - step]) & 0xFF
        elif kind == 2:
            line = bytearray(_bytewise_sum(bytes(line), bytes(previous), low, high, stride))
        elif kind == 3:
            for i in range(stride):
                left = line[i - step] if i >= step else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            _paeth(line, previous, stride, step)
        elif kind != 0:
            raise ValueError(f"bad filter {kind}")
        rows.append(bytes(line))
        previous = line
    return rows


def _bytewise_sum(a: bytes, b: bytes, low: int, high: int, size: int) -> bytes:
    """Each byte of ``a`` plus the same byte of ``b``, modulo 256 (no carry between bytes):
    the low seven bits of each are added apart, and the top bit is their exclusive or."""
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    return (((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(size, "big")


def _paeth(line: bytearray, previous: bytearray, stride: int, step: int) -> None:
    for i in range(min(step, stride)):  # no left neighbour: the predictor is the one above
        line[i] = (line[i] + previous[i]) & 0xFF
    if stride <= step:
        return
    # Where the filtered byte is 0 and the row above repeats its left pixel (b == c, so
    # |p - a| = 0), the byte is its left neighbour's: a figure's flat background is long
    # runs of that, copied whole; the rest is computed byte by byte.
    size = stride - step
    filtered = int.from_bytes(line[step:], "big")
    above = int.from_bytes(previous[step:], "big") ^ int.from_bytes(previous[:size], "big")
    flat = (filtered | above).to_bytes(size, "big")
    done = step
    for run in _FLAT_RUN.finditer(flat):
        start, end = run.start() + step, run.end() + step
        _paeth_bytes(line, previous, done, start, step)
        pattern = bytes(line[start - step : start])
        line[start:end] = (pattern * ((end - start) // step + 1))[: end - start]
        done = end
    _paeth_bytes(line, previous, done, stride, step)


_FLAT_RUN = re.compile(rb"\x00{32,}")


def _paeth_bytes(line: bytearray, previous: bytearray, start: int, end: int, step: int) -> None:
    for i in range(start, end):
        a, b, c = line[i - step], previous[i], previous[i - step]
        # p = a + b - c; |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|
        pa = b - c if b > c else c - b
        pb = a - c if a > c else c - a
        pc = a + b - c - c
        if pc < 0:
            pc = -pc
        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF


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
