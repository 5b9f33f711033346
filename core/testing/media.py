"""Images and PDFs made in memory for the tests of every app."""

import io
import struct
import zlib

from PIL import Image


def make_image_bytes(fmt="PNG", size=(64, 48), color=(200, 30, 30), mode="RGB", **save_args):
    """Bytes of a solid image in `fmt`."""
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt, **save_args)
    return buffer.getvalue()


def make_object_png(size=(120, 100), box=(30, 20, 59, 49), color=(220, 0, 0)):
    """A white PNG with a coloured rectangle (inclusive box), to see the crop."""
    image = Image.new("RGB", size, "white")
    image.paste(color, (box[0], box[1], box[2] + 1, box[3] + 1))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def make_pdf_bytes(pages=1) -> bytes:
    """A small valid PDF with `pages` pages (drawn with Pillow)."""
    buffer = io.BytesIO()
    frames = [Image.new("RGB", (200, 280), "white") for _ in range(pages)]
    frames[0].save(buffer, format="PDF", save_all=True, append_images=frames[1:])
    return buffer.getvalue()


# --- large images built by hand ----------------------------------------------------------------
# Encoding a 50-megapixel image with Pillow takes seconds and hundreds of megabytes; these write
# the few structures a decoder reads (headers, chunks, trivial entropy-coded data) directly, so
# a test gets an image of any size, or of absurd structure, in milliseconds.


def png_chunk(kind: bytes, body: bytes = b"") -> bytes:
    """One PNG chunk with its length and CRC."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def solid_png(width, height, pixel=b"\xc8\x1e\x1e", *, bit_depth=8, colour_type=2, chunks=b""):
    """A PNG of one colour (`pixel`: one pixel's bytes), with `chunks` before its IDAT.

    The first row is stored raw and every other row as filter "Up" of zeros; the zlib stream is
    flushed after each run of rows so that one compressed run is simply repeated.
    """
    row_bytes = len(pixel) * width
    first = b"\x00" + pixel * width
    rows_per_run = max(1, 1_000_000 // (row_bytes + 1))
    compressor = zlib.compressobj(9)
    stream = compressor.compress(first) + compressor.flush(zlib.Z_FULL_FLUSH)
    whole, rest = divmod(height - 1, rows_per_run)
    if whole:
        run = compressor.compress(_up_rows(row_bytes, rows_per_run))
        stream += (run + compressor.flush(zlib.Z_FULL_FLUSH)) * whole
    if rest:
        stream += compressor.compress(_up_rows(row_bytes, rest))
    # The compressor saw one run, not all of them: the checksum is computed here.
    stream += compressor.flush()[:-4] + struct.pack(">I", _adler32_of(first, row_bytes, height))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + chunks
        + png_chunk(b"IDAT", stream)
        + png_chunk(b"IEND")
    )


def _up_rows(row_bytes, count):
    return (b"\x02" + bytes(row_bytes)) * count


def _adler32_of(first, row_bytes, height):
    """Adler-32 of `first` followed by height - 1 rows of b"\\x02" and `row_bytes` zeros."""
    modulus = 65521
    checksum = zlib.adler32(first)
    low, high = checksum & 0xFFFF, checksum >> 16
    for _ in range(height - 1):
        low = (low + 2) % modulus
        high = (high + (row_bytes + 1) * low) % modulus
    return high << 16 | low


def progressive_jpeg(width, height, scans, *, subsampling="4:4:4"):
    """A mid-grey colour progressive JPEG of `scans` scans: one DC scan, then AC scans.

    Every coefficient but DC is zero and every DC difference is zero, so each block of the DC scan
    costs one bit and each AC scan is a few end-of-band runs, yet a decoder walks every block of
    the scan's component in every scan. `subsampling` is "4:4:4" or "4:2:0".
    """
    if not 1 <= scans <= 1 + 3 * 63:
        raise ValueError("1 to 190 scans")
    luma = 2 if subsampling == "4:2:0" else 1
    mcus = -(-width // (8 * luma)) * -(-height // (8 * luma))
    chroma_size = (-(-width // luma), -(-height // luma))
    blocks = [-(-width // 8) * -(-height // 8)] + [
        -(-chroma_size[0] // 8) * -(-chroma_size[1] // 8)
    ] * 2

    def segment(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body

    components = bytes([1, luma * 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
    out = [
        b"\xff\xd8",
        segment(0xDB, b"\x00" + b"\x01" * 64),
        segment(0xC2, struct.pack(">BHHB", 8, height, width, 3) + components),
        # DC: one code, "0", for a zero difference. AC: EOB0 to EOB14, four bits each.
        segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00"),
        segment(0xC4, b"\x10" + bytes([0, 0, 0, 15] + [0] * 12) + bytes(range(0, 0xF0, 0x10))),
    ]
    bits = (luma * luma + 2) * mcus
    dc = bytes(bits // 8) + (bytes([(1 << (8 - bits % 8)) - 1]) if bits % 8 else b"")
    out += [segment(0xDA, b"\x03\x01\x00\x02\x00\x03\x00\x00\x00\x00"), dc]
    for index in range(scans - 1):
        band = index // 3 + 1
        component = index % 3
        header = bytes([1, component + 1, 0, band, band, 0])
        out += [segment(0xDA, header), _end_of_band_runs(blocks[component])]
    out.append(b"\xff\xd9")
    return b"".join(out)


def _end_of_band_runs(blocks):
    """Entropy-coded data skipping `blocks` blocks with the AC table of `progressive_jpeg`."""
    bits = []
    while blocks:
        run = min(blocks, 32767)
        size = run.bit_length() - 1
        bits.append(format(size, "04b") + (format(run - (1 << size), f"0{size}b") if size else ""))
        blocks -= run
    text = "".join(bits)
    text += "1" * (-len(text) % 8)
    data = int(text, 2).to_bytes(len(text) // 8, "big")
    return data.replace(b"\xff", b"\xff\x00")


def lossless_webp(width, height, argb=(255, 200, 30, 30)):
    """A lossless (VP8L) WebP of one colour: every prefix code has a single symbol, so no pixel
    costs a bit. Alpha is declared, so decoders produce RGBA."""
    alpha, red, green, blue = argb
    fields = [(width - 1, 14), (height - 1, 14), (1, 1), (0, 3)]
    fields += [(0, 1), (0, 1), (0, 1)]  # no transform, no colour cache, no meta prefix codes
    for symbol in (green, red, blue, alpha, 0):  # green, red, blue, alpha, distance
        fields += [(1, 1), (0, 1), (1, 1), (symbol, 8)]  # simple code: one 8-bit symbol
    value = length = 0
    for field, size in fields:
        value |= field << length
        length += size
    payload = b"\x2f" + value.to_bytes(-(-length // 8), "little")
    chunk = b"VP8L" + struct.pack("<I", len(payload)) + payload + b"\0" * (len(payload) % 2)
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def gif_of_frames(frames):
    """A 1x1 GIF of `frames` frames (15 bytes each), without any extension block."""
    frame = b"\x2c" + struct.pack("<HHHH", 0, 0, 1, 1) + b"\x00" + b"\x02\x02\x44\x01\x00"
    header = b"GIF89a" + struct.pack("<HH", 1, 1) + b"\x80\x00\x00" + b"\xff\x00\x00\x00\x00\xff"
    return header + frame * frames + b"\x3b"
