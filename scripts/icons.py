"""Draw the installable app's icons (the web app manifest's and the apple-touch-icon):
two playing cards on the green felt, the top one with a red heart, as the favicon.

    uv run python scripts/icons.py        # (re)write src/maumau/web/icons/*.png

Pure Python (zlib PNG writing, no imaging library): every shape is a signed distance
function, antialiased by its distance to the pixel's centre.  Only exact arithmetic and
``math.sqrt`` (correctly rounded everywhere) are used, and the rotations are rational
(Pythagorean triples), so the pixels are the same on every machine: a test draws them
again and compares them with the committed files.

``any`` icons are a rounded tile with transparent corners; ``maskable`` ones fill the
whole square and keep the cards inside the safe zone (the centred circle of 40 % of
the size as radius), since a launcher may cut any shape out of them; the
apple-touch-icon fills the square too (iOS rounds its corners itself).
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "maumau" / "web" / "icons"

RGB = tuple[float, float, float]
FELT_LIGHT: RGB = (0x1F, 0x7A, 0x51)
FELT_DARK: RGB = (0x0E, 0x40, 0x29)
#: the manifest's background and theme colour (style.css ``--felt``)
FELT: RGB = (0x17, 0x60, 0x3F)
WHITE: RGB = (0xFF, 0xFF, 0xFF)
EDGE: RGB = (0x1A, 0x5C, 0x3A)
RED: RGB = (0xD1, 0x2D, 0x3F)

#: the radius of a maskable icon's safe zone, as a share of its size
SAFE_ZONE = 0.4


@dataclass(frozen=True)
class Icon:
    name: str
    size: int
    #: "any" (a rounded tile) or "maskable"/"apple" (the whole square)
    kind: str
    #: the cards' size relative to the any icon's
    scale: float


ICONS = (
    Icon("icon-192.png", 192, "any", 1.1),
    Icon("icon-512.png", 512, "any", 1.1),
    Icon("maskable-192.png", 192, "maskable", 1.0),
    Icon("maskable-512.png", 512, "maskable", 1.0),
    Icon("apple-touch-icon.png", 180, "apple", 1.1),
)

# A rotation by (cos, sin): 9-40-41 is 12.7 degrees, 11-60-61 is 10.4 degrees.
LEFT_TURN = (40 / 41, -9 / 41)
RIGHT_TURN = (60 / 61, 11 / 61)
CARD_W, CARD_H, CARD_R = 0.34, 0.48, 0.045
#: how far from the centre the cards and their shadows reach at scale 1 (0.361)
REACH = 0.38


def box(x: float, y: float, hw: float, hh: float, r: float) -> float:
    """Signed distance from (x, y) to a rounded box centred at 0 (half sizes hw, hh)."""
    qx, qy = abs(x) - hw + r, abs(y) - hh + r
    outside = math.sqrt(max(qx, 0.0) ** 2 + max(qy, 0.0) ** 2)
    return outside + min(max(qx, qy), 0.0) - r


def turned(
    x: float, y: float, cx: float, cy: float, turn: tuple[float, float]
) -> tuple[float, float]:
    """(x, y) in the frame of a shape centred at (cx, cy) and turned by ``turn``."""
    c, s = turn
    dx, dy = x - cx, y - cy
    return c * dx + s * dy, -s * dx + c * dy


HALF = math.sqrt(0.5)


def heart(x: float, y: float, size: float) -> float:
    """Signed distance to a heart ``size`` wide centred at 0, point down: a square
    standing on its corner and two circles on its upper edges."""
    r = size / (2 * (1 + HALF))  # half the square's side, the circles' radius
    y -= r * (1 - HALF) / 2  # (its top is 1.71 r above the square's centre, its point 1.41 r below)
    u, v = HALF * (x - y), HALF * (x + y)  # the frame of the 45-degree square
    square = box(u, v, r, r, 0.0)
    left = math.sqrt(u**2 + (v + r) ** 2) - r
    right = math.sqrt((u - r) ** 2 + v**2) - r
    return min(square, left, right)


def cover(distance: float, pixel: float) -> float:
    """The share of a pixel (``pixel`` units wide) inside a shape at ``distance``."""
    return min(1.0, max(0.0, 0.5 - distance / pixel))


def mix(under: RGB, over: RGB, alpha: float) -> RGB:
    return (
        under[0] + (over[0] - under[0]) * alpha,
        under[1] + (over[1] - under[1]) * alpha,
        under[2] + (over[2] - under[2]) * alpha,
    )


def felt(x: float, y: float) -> RGB:
    """The felt: lighter at the middle, darker to the corners."""
    d = min(1.0, math.sqrt((x - 0.5) ** 2 + (y - 0.42) ** 2) / 0.75)
    return mix(FELT_LIGHT, FELT_DARK, d * d)


Shape = Callable[[float, float], float]


def card(cx: float, cy: float, turn: tuple[float, float], scale: float) -> Shape:
    hw, hh, r = CARD_W / 2 * scale, CARD_H / 2 * scale, CARD_R * scale

    def distance(x: float, y: float) -> float:
        return box(*turned(x, y, cx, cy, turn), hw, hh, r)

    return distance


@dataclass(frozen=True)
class Layout:
    """The shapes of one icon: each card's shadow and face, and the heart's frame."""

    cards: tuple[tuple[Shape, Shape], ...]
    heart: tuple[float, float, tuple[float, float]]


def layout(scale: float) -> Layout:
    s = scale
    places = ((0.5 - 0.085 * s, 0.51, LEFT_TURN), (0.5 + 0.085 * s, 0.49, RIGHT_TURN))
    cards = tuple(
        (card(cx + 0.012 * s, cy + 0.02 * s, turn, s), card(cx, cy, turn, s))
        for cx, cy, turn in places
    )
    return Layout(cards, places[1])


def pixel_at(icon: Icon, shapes: Layout, x: float, y: float) -> tuple[float, float, float, float]:
    """The colour (0..255) and opacity (0..1) of the icon at (x, y) in 0..1 units."""
    pixel, s = 1 / icon.size, icon.scale
    colour = felt(x, y)
    alpha = 1.0
    if icon.kind == "any":
        alpha = cover(box(x - 0.5, y - 0.5, 0.5, 0.5, 0.2), pixel)
    if (x - 0.5) ** 2 + (y - 0.5) ** 2 > (REACH * s) ** 2:
        return (*colour, alpha)  # nothing but felt out here
    for shadow, face in shapes.cards:
        # a soft shadow on what lies under the card, then the card with its edge
        colour = mix(colour, (0, 0, 0), 0.35 * cover(shadow(x, y), 0.03 * s))
        d = face(x, y)
        colour = mix(colour, EDGE, cover(d, pixel))
        colour = mix(colour, WHITE, cover(d + 0.006 * s, pixel))
    hx, hy = turned(x, y, *shapes.heart)
    colour = mix(colour, RED, cover(heart(hx, hy, 0.2 * s), pixel))
    return (*colour, alpha)


def draw(icon: Icon) -> bytes:
    """The icon's pixels: rows of RGBA bytes, top to bottom."""
    rows = bytearray()
    shapes = layout(icon.scale)
    for j in range(icon.size):
        y = (j + 0.5) / icon.size
        for i in range(icon.size):
            r, g, b, a = pixel_at(icon, shapes, (i + 0.5) / icon.size, y)
            rows += bytes((round(r), round(g), round(b), round(a * 255)))
    return bytes(rows)


def png(size: int, pixels: bytes) -> bytes:
    """A PNG file (8-bit RGBA, no filter) of square ``pixels``."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    stride = size * 4
    raw = b"".join(b"\0" + pixels[j * stride : (j + 1) * stride] for j in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for icon in ICONS:
        (out / icon.name).write_bytes(png(icon.size, draw(icon)))
        print(f"{out / icon.name}: {icon.size}x{icon.size} ({icon.kind})", file=sys.stderr)


if __name__ == "__main__":
    main()
