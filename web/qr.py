"""The join link's QR code, drawn by segno (pure Python, maintained; pinned in pyproject.toml).

Level M (15 % of the code may be scuffed or glared and it still reads) and the smallest version
that holds the link; the SVG has only a viewBox, so the page's CSS sizes it.

>>> svg("http://192.168.1.20:8000/join/abc").startswith('<svg viewBox="0 0 37 37"')
True
"""

from __future__ import annotations

import io

import segno

__all__ = ["svg", "png"]


def _code(url: str) -> segno.QRCode:
    return segno.make(url, error="m", boost_error=False)


def svg(url: str) -> str:
    """An inline ``<svg>`` of ``url`` with the link as its ``<title>`` (escaped by segno)."""
    return _code(url).svg_inline(scale=1, border=4, omitsize=True, title=url, light="#fff")


def png(url: str, scale: int = 8) -> bytes:
    """A PNG of ``url`` (``scale`` pixels per module, the 4-module quiet zone included)."""
    out = io.BytesIO()
    _code(url).save(out, kind="png", scale=scale, border=4)
    return out.getvalue()
