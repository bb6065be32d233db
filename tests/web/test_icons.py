"""The app's icons are what ``scripts/icons.py`` draws, of the sizes the manifest says,
and the maskable ones keep everything but the felt inside the safe zone."""

from __future__ import annotations

import functools
import json
import struct
import zlib

import pytest

import icons
from maumau.server.config import WEB_DIR

#: each icon drawn once for all the tests
draw = functools.cache(icons.draw)


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, RGBA rows) of an 8-bit RGBA PNG without filters (as icons.py writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks = 8, {}
    idat = b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind!r}"
        if kind == b"IDAT":
            idat += body
        chunks[kind] = body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour, interlace) == (8, 6, 0), "not 8-bit RGBA, not interlaced"
    raw = zlib.decompress(idat)
    stride = width * 4 + 1
    assert len(raw) == stride * height
    assert all(raw[j * stride] == 0 for j in range(height)), "a filtered row"
    return width, height, b"".join(raw[j * stride + 1 : (j + 1) * stride] for j in range(height))


@pytest.mark.parametrize("icon", icons.ICONS, ids=lambda icon: icon.name)
def test_the_committed_icon_is_what_the_script_draws(icon: icons.Icon) -> None:
    width, height, pixels = read_png((WEB_DIR / "icons" / icon.name).read_bytes())
    assert (width, height) == (icon.size, icon.size)
    assert pixels == draw(icon), f"run: uv run python scripts/icons.py ({icon.name})"


def test_png_writing_round_trips() -> None:
    pixels = bytes(range(256)) * 4  # 16 x 16 RGBA
    assert read_png(icons.png(16, pixels)) == (16, 16, pixels)


@pytest.mark.parametrize(
    "icon", [i for i in icons.ICONS if i.kind == "maskable"], ids=lambda icon: icon.name
)
def test_a_maskable_icon_keeps_its_drawing_in_the_safe_zone(icon: icons.Icon) -> None:
    """Outside the centred circle of 40 % radius there is only the opaque felt: a
    launcher's mask may cut anything there away."""
    pixels, n = draw(icon), icon.size
    outside = 0
    for j in range(n):
        for i in range(n):
            x, y = (i + 0.5) / n, (j + 0.5) / n
            if (x - 0.5) ** 2 + (y - 0.5) ** 2 <= icons.SAFE_ZONE**2:
                continue
            outside += 1
            felt = tuple(round(c) for c in icons.felt(x, y))
            assert tuple(pixels[(j * n + i) * 4 : (j * n + i) * 4 + 4]) == (*felt, 255), (i, j)
    assert outside > n * n * 0.45  # (the safe zone's circle is about half the square)


def test_an_any_icon_is_a_tile_with_clear_corners() -> None:
    icon = next(i for i in icons.ICONS if i.kind == "any")
    pixels, n = draw(icon), icon.size
    alpha = [pixels[k * 4 + 3] for k in range(n * n)]
    assert alpha[0] == alpha[n - 1] == alpha[-1] == 0  # the corners
    assert alpha[(n // 2) * n + n // 2] == alpha[(n // 2) * n] == 255  # middle, edge's middle
    assert len({pixels[k * 4 : k * 4 + 3] for k in range(n * n)}) > 100  # drawn, not flat


def test_the_manifest_lists_every_app_icon_at_its_size() -> None:
    manifest = json.loads((WEB_DIR / "manifest.webmanifest").read_text("utf-8"))
    listed = {(i["src"], i["sizes"], i["purpose"]) for i in manifest["icons"]}
    drawn = {
        (f"/icons/{i.name}", f"{i.size}x{i.size}", i.kind) for i in icons.ICONS if i.kind != "apple"
    }
    assert listed == drawn
    assert {i["type"] for i in manifest["icons"]} == {"image/png"}
    apple = next(i for i in icons.ICONS if i.kind == "apple")
    assert apple.size == 180
    html = (WEB_DIR / "index.html").read_text("utf-8")
    assert f'<link rel="apple-touch-icon" href="/icons/{apple.name}">' in html
