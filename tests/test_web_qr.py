"""The QR encoder of the join link: checked module by module against a reference encoder's
matrices (made once with the ``qrcode`` package, byte mode, masks forced), and read back by a
small decoder for every version and level it supports."""

import pytest

from web import qr
from web.qr import _Matrix, _NUM_BLOCKS, _ECC_PER_BLOCK, _raw_data_modules, _data_codewords, _MASKS

REFERENCES = {
    ('HELLO', 'M', 2): (1, (
        "111111100001001111111",
        "100000100010101000001",
        "101110101100001011101",
        "101110101010101011101",
        "101110101100101011101",
        "100000101111001000001",
        "111111101010101111111",
        "000000001100000000000",
        "101111100011001111100",
        "011011010111111001100",
        "001111101000101101110",
        "011010000111111001100",
        "010111111000100100101",
        "000000001010100101000",
        "111111100111010010110",
        "100000101010000111110",
        "101110101101010010110",
        "101110101101111101000",
        "101110101100101100100",
        "100000100111111011100",
        "111111101100100010110",
    )),
    ('http://192.168.1.20:8000/join/abcDEF123_-xyz', 'M', 5): (4, (
        "111111100011101010001000101111111",
        "100000101001011001000110101000001",
        "101110101101010011100001001011101",
        "101110101101000100010000101011101",
        "101110100000010100100000101011101",
        "100000100010011010101000101000001",
        "111111101010101010101010101111111",
        "000000001111001000100001100000000",
        "100000101000111101101001011001110",
        "001110001100101100011011110011101",
        "011011100010100110100100000010110",
        "011101001011101000010010111111111",
        "100110101001111011101111001000011",
        "010111001100001010001111010001111",
        "001110101110100000110010000110110",
        "101101010010110100110010111011101",
        "011101101001100001111001000110101",
        "011111000100010111010111111001101",
        "111110101110001100011001100001101",
        "111111000110001111100101011111101",
        "101111101000101010001111000011000",
        "100110011010001010101011000011100",
        "100101101111100110101100101001110",
        "100011001111000000100010110001100",
        "111011100100000110110010111111100",
        "000000001100111110110000100010101",
        "111111100100100100100101101010110",
        "100000100100110110011000100010111",
        "101110100011111000100100111111000",
        "101110100011111011001110000011101",
        "101110100011010010001001100111011",
        "100000100101000110011001011010100",
        "111111101011101001011001110111010",
    )),
    ('UNO', 'L', 7): (1, (
        "111111100101101111111",
        "100000101101001000001",
        "101110101100101011101",
        "101110100101001011101",
        "101110101000101011101",
        "100000101001101000001",
        "111111101010101111111",
        "000000001111100000000",
        "110100110110001110110",
        "110010000100001000110",
        "101101100000110000001",
        "110111010101000001001",
        "000110110000101010111",
        "000000001111000110110",
        "111111101010010100010",
        "100000100111110111001",
        "101110100001001110111",
        "101110101001000001111",
        "101110100100100010001",
        "100000101000011010100",
        "111111101011100011110",
    )),
    ('http://10.0.0.5:8000/join/kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk', 'L', 3): (5, (
        "1111111010101101011110010100101111111",
        "1000001001111100100001011110101000001",
        "1011101011100001101000010111101011101",
        "1011101011101010010100111110001011101",
        "1011101010011011100101001111101011101",
        "1000001000110100010111101000001000001",
        "1111111010101010101010101010101111111",
        "0000000000101001011110100001000000000",
        "1111001010111101111001010011110011101",
        "0000100011101110111110010100110000100",
        "0100011111111100100001011110110011110",
        "0110000100000001101000010111100100101",
        "1011001011001010010100111110001111100",
        "1011100100111011100101001111101011101",
        "1001101101010100010111101000000101000",
        "1101000001010010000101111010001011001",
        "0000101100101011001111100101010101110",
        "1010100001100011010011111001001100111",
        "1101111101000111111010000101110010011",
        "1000010000110111011110100001001000010",
        "0110111110100111111001010011110011010",
        "1101100100100000111110010100100001010",
        "1111101011100010100001011110111110000",
        "0111110010111111101000010111101000100",
        "0101111110110000010100111110011111111",
        "0011010010110101100101001111111011101",
        "0101111111001010010111101000011110010",
        "1010000010101100000101111010110111001",
        "0001001111010001001111100101111111111",
        "0000000010101101010011111000100010101",
        "1111111001011001111010000100101011011",
        "1000001001101001011110100000100010011",
        "1011101001111101111001010010111110010",
        "1011101011001110111110010101111010111",
        "1011101010011100100001011111111010100",
        "1000001011100001101000010110001100100",
        "1111111011101010010100111110011000111",
    )),
}


@pytest.mark.parametrize("key", list(REFERENCES))
def test_matches_reference_matrix(key):
    text, ecl, mask = key
    version, rows = REFERENCES[key]
    code = qr.encode(text, ecl, mask=mask)
    assert code.version == version
    assert code.rows() == list(rows)


def _decode(code: qr.QrCode) -> bytes:
    """Read a code back: format bits, unmask, zigzag, de-interleave, byte-mode payload."""
    size, ver = code.size, code.version
    dark = [list(row) for row in code.modules]
    fmt = 0
    for i in range(6):
        fmt |= dark[i][8] << i
    fmt |= dark[7][8] << 6 | dark[8][8] << 7 | dark[8][7] << 8
    for i in range(9, 15):
        fmt |= dark[8][14 - i] << i
    fmt ^= 0x5412
    data = fmt >> 10
    ecl = {1: "L", 0: "M"}[data >> 3]
    mask = data & 7
    assert ecl == code.ecl and mask == code.mask
    m = _Matrix(ver)
    m.draw_function_patterns()
    bits = []
    right = size - 1
    while right >= 1:
        if right == 6:
            right = 5
        for vert in range(size):
            for j in range(2):
                x = right - j
                upward = ((right + 1) & 2) == 0
                y = size - 1 - vert if upward else vert
                if not m.function[y][x]:
                    bits.append(dark[y][x] ^ _MASKS[mask](x, y))
        right -= 2
    words = [int("".join(str(int(b)) for b in bits[i:i + 8]), 2) for i in range(0, len(bits) - 7, 8)]
    raw = _raw_data_modules(ver) // 8
    nblocks, ecc = _NUM_BLOCKS[ecl][ver], _ECC_PER_BLOCK[ecl][ver]
    nshort = nblocks - raw % nblocks
    short_data = raw // nblocks - ecc
    blocks = [[] for _ in range(nblocks)]
    it = iter(words)
    for i in range(short_data + 1):
        for j in range(nblocks):
            if i < short_data or j >= nshort:
                blocks[j].append(next(it))
    stream = [w for b in blocks for w in b]
    assert len(stream) == _data_codewords(ver, ecl)
    bitstr = "".join(f"{w:08b}" for w in stream)
    assert bitstr[:4] == "0100"
    count_len = 8 if ver <= 9 else 16
    n = int(bitstr[4:4 + count_len], 2)
    start = 4 + count_len
    return bytes(int(bitstr[start + 8 * i:start + 8 * i + 8], 2) for i in range(n))


@pytest.mark.parametrize("ecl", ["L", "M"])
@pytest.mark.parametrize("length", [1, 17, 30, 50, 80, 106, 150, 200])
def test_decodes_back(ecl, length):
    text = ("http://192.168.1.20:8000/join/" + "abcXYZ019-_" * 30)[:length]
    code = qr.encode(text, ecl)
    assert code.size == 4 * code.version + 17
    assert _decode(code) == text.encode()


def test_picks_the_smallest_version():
    assert qr.encode("x" * 14, "M").version == 1
    assert qr.encode("x" * 15, "M").version == 2


def test_too_long_is_a_clear_error():
    with pytest.raises(qr.QrTooLong):
        qr.encode("x" * 400, "M")
    with pytest.raises(ValueError):
        qr.encode("x", "H")


def test_svg_has_a_quiet_zone_and_escapes_its_title():
    code = qr.encode("hi")
    out = qr.svg(code, title='<a&"b>')
    assert f'viewBox="0 0 {code.size + 8} {code.size + 8}"' in out
    assert "&lt;a&amp;&quot;b&gt;" in out
