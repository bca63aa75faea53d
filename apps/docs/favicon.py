"""The site's icon, drawn here: a filled circle in the pages' accent colour, as a 32x32 ICO.

Drawn rather than shipped as a binary file, so that its one colour stays the stylesheet's
(templates/base.html ``--accent``) and a review can read it.
"""

import functools
import struct

SIZE = 32
ACCENT = (0x0B, 0x5F, 0xFF)  # --accent


@functools.cache
def favicon_ico() -> bytes:
    """One 32-bit image (BMP rows bottom-up, BGRA, then the 1-bit AND mask) in an ICO container."""
    pixels = bytearray()
    centre, radius = (SIZE - 1) / 2, SIZE / 2 - 1
    for y in reversed(range(SIZE)):
        for x in range(SIZE):
            # Edge pixels get partial alpha, so the circle is not jagged.
            distance = ((x - centre) ** 2 + (y - centre) ** 2) ** 0.5
            alpha = max(0.0, min(1.0, radius - distance + 0.5))
            red, green, blue = ACCENT
            pixels += bytes((blue, green, red, round(alpha * 255)))
    mask = bytes(SIZE * SIZE // 8)  # all zero: the alpha channel decides
    header = struct.pack("<IiiHHIIiiII", 40, SIZE, SIZE * 2, 1, 32, 0, len(pixels) + len(mask), 0, 0, 0, 0)
    image = header + bytes(pixels) + mask
    directory = struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 22)
    return directory + image
