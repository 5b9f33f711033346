"""What one upload may cost, checked before anything expensive runs: types, counts, budgets.

Hostile files are refused from their structure — chunk, frame, scan and object counts, the
memory a decode would take by mode and bit depth — before Pillow decodes a pixel. Pure: bytes in,
metadata out, nothing of Django.
"""

from __future__ import annotations

import io
import re
import struct
import warnings
import zlib
from contextlib import contextmanager
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from blobs.content_types import (
    GIF,
    JPEG,
    PNG,
    WEBP,
    detect_content_type,
    extension_for,
)


def gettext_noop(message: str) -> str:
    """Mark a message for the message catalog (`makemessages` reads the name) and return it as
    it is: this module knows nothing of Django, so `ImageError.translated` translates it."""
    return message


class ImageError(ValueError):
    """The bytes are not an acceptable image (unsupported, corrupt, truncated, too many pixels).

    `str()` is the English message; `translated(gettext)` the message in the active language,
    the same values filled in."""

    def __init__(self, message: str, **params):
        self.message, self.params = message, params
        super().__init__(message % params if params else message)

    def translated(self, gettext) -> str:
        text = gettext(self.message)
        return text % self.params if self.params else text


# Detected MIME type per allowed Pillow format.
ALLOWED_FORMATS: dict[str, str] = {"JPEG": JPEG, "PNG": PNG, "GIF": GIF, "WEBP": WEBP}

# 50 MP is above the largest common camera sensors (45 MP) and 8K frames (33 MP), so no real photo
# is refused, while a fully decoded image at the cap (Pillow keeps 4 bytes a pixel) stays at
# 200 MB, the most one upload may cost a worker. It is checked against width x height x frames
# read from the header, before anything is decoded.
DEFAULT_MAX_PIXELS = 50_000_000

_ORIENTATION_TAG = 0x0112
_SWAPS_SIDES = frozenset({5, 6, 7, 8})
# Pillow's plugins also raise IndexError on some corrupt headers (Image.open itself reads it as
# "not this format"), besides the documented errors.
_DECODER_ERRORS = (OSError, SyntaxError, ValueError, struct.error, EOFError, IndexError)
SIXTEEN_BIT_MODES = frozenset({"I;16", "I;16B", "I;16L", "I;16N"})
# --- what one upload may cost --------------------------------------------------------------------
# Validating and thumbnailing any upload (at most 5 MiB) must stay within about 2 s of CPU and
# 300 MB of extra resident memory. What would cost more is refused from its headers and structure,
# before anything is decoded: by a memory estimate (peak bytes of every buffer the pipeline holds
# at once), by the decoding work of progressive JPEGs, and by counts of the structures the
# decoders walk one by one in Python (PNG chunks, GIF blocks, JPEG segments) or seek through
# (frames).

# The largest estimated peak: 256 MiB (268 MB) leaves the rest of 300 MB to decoders' small
# buffers, Python objects and the upload's own bytes. Any 50 MP baseline, 4:2:0 or 4:2:2
# progressive JPEG fits, and a 50 MP 8-bit PNG or GIF (but for RGB with a transparent colour,
# copied to RGBA: 33 MP); a 4:4:4 progressive JPEG (libjpeg keeps 6 bytes of coefficients a
# pixel) fits up to 44 MP, 16-bit greyscale (11 bytes a pixel while it is scaled to 8 bits) up
# to 24 MP, and WebP (libwebp's two canvases and Pillow's copy of the frame besides the image:
# 16 bytes a pixel) up to 16 MP.
MAX_DECODE_BYTES = 256 * 1024 * 1024
# Only the first frame is decoded, but Pillow seeks through GIF frames one by one, and every
# frame is a structure to walk. Animations of a few hundred frames are long; thousands are only
# there to cost time. (The pixel limit counts frames too.)
MAX_FRAMES = 1_000
# Pillow handles each PNG chunk in Python (about 4 us). A real PNG has a few chunks besides its
# image data, which libpng writes in 8 KiB IDATs (640 for 5 MiB) and no writer in pieces
# below a few hundred bytes (a row each, at worst): 20,000 chunks are about a tenth of a second.
MAX_PNG_CHUNKS = 20_000
# zlib inflates and Pillow unfilters a PNG's rows at about 3.5 ns a byte, whatever the file's
# size: 256 MB is 0.9 s, the rest of the budget left to the box search and scaling. It holds any
# 8-bit PNG up to 50 MP, 16-bit RGB up to 42 MP and 16-bit RGBA up to 32 MP.
MAX_PNG_RAW_BYTES = 256_000_000
# Extension, image and data sub-blocks (real encoders fill them to 255 bytes: 20,000 for 5 MiB)
# and stray bytes, which Pillow skips one by one.
MAX_GIF_BLOCKS = 100_000
# A JPEG has a few dozen marker segments (its tables, metadata, one or two a scan).
MAX_JPEG_SEGMENTS = 1_000
# Bytes outside any segment before the first scan, which Pillow skips one by one.
MAX_JPEG_STRAY_BYTES = 65_536
# Progressive encoders write about 10 scans (a phone's MPO twice that); every scan costs a pass
# over the whole image, so a file of thousands of tiny scans is a CPU bomb within the byte limit.
MAX_JPEG_SCANS = 100
# A scan of a progressive JPEG costs libjpeg a pass over every 8x8 block of its components,
# however few bits it holds: up to about 45 ns a block (a refinement scan of 63 coefficients),
# 0.7 ns a sample, and the thumbnail may decode twice. The budget counts 64 samples per block of
# each scan's components: 1e9 samples is 0.7 s at worst, 20 scans of a 50 MP 4:2:0 JPEG
# (libjpeg writes 10), and refuses 100 scans of 50 MP.
MAX_JPEG_SCAN_SAMPLES = 1_000_000_000

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# After a marker segment or entropy-coded data, the next marker: 0xFF followed by anything but a
# stuffed zero or a restart marker, which belong to the entropy-coded data, or a fill 0xFF. No
# quantifier, so the search stays linear in the file's size, 5 MiB of 0xFF included.
_JPEG_NEXT_MARKER = re.compile(rb"\xff([^\x00\xd0-\xd7\xff])")
_JPEG_FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_PROGRESSIVE_MARKERS = frozenset({0xC2, 0xC6, 0xCA, 0xCE})
_JPEG_END_OF_IMAGE = 0xD9
_JPEG_START_OF_SCAN = 0xDA
# Bytes a pixel of each mode takes in Pillow's memory (4 for every other mode).
_STORAGE_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2, "I;16N": 2}


@dataclass(frozen=True)
class ImageInfo:
    """What an accepted image is, measured as displayed (after its EXIF orientation)."""

    content_type: str
    format: str
    width: int
    height: int
    frame_count: int
    extension: str


@dataclass(frozen=True)
class _JpegLayout:
    """What the first picture of a JPEG costs libjpeg, from its marker segments."""

    scans: int
    # Samples libjpeg walks over all scans: 64 per 8x8 block of each scan's components.
    scan_samples: int
    # The whole image's DCT coefficients (2 bytes a sample), which libjpeg keeps in memory when
    # the picture comes in several scans (progressive, or one scan per component).
    coefficient_bytes: int


@dataclass(frozen=True)
class _Structure:
    """What the bounded walk over an upload's structure found, before Pillow parses it."""

    frames: int | None = None  # counted for GIF, where Pillow would seek through every frame
    jpeg: _JpegLayout | None = None
    png_raw_bytes: int = 0  # the PNG's image data inflated: its rows with their filter bytes


@dataclass(frozen=True)
class Opened:
    image: Image.Image
    info: ImageInfo
    orientation: int
    # The finest JPEG DCT scale (1, 2, 4 or 8) whose decode stays within MAX_DECODE_BYTES.
    jpeg_scale_floor: int = 1


def inspect_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Check an upload's header and describe it, without decoding any pixels.

    The type libmagic sees must be allowed and agree with the format Pillow parses (a file that
    is two things at once is refused), width x height x frames must not exceed max_pixels, and
    thumbnailing it must fit the budget of one upload (MAX_DECODE_BYTES and the limits beside
    it), so what passes here also passes ``make_thumbnail`` unless its pixels are corrupt.
    """
    with decoding(max_pixels):
        return open_checked(data, max_pixels).info


def displayed_size(data: bytes) -> tuple[int, int]:
    """Width and height of stored image bytes as displayed (after EXIF orientation).

    Only the header is read, nothing is decoded: for bytes already accepted (a thumbnail, a
    cover), whose width and height a page puts on its `<img>`. `ImageError` when unreadable.
    """
    with warnings.catch_warnings():
        # Accepted bytes passed the pixel limit; a header read allocates no pixels anyway.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            image = Image.open(io.BytesIO(data), formats=list(ALLOWED_FORMATS))
            width, height = image.size
            orientation = _orientation(image)
        except (UnidentifiedImageError, Image.DecompressionBombError, *_DECODER_ERRORS) as exc:
            raise ImageError(gettext_noop("The file is truncated or corrupt.")) from exc
    return (height, width) if orientation in _SWAPS_SIDES else (width, height)


# --- opening and validation -------------------------------------------------------------------


@contextmanager
def decoding(max_pixels: int):
    """Turn every decoder failure into an ImageError with a message fit for an API response."""
    # catch_warnings changes process-wide filters; a warning raised meanwhile by another thread
    # follows them too, which is harmless: only Pillow's bomb warning and metadata chatter change.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        # Broken metadata is tolerated and ignored, so Pillow's complaints about it are noise.
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            yield
        except ImageError:
            raise
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise ImageError(
                gettext_noop("The image is too large (limit %(limit)s pixels)."), limit=max_pixels
            ) from exc
        except MemoryError as exc:
            raise ImageError(gettext_noop("The image is too large to decode.")) from exc
        except _DECODER_ERRORS as exc:
            raise ImageError(gettext_noop("The file is truncated or corrupt.")) from exc


def open_checked(data: bytes, max_pixels: int) -> Opened:
    if not data:
        raise ImageError(gettext_noop("The file is empty."))
    content_type = detect_content_type(data)
    if content_type not in ALLOWED_FORMATS.values():
        raise ImageError(gettext_noop("Unsupported image type: %(type)s."), type=content_type)
    # Before Pillow parses anything: its parsers walk chunks, segments and blocks in Python.
    structure = _walk_structure(data, content_type)
    try:
        image = Image.open(io.BytesIO(data), formats=list(ALLOWED_FORMATS))
    except UnidentifiedImageError as exc:
        raise ImageError(gettext_noop("The file is truncated or corrupt.")) from exc
    # Pillow names JPEGs carrying several pictures (phones' MPF) MPO; picture 0 is the photo.
    pillow_format = "JPEG" if image.format == "MPO" else image.format
    if ALLOWED_FORMATS.get(pillow_format) != content_type:
        raise ImageError(
            gettext_noop(
                "The file is not consistently one image type (%(signature)s by its signature, "
                "%(structure)s by its structure)."
            ),
            signature=content_type,
            structure=pillow_format,
        )
    if structure.frames is not None:
        frame_count = structure.frames
    else:
        frame_count = getattr(image, "n_frames", 1)
    if frame_count > MAX_FRAMES:
        raise ImageError(
            gettext_noop("The image has %(frames)s frames (limit %(limit)s)."),
            frames=frame_count,
            limit=MAX_FRAMES,
        )
    width, height = image.size
    pixels = width * height * frame_count
    if pixels > max_pixels:
        raise ImageError(
            gettext_noop("The image is too large: %(pixels)s pixels (limit %(limit)s)."),
            pixels=pixels,
            limit=max_pixels,
        )
    if pixels == 0:
        raise ImageError(gettext_noop("The file is truncated or corrupt."))
    jpeg_scale_floor = _check_budget(image, pillow_format, structure)
    orientation = _orientation(image)
    if orientation in _SWAPS_SIDES:
        width, height = height, width
    info = ImageInfo(
        content_type=content_type,
        format=pillow_format,
        width=width,
        height=height,
        frame_count=frame_count,
        extension=extension_for(content_type),
    )
    return Opened(image, info, orientation, jpeg_scale_floor)


def _orientation(image: Image.Image) -> int:
    """EXIF orientation 1-8 known before decoding; 1 when absent or unreadable."""
    # A PNG may keep its eXIf chunk after the pixel data, and Pillow decodes the whole image to
    # reach it; only EXIF seen in the header counts, so inspection never decodes.
    if image.format == "PNG" and "exif" not in image.info:
        return 1
    try:
        value = image.getexif().get(_ORIENTATION_TAG)
    except Exception:  # a broken EXIF block must not refuse the image, whatever Pillow raises
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


# --- structure walks --------------------------------------------------------------------------
# Each walk reads only headers and lengths, refuses as soon as a count passes its limit, so its
# own cost is bounded too, and leaves anything it does not understand to the decoder.


def _walk_structure(data: bytes, content_type: str) -> _Structure:
    """Refuse cut files and structure bombs of the format the signature names; count frames.

    Pillow decodes a PNG that lost its last chunks and a GIF that lost its trailer (a JPEG or
    WebP cut short fails to decode anyway); it walks every PNG chunk, GIF block and JPEG segment
    before the first scan in Python, and a JPEG of thousands of scans takes libjpeg minutes.
    Bytes that do not start with the format's signature are left to Pillow, which refuses them
    or names another format (then the file is not consistently one type).
    """
    if content_type == PNG and data.startswith(_PNG_SIGNATURE):
        return _Structure(png_raw_bytes=_walk_png(data))
    if content_type == GIF and data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 13:
        return _Structure(frames=_walk_gif(data))
    if content_type == JPEG and data.startswith(b"\xff\xd8"):
        return _Structure(jpeg=_walk_jpeg(data))
    # WebP: libwebp parses the RIFF chunks in C, and Pillow's frame count is its demuxer's.
    return _Structure()


def _walk_png(data: bytes) -> int:
    """Every chunk up to IEND present whole with a correct CRC; at most MAX_PNG_CHUNKS of them.

    Returns the size of the image data once inflated, read from the header (IHDR).
    """
    view = memoryview(data)
    position = len(_PNG_SIGNATURE)
    for _ in range(MAX_PNG_CHUNKS):
        if position + 12 > len(data):
            raise ImageError(gettext_noop("The file is truncated or corrupt."))
        (length,) = struct.unpack_from(">I", data, position)
        end = position + 12 + length
        if end > len(data):
            raise ImageError(gettext_noop("The file is truncated or corrupt."))
        (crc,) = struct.unpack_from(">I", data, end - 4)
        if zlib.crc32(view[position + 4 : end - 4]) != crc:
            raise ImageError(gettext_noop("The file is truncated or corrupt."))
        if view[position + 4 : position + 8] == b"IEND":
            return _png_raw_bytes(data)
        position = end
    raise ImageError(gettext_noop("The PNG has more than %(limit)s chunks."), limit=MAX_PNG_CHUNKS)


def _png_raw_bytes(data: bytes) -> int:
    """Bytes of a PNG's inflated image data (its rows, each with a filter byte), from IHDR.

    Adam7 interlacing adds a filter byte per row of each pass, a few per cent at most.
    """
    if len(data) < 29 or data[12:16] != b"IHDR":
        return 0  # Pillow refuses it
    width, height, depth, colour = struct.unpack_from(">IIBB", data, 16)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 4)
    return height * (1 + -(-width * channels * depth // 8))


def _walk_gif(data: bytes) -> int:
    """The number of frames of a GIF whose blocks run to its trailer, the file's last byte."""
    flags = data[10]
    position = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    end = len(data)
    frames = blocks = 0
    while position < end:
        blocks += 1
        if blocks > MAX_GIF_BLOCKS:
            raise ImageError(
                gettext_noop("The GIF has more than %(limit)s blocks."), limit=MAX_GIF_BLOCKS
            )
        introducer = data[position]
        position += 1
        if introducer == 0x3B:
            if position == end:
                return frames
            break
        if introducer == 0x21:  # extension: a label, then sub-blocks
            position += 1
        elif introducer == 0x2C:  # image: descriptor, local colour table, code size, sub-blocks
            frames += 1
            if frames > MAX_FRAMES:
                raise ImageError(
                    gettext_noop("The image has more than the limit of %(limit)s frames."),
                    limit=MAX_FRAMES,
                )
            if position + 9 > end:
                break
            flags = data[position + 8]
            position += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
        else:  # a stray byte, which Pillow skips
            continue
        while position < end:
            size = data[position]
            position += 1 + size
            if not size:
                break
            blocks += 1
            if blocks > MAX_GIF_BLOCKS:
                raise ImageError(
                    gettext_noop("The GIF has more than %(limit)s blocks."), limit=MAX_GIF_BLOCKS
                )
    raise ImageError(
        gettext_noop("The GIF does not end with its trailer: it is truncated or has data appended.")
    )


def _walk_jpeg(data: bytes) -> _JpegLayout:
    """The scans of the first picture (up to its end-of-image marker) and what they cost.

    Marker segments are skipped by their length and entropy-coded data up to the next marker, as
    libjpeg does, so an EXIF thumbnail or a second MPF picture is not counted. A cut file is
    measured as far as it goes: the decoder refuses it.
    """
    blocks: dict[int, int] = {}
    segments = scans = samples = stray = 0
    progressive = False
    position = 2
    while (marker := _JPEG_NEXT_MARKER.search(data, position)) is not None:
        if not scans:
            stray += marker.start() - position
            if stray > MAX_JPEG_STRAY_BYTES:
                raise ImageError(
                    gettext_noop(
                        "The JPEG has more than %(limit)s stray bytes between its segments."
                    ),
                    limit=MAX_JPEG_STRAY_BYTES,
                )
        kind = marker.group(1)[0]
        position = marker.end()
        if kind == _JPEG_END_OF_IMAGE:
            break
        if kind == 0x01 or position + 2 > len(data):  # TEM stands alone
            continue
        segments += 1
        if segments > MAX_JPEG_SEGMENTS:
            raise ImageError(
                gettext_noop("The JPEG has more than %(limit)s segments."),
                limit=MAX_JPEG_SEGMENTS,
            )
        (length,) = struct.unpack_from(">H", data, position)
        body = data[position + 2 : position + length]
        position += length
        if kind in _JPEG_FRAME_MARKERS and not blocks:
            blocks = _jpeg_component_blocks(body)
            progressive = kind in _JPEG_PROGRESSIVE_MARKERS
        elif kind == _JPEG_START_OF_SCAN:
            scans += 1
            if scans > MAX_JPEG_SCANS:
                raise ImageError(
                    gettext_noop("The JPEG has more than %(limit)s scans."), limit=MAX_JPEG_SCANS
                )
            components = body[1 : 1 + 2 * body[0] : 2] if body else b""
            samples += 64 * sum(blocks.get(component, 0) for component in components)
    several_scans = progressive or scans > 1
    coefficient_bytes = 128 * sum(blocks.values()) if several_scans else 0
    return _JpegLayout(scans, samples, coefficient_bytes)


def _jpeg_component_blocks(frame_header: bytes) -> dict[int, int]:
    """8x8 blocks per component (id), padded to whole MCUs, from a start-of-frame segment."""
    if len(frame_header) < 6:
        return {}
    _, height, width, count = struct.unpack_from(">BHHB", frame_header)
    components = [
        (frame_header[index], frame_header[index + 1] >> 4, frame_header[index + 1] & 15)
        for index in range(6, min(len(frame_header) - 2, 6 + 3 * count), 3)
    ]
    if not components:
        return {}
    max_h = max(max(h for _, h, _ in components), 1)
    max_v = max(max(v for _, _, v in components), 1)
    mcu_columns = -(-width // (8 * max_h))
    mcu_rows = -(-height // (8 * max_v))
    return {ident: mcu_columns * h * mcu_rows * v for ident, h, v in components}


# --- budget -----------------------------------------------------------------------------------


def _check_budget(image: Image.Image, pillow_format: str, structure: _Structure) -> int:
    """Refuse an image whose decoding would cost more than the limits; the JPEG scale floor.

    The estimate is the peak of the buffers alive at once: what the decoder holds, the decoded
    image and its copy in a working mode (``_peak_bytes_per_pixel``). A JPEG is decoded at a
    reduced DCT scale; the floor is the finest scale that fits, and the image is refused only
    when even 1/8 does not.
    """
    width, height = image.size
    if structure.png_raw_bytes > MAX_PNG_RAW_BYTES:
        raise ImageError(
            gettext_noop(
                "The PNG is too costly to decompress: %(bytes)s bytes of pixel data "
                "(limit %(limit)s)."
            ),
            bytes=structure.png_raw_bytes,
            limit=MAX_PNG_RAW_BYTES,
        )
    if pillow_format == "JPEG":
        layout = structure.jpeg or _JpegLayout(1, 0, 0)
        if layout.scan_samples > MAX_JPEG_SCAN_SAMPLES:
            raise ImageError(
                gettext_noop(
                    "The JPEG is too costly to decode: its %(scans)s scans cover %(samples)s "
                    "samples (limit %(limit)s)."
                ),
                scans=layout.scans,
                samples=layout.scan_samples,
                limit=MAX_JPEG_SCAN_SAMPLES,
            )
        per_pixel = _peak_bytes_per_pixel(image, pillow_format)
        for scale in (1, 2, 4, 8):
            decoded = per_pixel * -(-width // scale) * -(-height // scale)
            # A finer decode happens while the first, at least twice as coarse, is kept.
            needed = layout.coefficient_bytes + decoded + decoded // 4
            if needed <= MAX_DECODE_BYTES:
                return scale
    else:
        needed = _peak_bytes_per_pixel(image, pillow_format) * width * height
        if needed <= MAX_DECODE_BYTES:
            return 1
    raise ImageError(
        gettext_noop(
            "The image is too large to decode: about %(needed)s MB of memory (limit %(limit)s MB)."
        ),
        needed=needed // 1_000_000,
        limit=MAX_DECODE_BYTES // 1_000_000,
    )


def _peak_bytes_per_pixel(image: Image.Image, pillow_format: str) -> int:
    """Bytes a pixel at most while the thumbnail is made, known before anything is decoded.

    The decoded image and its copy in the working mode ``_working_copy`` makes (16-bit and
    32-bit greyscale pass through two 32-bit copies, and a mask when a grey value is
    transparent); the box search and the flattening on white go a band of rows at a time. libwebp
    keeps two canvases of 4 bytes a pixel besides, and Pillow a copy of the frame's bytes.
    """
    mode = image.mode
    transparent = image.has_transparency_data
    total = _STORAGE_BYTES.get(mode, 4)
    if mode in SIXTEEN_BIT_MODES or mode in ("I", "F"):
        # An I copy, its scaled copy and L; for a transparent value an I mask, its L and LA.
        total += 4 + 4 + 1 + (4 + 1 + 4 if transparent and mode != "F" else 0)
    elif mode == "1":
        total += 1
    elif mode not in ("RGBA", "LA") and (transparent or mode not in ("RGB", "L")):
        total += 4  # an RGB, RGBA or LA copy
    if pillow_format == "WEBP":
        total += 12
    return total
