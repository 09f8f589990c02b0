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
