"""The standard-library PNG decoder and difference hash that compare notebook figures."""

from __future__ import annotations

from png_images import checks, gradient, png, stripes

from metaserver.runtime.phash import SAME_FIGURE, grayscale, hamming, png_hash


def test_decodes_every_filter_to_luma() -> None:
    width, height, gray = grayscale(png(50, 30, gradient))  # rows use filters 0..4 in turn
    assert (width, height) == (50, 30)
    expected = [
        (min(255, x * 2) * 299 + min(255, y * 2) * 587 + 128 * 114) // 1000
        for y in range(30)
        for x in range(50)
    ]
    assert gray == expected


def test_same_picture_at_another_size_hashes_close_other_pictures_far() -> None:
    small = png_hash(png(64, 48, stripes))
    large = png_hash(png(160, 120, lambda x, y: stripes(x * 2 // 5, y * 2 // 5)))
    other = png_hash(png(64, 48, checks))
    assert small is not None and large is not None and other is not None
    assert hamming(small, large) < SAME_FIGURE
    assert hamming(small, other) >= SAME_FIGURE


def test_not_a_png() -> None:
    assert png_hash(b"GIF89a...") is None
    assert png_hash(png(4, 4, gradient)[:40]) is None


def _plot(x: int, y: int) -> tuple[int, int, int, int]:
    """A figure's look: a flat white page, a blue curve, a grey frame."""
    if x in (10, 109) or y in (5, 54):
        return (90, 90, 90, 255)
    if abs(y - (30 + (x % 40) // 3)) <= 1:
        return (31, 119, 180, 255)
    return (255, 255, 255, 255)


def test_a_figures_flat_background_decodes_and_hashes_as_every_pixel_says() -> None:
    # PyDMD's figures (2372 x 1580 at 200 dpi) took 4.4 s each to hash, inside a tutorial
    # call's budget; the flat runs are now copied whole and colours counted, exactly.
    width, height = 120, 60
    image = png(width, height, _plot)  # rows use filters 0..4 in turn: Paeth on flat runs

    _, _, gray = grayscale(image)

    luma = [
        (r * 299 + g * 587 + b * 114) // 1000
        for y in range(height)
        for x in range(width)
        for r, g, b, _ in [_plot(x, y)]
    ]
    assert gray == luma
    sums, counts = [0] * 72, [0] * 72
    for y in range(height):
        for x in range(width):
            cell = min(7, y * 8 // height) * 9 + min(8, x * 9 // width)
            sums[cell] += luma[y * width + x]
            counts[cell] += 1
    cells = [s / c for s, c in zip(sums, counts, strict=True)]
    bits = 0
    for y in range(8):
        for x in range(8):
            bits = (bits << 1) | (cells[y * 9 + x] > cells[y * 9 + x + 1])
    assert png_hash(image) == f"{bits:016x}"
