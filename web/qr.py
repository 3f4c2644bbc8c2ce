"""A small QR code encoder (ISO/IEC 18004): byte mode, error correction L or M, versions 1-10.

Enough for the join URL the table view shows (``http://192.168.1.20:8000/join/TOKEN`` is
about 50 bytes: version 4 at level M). It is written here, in pure Python, rather than taken
from a package so the Pi needs nothing more than Flask to show the code, and it renders
straight to SVG (no imaging library).

>>> code = encode("HELLO")
>>> code.version, code.size, code.ecl
(1, 21, 'M')
>>> svg(code).startswith('<svg')
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QrCode", "QrTooLong", "encode", "svg"]

MAX_VERSION = 10

# Per error-correction level, indexed by version (index 0 unused). From the standard's table 9.
_ECC_PER_BLOCK = {
    "L": (-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18),
    "M": (-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26),
}
_NUM_BLOCKS = {
    "L": (-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4),
    "M": (-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5),
}
_FORMAT_ECL_BITS = {"L": 1, "M": 0}


class QrTooLong(ValueError):
    """The text does not fit in a version-10 code at the asked level."""


@dataclass(frozen=True)
class QrCode:
    """A finished code: ``modules[y][x]`` is True for a dark module (no quiet zone)."""

    version: int
    ecl: str
    mask: int
    modules: tuple[tuple[bool, ...], ...]

    @property
    def size(self) -> int:
        return len(self.modules)

    def rows(self) -> list[str]:
        """The matrix as lines of ``1`` (dark) and ``0`` (light): handy in tests."""
        return ["".join("1" if m else "0" for m in row) for row in self.modules]


# --- arithmetic in GF(256) and Reed-Solomon --------------------------------------------------

def _gf_mul(x: int, y: int) -> int:
    z = 0
    for i in reversed(range(8)):
        z = (z << 1) ^ ((z >> 7) * 0x11D)
        z ^= ((y >> i) & 1) * x
    return z


def _rs_divisor(degree: int) -> list[int]:
    result = [0] * (degree - 1) + [1]
    root = 1
    for _ in range(degree):
        for j in range(degree):
            result[j] = _gf_mul(result[j], root)
            if j + 1 < degree:
                result[j] ^= result[j + 1]
        root = _gf_mul(root, 0x02)
    return result


def _rs_remainder(data: list[int], divisor: list[int]) -> list[int]:
    result = [0] * len(divisor)
    for b in data:
        factor = b ^ result.pop(0)
        result.append(0)
        for i, coef in enumerate(divisor):
            result[i] ^= _gf_mul(coef, factor)
    return result


# --- capacities -----------------------------------------------------------------------------

def _raw_data_modules(ver: int) -> int:
    """Modules left for data and error correction once the function patterns are drawn."""
    result = (16 * ver + 128) * ver + 64
    if ver >= 2:
        num_align = ver // 7 + 2
        result -= (25 * num_align - 10) * num_align - 55
        if ver >= 7:
            result -= 36
    return result


def _data_codewords(ver: int, ecl: str) -> int:
    return _raw_data_modules(ver) // 8 - _ECC_PER_BLOCK[ecl][ver] * _NUM_BLOCKS[ecl][ver]


def _alignment_positions(ver: int) -> list[int]:
    if ver == 1:
        return []
    num_align = ver // 7 + 2
    step = (ver * 4 + num_align * 2 + 1) // (num_align * 2 - 2) * 2
    size = ver * 4 + 17
    result = [size - 7 - i * step for i in range(num_align - 1)]
    return [6] + sorted(result)


# --- encoding -------------------------------------------------------------------------------

def _data_bits(data: bytes, ver: int) -> list[int]:
    bits: list[int] = []

    def put(value: int, length: int) -> None:
        bits.extend((value >> i) & 1 for i in reversed(range(length)))

    put(0b0100, 4)                                # byte mode
    put(len(data), 8 if ver <= 9 else 16)         # character count
    for b in data:
        put(b, 8)
    return bits


def _codewords(data: bytes, ver: int, ecl: str) -> list[int]:
    capacity_bits = _data_codewords(ver, ecl) * 8
    bits = _data_bits(data, ver)
    bits += [0] * min(4, capacity_bits - len(bits))   # terminator
    bits += [0] * (-len(bits) % 8)                   # to a byte boundary
    words = [int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8)]
    pad = (0xEC, 0x11)
    words += [pad[i % 2] for i in range(capacity_bits // 8 - len(words))]
    return _add_ecc_and_interleave(words, ver, ecl)


def _add_ecc_and_interleave(data: list[int], ver: int, ecl: str) -> list[int]:
    num_blocks = _NUM_BLOCKS[ecl][ver]
    ecc_len = _ECC_PER_BLOCK[ecl][ver]
    raw = _raw_data_modules(ver) // 8
    num_short = num_blocks - raw % num_blocks
    short_len = raw // num_blocks
    divisor = _rs_divisor(ecc_len)
    blocks, k = [], 0
    for i in range(num_blocks):
        take = short_len - ecc_len + (0 if i < num_short else 1)
        dat = data[k:k + take]
        k += take
        ecc = _rs_remainder(dat, divisor)
        if i < num_short:
            dat = dat + [0]                          # placeholder, skipped below
        blocks.append(dat + ecc)
    out = []
    for i in range(len(blocks[0])):
        for j, block in enumerate(blocks):
            if i != short_len - ecc_len or j >= num_short:
                out.append(block[i])
    return out


class _Matrix:
    def __init__(self, ver: int):
        self.ver = ver
        self.size = ver * 4 + 17
        self.dark = [[False] * self.size for _ in range(self.size)]
        self.function = [[False] * self.size for _ in range(self.size)]

    def set_function(self, x: int, y: int, dark: bool) -> None:
        self.dark[y][x] = dark
        self.function[y][x] = True

    def draw_function_patterns(self) -> None:
        size = self.size
        for i in range(size):                        # timing patterns
            self.set_function(6, i, i % 2 == 0)
            self.set_function(i, 6, i % 2 == 0)
        for cx, cy in ((3, 3), (size - 4, 3), (3, size - 4)):   # finders with separators
            for dy in range(-4, 5):
                for dx in range(-4, 5):
                    x, y = cx + dx, cy + dy
                    if 0 <= x < size and 0 <= y < size:
                        self.set_function(x, y, max(abs(dx), abs(dy)) not in (2, 4))
        positions = _alignment_positions(self.ver)
        last = len(positions) - 1
        for i, ay in enumerate(positions):
            for j, ax in enumerate(positions):
                if (i, j) in ((0, 0), (0, last), (last, 0)):
                    continue                         # those corners hold finders
                for dy in range(-2, 3):
                    for dx in range(-2, 3):
                        self.set_function(ax + dx, ay + dy, max(abs(dx), abs(dy)) != 1)
        self.draw_format_bits(0, "M")                # reserve the areas; redrawn later
        self.draw_version()

    def draw_format_bits(self, mask: int, ecl: str) -> None:
        data = _FORMAT_ECL_BITS[ecl] << 3 | mask
        rem = data
        for _ in range(10):
            rem = (rem << 1) ^ ((rem >> 9) * 0x537)
        bits = (data << 10 | rem) ^ 0x5412
        bit = [(bits >> i) & 1 == 1 for i in range(15)]
        size = self.size
        for i in range(6):
            self.set_function(8, i, bit[i])
        self.set_function(8, 7, bit[6])
        self.set_function(8, 8, bit[7])
        self.set_function(7, 8, bit[8])
        for i in range(9, 15):
            self.set_function(14 - i, 8, bit[i])
        for i in range(8):
            self.set_function(size - 1 - i, 8, bit[i])
        for i in range(8, 15):
            self.set_function(8, size - 15 + i, bit[i])
        self.set_function(8, size - 8, True)         # the dark module

    def draw_version(self) -> None:
        if self.ver < 7:
            return
        rem = self.ver
        for _ in range(12):
            rem = (rem << 1) ^ ((rem >> 11) * 0x1F25)
        bits = self.ver << 12 | rem
        for i in range(18):
            dark = (bits >> i) & 1 == 1
            a, b = self.size - 11 + i % 3, i // 3
            self.set_function(a, b, dark)
            self.set_function(b, a, dark)

    def draw_codewords(self, words: list[int]) -> None:
        size, i, total = self.size, 0, len(words) * 8
        right = size - 1
        while right >= 1:
            if right == 6:
                right = 5                            # skip the vertical timing column
            for vert in range(size):
                for j in range(2):
                    x = right - j
                    upward = ((right + 1) & 2) == 0
                    y = size - 1 - vert if upward else vert
                    if not self.function[y][x] and i < total:
                        self.dark[y][x] = (words[i >> 3] >> (7 - (i & 7))) & 1 == 1
                        i += 1
            right -= 2

    def apply_mask(self, mask: int) -> None:
        test = _MASKS[mask]
        for y in range(self.size):
            for x in range(self.size):
                if not self.function[y][x] and test(x, y):
                    self.dark[y][x] = not self.dark[y][x]


_MASKS = (
    lambda x, y: (x + y) % 2 == 0,
    lambda x, y: y % 2 == 0,
    lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0,
    lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: x * y % 2 + x * y % 3 == 0,
    lambda x, y: (x * y % 2 + x * y % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + x * y % 3) % 2 == 0,
)


def _penalty(dark: list[list[bool]]) -> int:
    """The standard's four penalty rules; the mask with the lowest score is used."""
    size = len(dark)
    score = 0
    lines = [list(row) for row in dark] + [[dark[y][x] for y in range(size)] for x in range(size)]
    finder_like = ([True, False, True, True, True, False, True, False, False, False, False],
                   [False, False, False, False, True, False, True, True, True, False, True])
    for line in lines:
        run, prev = 0, None
        for m in line:
            if m == prev:
                run += 1
            else:
                if run >= 5:
                    score += 3 + run - 5
                run, prev = 1, m
        if run >= 5:
            score += 3 + run - 5
        for i in range(size - 10):
            if line[i:i + 11] in finder_like:
                score += 40
    for y in range(size - 1):
        for x in range(size - 1):
            c = dark[y][x]
            if c == dark[y][x + 1] == dark[y + 1][x] == dark[y + 1][x + 1]:
                score += 3
    total = size * size
    dark_count = sum(map(sum, dark))
    score += 10 * (abs(dark_count * 20 - total * 10) // total)
    return score


def encode(text: str | bytes, ecl: str = "M", *, version: int | None = None,
           mask: int | None = None) -> QrCode:
    """Encode ``text`` (UTF-8) in byte mode at level ``ecl`` (``"L"`` or ``"M"``).

    The smallest version that fits is used unless ``version`` is given; the mask with the lowest
    penalty is used unless ``mask`` (0-7) is given. Raises :class:`QrTooLong` if it cannot fit.
    """
    if ecl not in _ECC_PER_BLOCK:
        raise ValueError(f"error correction level must be 'L' or 'M', not {ecl!r}")
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    versions = [version] if version is not None else range(1, MAX_VERSION + 1)
    for ver in versions:
        if not 1 <= ver <= MAX_VERSION:
            raise ValueError(f"version must be 1..{MAX_VERSION}")
        if len(_data_bits(data, ver)) <= _data_codewords(ver, ecl) * 8:
            break
    else:
        raise QrTooLong(f"{len(data)} bytes do not fit in a version-{versions[-1]} QR code "
                        f"at level {ecl}")
    words = _codewords(data, ver, ecl)
    best = None
    for m in ([mask] if mask is not None else range(8)):
        matrix = _Matrix(ver)
        matrix.draw_function_patterns()
        matrix.draw_codewords(words)
        matrix.apply_mask(m)
        matrix.draw_format_bits(m, ecl)
        score = _penalty(matrix.dark) if mask is None else 0
        if best is None or score < best[0]:
            best = (score, m, matrix)
    _, m, matrix = best
    return QrCode(ver, ecl, m, tuple(tuple(row) for row in matrix.dark))


def svg(code: QrCode, *, border: int = 4, dark: str = "#000", light: str = "#fff",
        title: str | None = None) -> str:
    """The code as a standalone SVG (scales to any size; crisp edges), with a quiet zone."""
    n = code.size + 2 * border
    parts = []
    for y, row in enumerate(code.modules):
        x = 0
        while x < code.size:
            if row[x]:
                start = x
                while x < code.size and row[x]:
                    x += 1
                parts.append(f"M{start + border} {y + border}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    label = f"<title>{_escape(title)}</title>" if title else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}" '
            f'shape-rendering="crispEdges" role="img">{label}'
            f'<rect width="{n}" height="{n}" fill="{light}"/>'
            f'<path d="{"".join(parts)}" fill="{dark}"/></svg>')


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
