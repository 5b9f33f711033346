"""Tests of `blobs.imaging`: validation, inspection, the thumbnail's rules; no DB."""

import contextlib
import io
import random
import struct
import zlib

import pytest
from PIL import Image, ImageChops, ImageCms, ImageDraw, ImageFile

from blobs import imaging
from blobs.imaging import (
    ImageError,
    checks,
    content_box,
    fit_within,
    inspect_image,
    make_thumbnail,
    pad_box,
    thumbnails,
)
from blobs.tests.reference import mean_difference, naive_thumbnail_image
from core.testing import media

WHITE = (255, 255, 255)
RED = (255, 0, 0)
BLUE = (0, 0, 255)

# The EXIF orientation that displays a stored image as it is once this transpose is applied.
ORIENTATION_TRANSPOSE = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# Its inverse: how to store an image so that applying the orientation shows the original.
INVERSE_TRANSPOSE = {
    **ORIENTATION_TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    8: Image.Transpose.ROTATE_270,
}


def encode(image, image_format="PNG", **params):
    out = io.BytesIO()
    image.save(out, image_format, **params)
    return out.getvalue()


def decode(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def red_rectangle_png(size=(1000, 800), rectangle=(200, 100, 399, 299), background=WHITE):
    image = Image.new("RGB", size, background)
    ImageDraw.Draw(image).rectangle(rectangle, fill=RED)
    return encode(image)


def render(data, **overrides):
    options = {
        "max_pixels": imaging.DEFAULT_MAX_PIXELS,
        "max_side": imaging.THUMBNAIL_MAX_SIDE,
        "padding": imaging.THUMBNAIL_PADDING,
    } | overrides
    thumbnail, box, _ = thumbnails._render(data, **options)
    return thumbnail, box


def close_to(actual, expected, tolerance=12):
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


def textured_photo(size, object_box, seed=1):
    """Deterministic photo-like image: light background, shaded object with pixel grain."""
    width, height = size
    rng = random.Random(seed)
    photo = Image.new("RGB", size, (236, 234, 228))
    # Grain of +-10 levels around 128, the offset ImageChops.add takes back below.
    grain_levels = bytes(118 + value % 21 for value in range(256))
    grain = Image.frombytes("L", size, rng.randbytes(width * height).translate(grain_levels))
    photo = Image.merge("RGB", [ImageChops.add(band, grain, 1, -128) for band in photo.split()])
    object_size = (object_box[2] - object_box[0], object_box[3] - object_box[1])
    ramp = Image.linear_gradient("L").resize(object_size)
    blotches = Image.frombytes("L", (8, 8), rng.randbytes(64)).resize(
        object_size, Image.Resampling.BICUBIC
    )
    thing = Image.merge("RGB", [ramp, blotches, ImageChops.invert(ramp)])
    thing = Image.merge(
        "RGB",
        [ImageChops.add(band, grain.crop((0, 0, *object_size)), 1, -128) for band in thing.split()],
    )
    mask = Image.new("L", object_size, 0)
    ImageDraw.Draw(mask).ellipse((0, 0, object_size[0] - 1, object_size[1] - 1), fill=255)
    photo.paste(thing, object_box[:2], mask)
    return photo


def icc_profile(classes: bytes, white_point: bytes, tags) -> bytes:
    """An ICC v2 profile: `classes` is device class, colour space and PCS (12 bytes)."""
    offset = 128 + 4 + 12 * len(tags)
    table, body = struct.pack(">I", len(tags)), b""
    for signature, tag in tags:
        table += signature + struct.pack(">II", offset + len(body), len(tag))
        body += tag
    header = (
        struct.pack(">I", offset + len(body))
        + b"lcms"
        + bytes([2, 0x10, 0, 0])
        + classes
        + bytes(12)
        + b"acsp"
        + bytes(24)
        + bytes(4)
        + white_point
        + bytes(48)
    )
    return header + table + body


def cmyk_profile(cyan_as):
    """A minimal ICC v2 CMYK profile (lut8 A2B0 to Lab) printing pure cyan ink as ``cyan_as``."""
    srgb_to_lab = ImageCms.buildTransformFromOpenProfiles(
        ImageCms.createProfile("sRGB"), ImageCms.createProfile("LAB"), "RGB", "LAB"
    )

    def lab(rgb):
        return bytes(
            ImageCms.applyTransform(Image.new("RGB", (1, 1), rgb), srgb_to_lab).getpixel((0, 0))
        )

    corners = b""
    for c in (0, 1):
        for m in (0, 1):
            for y in (0, 1):
                for k in (0, 1):
                    rgb = (0, 0, 0) if k else (255 * (1 - c), 255 * (1 - m), 255 * (1 - y))
                    corners += lab(cyan_as if (c, m, y, k) == (1, 0, 0, 0) else rgb)
    identity = bytes(range(256))
    matrix = struct.pack(">9i", 65536, 0, 0, 0, 65536, 0, 0, 0, 65536)
    a2b0 = b"mft1" + bytes(4) + bytes([4, 3, 2, 0]) + matrix + identity * 4 + corners + identity * 3
    white_point = struct.pack(">iii", 63190, 65536, 54061)
    tags = [(b"A2B0", a2b0 + bytes(-len(a2b0) % 4)), (b"wtpt", b"XYZ " + bytes(4) + white_point)]
    return icc_profile(b"prtrCMYKLab ", white_point, tags)


# --- the rules' worked examples ------------------------------------------------------------


def test_worked_example_red_rectangle_gives_210_square_thumbnail():
    thumbnail = decode(make_thumbnail(red_rectangle_png()))

    assert thumbnail.format == "JPEG"
    assert thumbnail.mode == "RGB"
    assert thumbnail.size == (210, 210)
    assert close_to(thumbnail.getpixel((105, 105)), RED)
    # JPEG rings a little next to saturated red; exact colours are checked before encoding below.
    assert close_to(thumbnail.getpixel((0, 0)), WHITE, 32)
    assert close_to(thumbnail.getpixel((209, 209)), WHITE, 32)


def test_worked_example_crops_x_195_to_404_and_y_95_to_304():
    image, box = render(red_rectangle_png())

    assert box == (195, 95, 405, 305)
    # Before JPEG encoding the 5 px margin is exactly white and the rectangle exactly red.
    assert image.getpixel((4, 4)) == WHITE
    assert image.getpixel((5, 5)) == RED
    assert image.getpixel((204, 204)) == RED
    assert image.getpixel((205, 205)) == WHITE


def test_black_background_is_cropped_like_white():
    image, box = render(red_rectangle_png(background=(0, 0, 0)))

    assert box == (195, 95, 405, 305)
    assert image.getpixel((2, 2)) == (0, 0, 0)


def test_white_object_on_white_stays_whole():
    image = Image.new("RGB", (400, 200), WHITE)
    ImageDraw.Draw(image).rectangle((100, 50, 200, 150), fill=(250, 250, 250))

    thumbnail, box = render(encode(image))

    assert box == (0, 0, 400, 200)
    assert thumbnail.size == (300, 150)


def test_blank_image_keeps_its_whole_area_scaled_down():
    thumbnail, box = render(encode(Image.new("RGB", (900, 600), (30, 120, 60))))

    assert box == (0, 0, 900, 600)
    assert thumbnail.size == (300, 200)


def test_transparent_png_is_cropped_to_its_opaque_pixels_and_flattened_on_white():
    image = Image.new("RGBA", (600, 400), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((100, 150, 299, 249), fill=(0, 0, 255, 255))

    thumbnail, box = render(encode(image))

    assert box == (95, 145, 305, 255)
    assert thumbnail.size == (210, 110)
    assert thumbnail.getpixel((0, 0)) == WHITE
    assert thumbnail.getpixel((100, 50)) == BLUE


def test_half_transparent_pixels_count_as_content():
    image = Image.new("RGBA", (200, 200), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((50, 50, 59, 59), fill=(255, 0, 0, 128))

    _, box = render(encode(image))

    assert box == (45, 45, 65, 65)


def test_padding_is_clamped_at_the_image_edges():
    _, box = render(red_rectangle_png(size=(400, 300), rectangle=(2, 0, 399, 150)))

    assert box == (0, 0, 400, 156)


def test_small_image_is_never_upscaled():
    image = Image.new("RGB", (50, 40), WHITE)
    ImageDraw.Draw(image).rectangle((10, 10, 30, 25), fill=RED)

    thumbnail = decode(make_thumbnail(encode(image)))

    assert thumbnail.size == (31, 26)


def test_blank_small_image_keeps_its_size():
    thumbnail = decode(make_thumbnail(encode(Image.new("RGB", (50, 40), WHITE), "JPEG")))

    assert thumbnail.size == (50, 40)


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((1000, 500), (300, 150)),
        ((500, 1000), (150, 300)),
        ((1200, 900), (300, 225)),
        ((301, 7), (300, 7)),
    ],
)
def test_longest_side_is_300_and_aspect_ratio_is_kept(size, expected):
    thumbnail = decode(make_thumbnail(encode(Image.new("RGB", size, BLUE), "JPEG")))

    assert thumbnail.size == expected


def test_custom_side_and_padding_are_honoured():
    thumbnail = decode(make_thumbnail(red_rectangle_png(), max_side=100, padding=0))

    assert thumbnail.size == (100, 100)
    assert close_to(thumbnail.getpixel((1, 1)), RED)


# --- orientation, frames, modes ---------------------------------------------------------------


def displayed_scene():
    """As it should be displayed: 800x600 white, red square top-left, blue square bottom-right."""
    image = Image.new("RGB", (800, 600), WHITE)
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 100, 249, 249), fill=RED)
    draw.rectangle((550, 350, 699, 499), fill=BLUE)
    return image


def stored_with_orientation(image, orientation, image_format="JPEG"):
    if INVERSE_TRANSPOSE[orientation] is not None:
        image = image.transpose(INVERSE_TRANSPOSE[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encode(image, image_format, exif=exif.tobytes(), quality=95)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_is_applied_to_size_and_pixels(orientation):
    data = stored_with_orientation(displayed_scene(), orientation)

    info = inspect_image(data)
    thumbnail = decode(make_thumbnail(data))

    assert (info.width, info.height) == (800, 600)
    assert thumbnail.size == (300, 202)
    assert close_to(thumbnail.getpixel((40, 40)), RED, 40)
    assert close_to(thumbnail.getpixel((260, 170)), BLUE, 40)
    assert close_to(thumbnail.getpixel((260, 40)), WHITE, 40)


@pytest.mark.parametrize("orientation", [5, 6, 7, 8])
def test_quarter_turn_orientations_report_swapped_sides(orientation):
    data = encode(Image.new("RGB", (40, 20)), "JPEG", exif=_exif_bytes(orientation))

    info = inspect_image(data)

    assert (info.width, info.height) == (20, 40)


def test_crop_box_is_reported_in_displayed_coordinates():
    _, box = render(stored_with_orientation(displayed_scene(), 6))

    assert all(abs(a - b) <= 3 for a, b in zip(box, (95, 95, 705, 505), strict=True))


def _exif_bytes(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


def test_orientation_in_png_exif_is_applied():
    data = stored_with_orientation(displayed_scene(), 8, "PNG")

    info = inspect_image(data)
    thumbnail = decode(make_thumbnail(data))

    assert (info.width, info.height) == (800, 600)
    assert close_to(thumbnail.getpixel((40, 40)), RED, 40)


@pytest.mark.parametrize(
    "exif",
    [
        b"Exif\x00\x00II*\x00\xff\xff\xff\x7f garbage",
        b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x09\x00\x00",
        b"Exif\x00\x00" + bytes(40),
    ],
    ids=["bad-offset", "orientation-out-of-range", "zeros"],
)
def test_broken_exif_is_ignored(exif):
    data = encode(displayed_scene(), "JPEG", exif=exif)

    info = inspect_image(data)
    thumbnail = decode(make_thumbnail(data))

    assert (info.width, info.height) == (800, 600)
    assert close_to(thumbnail.getpixel((40, 40)), RED, 40)


def test_animated_gif_uses_its_first_frame():
    first = Image.new("RGB", (400, 300), WHITE)
    ImageDraw.Draw(first).rectangle((20, 20, 119, 119), fill=RED)
    second = Image.new("RGB", (400, 300), WHITE)
    ImageDraw.Draw(second).rectangle((250, 150, 389, 289), fill=BLUE)
    data = encode(first, "GIF", save_all=True, append_images=[second], duration=100, loop=0)

    info = inspect_image(data)
    thumbnail, box = render(data)

    assert info.frame_count == 2
    assert box == (15, 15, 125, 125)
    assert close_to(thumbnail.getpixel((55, 55)), RED)


def test_gif_with_transparency_is_cropped_by_alpha():
    image = Image.new("P", (200, 100), 0)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    ImageDraw.Draw(image).rectangle((50, 20, 99, 69), fill=1)

    thumbnail, box = render(encode(image, "GIF", transparency=0))

    assert box == (45, 15, 105, 75)
    assert thumbnail.getpixel((0, 0)) == WHITE


def paletted(transparency=None):
    image = Image.new("P", (300, 200), 0)
    image.putpalette([255, 255, 255, 0, 128, 0] + [0] * 762)
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=1)
    if transparency is not None:
        return encode(image, transparency=transparency)
    return encode(image)


def l_image():
    image = Image.new("L", (300, 200), 255)
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=40)
    return encode(image)


def la_image():
    image = Image.new("LA", (300, 200), (0, 0))
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=(40, 255))
    return encode(image)


def rgba_image():
    image = Image.new("RGBA", (300, 200), (255, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=(0, 128, 0, 255))
    return encode(image)


def bilevel_image():
    image = Image.new("1", (300, 200), 1)
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=0)
    return encode(image)


def sixteen_bit_image():
    image = Image.new("I;16", (300, 200), 65535)
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=10000)
    return encode(image)


def cmyk_jpeg(icc_profile=None):
    image = Image.new("CMYK", (300, 200), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=(255, 0, 0, 0))
    return encode(
        image, "JPEG", quality=95, **({"icc_profile": icc_profile} if icc_profile else {})
    )


@pytest.mark.parametrize(
    ("make", "colour"),
    [
        (paletted, (0, 128, 0)),
        (lambda: paletted(transparency=0), (0, 128, 0)),
        (l_image, (40, 40, 40)),
        (la_image, (40, 40, 40)),
        (rgba_image, (0, 128, 0)),
        (bilevel_image, (0, 0, 0)),
        (sixteen_bit_image, (39, 39, 39)),
        (cmyk_jpeg, (0, 255, 255)),
    ],
    ids=["P", "P-transparency", "L", "LA", "RGBA", "1", "I;16", "CMYK"],
)
def test_every_mode_gives_an_rgb_jpeg_cropped_to_the_object(make, colour):
    data = make()

    thumbnail = decode(make_thumbnail(data))

    assert (thumbnail.format, thumbnail.mode) == ("JPEG", "RGB")
    assert thumbnail.size == (60, 60)
    assert close_to(thumbnail.getpixel((30, 30)), colour)
    assert close_to(thumbnail.getpixel((1, 1)), WHITE, 32)


def test_cmyk_jpeg_is_converted_through_its_icc_profile():
    teal = (0, 120, 90)

    thumbnail = decode(make_thumbnail(cmyk_jpeg(icc_profile=cmyk_profile(cyan_as=teal))))

    assert close_to(thumbnail.getpixel((30, 30)), teal)
    assert close_to(thumbnail.getpixel((1, 1)), WHITE, 32)


def test_cmyk_jpeg_with_an_unusable_profile_falls_back_to_plain_conversion():
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()

    thumbnail = decode(make_thumbnail(cmyk_jpeg(icc_profile=srgb)))

    assert close_to(thumbnail.getpixel((30, 30)), (0, 255, 255))


@pytest.mark.parametrize(
    ("mode", "background", "ink"),
    [
        ("I", 65535, 0),
        ("I", 255, 0),
        ("F", 255.0, 0.0),
        ("I;16B", 65535, 0),
        ("RGBa", (255, 255, 255, 0), (255, 0, 0, 255)),
    ],
)
def test_modes_that_no_allowed_format_stores_still_convert_and_crop(mode, background, ink):
    image = Image.new(mode, (60, 40), background)
    ImageDraw.Draw(image).rectangle((10, 10, 19, 19), fill=ink)

    work = thumbnails._working_copy(image)

    assert work.mode in ("RGB", "L", "RGBA", "LA")
    assert content_box(image) == (10, 10, 20, 20)


def rgb_profile_swapping_red_and_green():
    """A minimal ICC v2 RGB matrix/TRC profile whose red primary is sRGB's green, and vice versa."""
    # sRGB primaries adapted to D50, as s15Fixed16: red, green, blue.
    red, green, blue = (0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)

    def xyz(values):
        return b"XYZ " + bytes(4) + struct.pack(">3i", *(round(v * 65536) for v in values))

    gamma = b"curv" + bytes(4) + struct.pack(">IH", 1, round(2.2 * 256)) + bytes(2)
    white_point = (0.9642, 1.0, 0.8249)
    tags = [
        (b"rXYZ", xyz(green)),
        (b"gXYZ", xyz(red)),
        (b"bXYZ", xyz(blue)),
        (b"rTRC", gamma),
        (b"gTRC", gamma),
        (b"bTRC", gamma),
        (b"wtpt", xyz(white_point)),
    ]
    return icc_profile(b"mntrRGB XYZ ", xyz(white_point)[8:], tags)


def test_rgb_image_with_a_non_srgb_profile_is_converted_to_srgb():
    image = Image.new("RGB", (300, 200), WHITE)
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=RED)
    data = encode(image, "PNG", icc_profile=rgb_profile_swapping_red_and_green())

    thumbnail = decode(make_thumbnail(data))

    assert close_to(thumbnail.getpixel((30, 30)), (0, 255, 0), 40)
    assert close_to(thumbnail.getpixel((1, 1)), WHITE, 32)
    assert "icc_profile" not in thumbnail.info


@pytest.mark.parametrize("image_format", ["JPEG", "PNG", "GIF", "WEBP"])
def test_inspection_decodes_no_pixels(decoding_forbidden, image_format):
    data = encode(displayed_scene(), image_format, exif=_exif_bytes(6))

    info = inspect_image(data)

    assert (info.format, info.frame_count) == (image_format, 1)


def test_thumbnail_has_no_exif_and_no_icc_profile():
    exif = Image.Exif()
    exif[0x010F] = "Camera maker"
    exif[0x0112] = 1
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    data = encode(displayed_scene(), "JPEG", exif=exif.tobytes(), icc_profile=profile)

    thumbnail = decode(make_thumbnail(data))

    assert "exif" not in thumbnail.info
    assert not thumbnail.getexif()
    assert "icc_profile" not in thumbnail.info


def test_progressive_and_greyscale_jpegs_are_thumbnailed():
    progressive = encode(displayed_scene(), "JPEG", progressive=True, quality=95)
    greyscale = encode(displayed_scene().convert("L"), "JPEG", quality=95)

    assert decode(make_thumbnail(progressive)).size == (300, 202)
    assert decode(make_thumbnail(greyscale)).size == (300, 202)


def test_multi_picture_jpeg_is_accepted_as_jpeg_and_uses_the_first_picture():
    second = Image.new("RGB", (800, 600), BLUE)
    data = encode(displayed_scene(), "MPO", save_all=True, append_images=[second])

    info = inspect_image(data)
    thumbnail = decode(make_thumbnail(data))

    assert (info.format, info.content_type, info.extension) == ("JPEG", "image/jpeg", "jpg")
    assert close_to(thumbnail.getpixel((40, 40)), RED, 40)


def test_webp_with_alpha_is_cropped_by_alpha():
    image = Image.new("RGBA", (300, 200), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((100, 50, 149, 99), fill=(0, 0, 255, 255))

    _, box = render(encode(image, "WEBP", lossless=True))

    assert box == (95, 45, 155, 105)


# --- inspection and rejection -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("image_format", "content_type", "extension"),
    [
        ("JPEG", "image/jpeg", "jpg"),
        ("PNG", "image/png", "png"),
        ("GIF", "image/gif", "gif"),
        ("WEBP", "image/webp", "webp"),
    ],
)
def test_inspect_image_describes_each_allowed_format(image_format, content_type, extension):
    info = inspect_image(encode(Image.new("RGB", (64, 48), RED), image_format))

    assert info == imaging.ImageInfo(content_type, image_format, 64, 48, 1, extension)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty."),
        (
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>',
            "image/svg+xml",
        ),
        (b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n", "application/pdf"),
        (b"<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>", "text/html"),
        (b"just some text, not an image\n", "text/plain"),
        (encode(Image.new("RGB", (10, 10)), "BMP"), "image/bmp"),
        (encode(Image.new("RGB", (10, 10)), "TIFF"), "image/tiff"),
    ],
    ids=["empty", "svg", "pdf", "html", "text", "bmp", "tiff"],
)
def test_unsupported_files_are_rejected_by_inspection_and_thumbnailing(data, message):
    with pytest.raises(ImageError, match=message.replace("+", r"\+")):
        inspect_image(data)
    with pytest.raises(ImageError):
        make_thumbnail(data)


def test_truncated_jpegs_pass_the_header_check_but_are_rejected_when_decoded():
    data = encode(textured_photo((400, 300), (50, 50, 350, 250)), "JPEG")
    truncated = data[: len(data) * 2 // 3]

    inspect_image(truncated)
    with pytest.raises(ImageError, match="truncated or corrupt"):
        make_thumbnail(truncated)


def test_truncated_pngs_are_rejected_by_the_chunk_walk_before_decoding():
    data = encode(textured_photo((400, 300), (50, 50, 350, 250)), "PNG")
    truncated = data[: len(data) * 2 // 3]

    with pytest.raises(ImageError, match="truncated or corrupt"):
        inspect_image(truncated)
    with pytest.raises(ImageError, match="truncated or corrupt"):
        make_thumbnail(truncated)


def png_declaring(width, height):
    def chunk(kind, body):
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.fixture
def decode_scales(monkeypatch) -> list[int]:
    """The DCT scales JPEGs are decoded at during the test, in order."""
    decode_jpeg = thumbnails._decode_jpeg
    used = []

    def recording(data, image, scale):
        decoded, applied = decode_jpeg(data, image, scale)
        used.append(applied)
        return decoded, applied

    monkeypatch.setattr(thumbnails, "_decode_jpeg", recording)
    return used


@pytest.fixture
def decoding_forbidden(monkeypatch):
    def refuse(self):
        raise AssertionError("pixels were decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", refuse)


@pytest.mark.parametrize(("width", "height"), [(20000, 20000), (8000, 7000)])
def test_decompression_bomb_is_rejected_before_decoding(decoding_forbidden, width, height):
    data = png_declaring(width, height)

    assert len(data) < 200
    with pytest.raises(ImageError, match="too large"):
        inspect_image(data)
    with pytest.raises(ImageError, match="too large"):
        make_thumbnail(data)


def test_pixel_limit_counts_every_frame_and_says_how_many(decoding_forbidden):
    frames = [Image.new("RGB", (100, 100), colour) for colour in (RED, BLUE, WHITE)]
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:])

    with pytest.raises(ImageError, match=r"too large: 30000 pixels \(limit 25000\)"):
        inspect_image(data, max_pixels=25000)
    with pytest.raises(ImageError, match="too large"):
        make_thumbnail(data, max_pixels=25000)


def test_gif_header_followed_by_a_png_is_rejected():
    polyglot = b"GIF89a\x0a\x00\x0a\x00\x00\x00\x00" + red_rectangle_png()

    with pytest.raises(ImageError):
        inspect_image(polyglot)
    with pytest.raises(ImageError):
        make_thumbnail(polyglot)


def test_html_page_hiding_a_jpeg_is_rejected():
    polyglot = b"<html><body><script>alert(1)</script>" + encode(displayed_scene(), "JPEG")

    with pytest.raises(ImageError, match="Unsupported image type"):
        inspect_image(polyglot)


def test_signature_and_structure_disagreeing_is_rejected(monkeypatch):
    # libmagic and Pillow both read the first bytes today; should a libmagic update see a GIF
    # where Pillow parses a PNG, the file is refused rather than trusted by either.
    monkeypatch.setattr(checks, "detect_content_type", lambda data: "image/gif")

    with pytest.raises(ImageError, match="not consistently one image type"):
        inspect_image(red_rectangle_png())


def test_mutated_files_only_ever_raise_image_error():
    rng = random.Random(7)
    originals = [
        encode(displayed_scene().resize((80, 60)), image_format)
        for image_format in ("JPEG", "PNG", "GIF", "WEBP")
    ]
    for original in originals:
        for _ in range(60):
            data = bytearray(original)
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            with contextlib.suppress(ImageError):
                make_thumbnail(bytes(data))


# --- geometry ---------------------------------------------------------------------------------


def test_content_box_finds_a_single_pixel():
    image = Image.new("RGB", (20, 10), WHITE)
    image.putpixel((3, 4), (0, 0, 0))

    assert content_box(image) == (3, 4, 4, 5)


def test_content_box_of_a_blank_image_is_the_whole_image():
    assert content_box(Image.new("RGB", (20, 10), (9, 9, 9))) == (0, 0, 20, 10)
    assert content_box(Image.new("RGBA", (20, 10), (0, 0, 0, 0))) == (0, 0, 20, 10)


def test_content_box_ignores_noise_within_the_tolerance():
    image = Image.new("RGB", (20, 10), (200, 200, 200))
    image.putpixel((5, 5), (200 + imaging.BACKGROUND_TOLERANCE, 200, 200))
    image.putpixel((15, 8), (200, 200 - imaging.BACKGROUND_TOLERANCE - 1, 200))

    assert content_box(image) == (15, 8, 16, 9)


def test_content_box_background_is_the_colour_dominating_the_border():
    image = Image.new("RGB", (100, 100), (240, 240, 240))
    # The object runs off the left edge, so part of the border is not background.
    ImageDraw.Draw(image).rectangle((0, 30, 40, 60), fill=(20, 20, 20))

    assert content_box(image) == (0, 30, 41, 61)


def test_content_box_of_opaque_rgba_falls_back_to_the_border_colour():
    image = Image.new("RGBA", (50, 50), (255, 255, 255, 255))
    ImageDraw.Draw(image).rectangle((10, 20, 29, 39), fill=(0, 0, 0, 255))

    assert content_box(image) == (10, 20, 30, 40)


def test_pad_box_grows_each_side_and_clamps_to_the_image():
    assert pad_box((10, 10, 20, 20), (100, 100), 5) == (5, 5, 25, 25)
    assert pad_box((2, 3, 98, 99), (100, 100), 5) == (0, 0, 100, 100)
    assert pad_box((10, 10, 20, 20), (100, 100), 0) == (10, 10, 20, 20)


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ((1000, 800), (300, 240)),
        ((210, 210), (210, 210)),
        ((300, 300), (300, 300)),
        ((50, 40), (50, 40)),
        ((10000, 1), (300, 1)),
        ((1, 10000), (1, 300)),
        ((333, 1000), (100, 300)),
    ],
)
def test_fit_within_never_upscales_and_keeps_the_aspect_ratio(size, expected):
    assert fit_within(size, 300) == expected


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orienting_a_box_matches_orienting_the_image(orientation):
    image = Image.new("L", (40, 30), 255)
    ImageDraw.Draw(image).rectangle((3, 5, 11, 8), fill=0)
    shown = image.transpose(ORIENTATION_TRANSPOSE[orientation]) if orientation > 1 else image

    assert thumbnails._orient_box(content_box(image), image.size, orientation) == content_box(shown)


# --- equivalence with the naive pipeline ------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "object_box", "image_format"),
    [
        ((2400, 1800), (443, 301, 1957, 1503), "JPEG"),
        ((1600, 1200), (310, 243, 1291, 957), "JPEG"),
        ((2400, 1800), (1003, 701, 1220, 905), "JPEG"),
        ((900, 700), (101, 77, 800, 611), "PNG"),
    ],
    ids=["jpeg-quarter-scale", "jpeg-redecoded-at-half", "jpeg-redecoded-at-full", "png"],
)
def test_thumbnail_matches_the_naive_full_resolution_pipeline(size, object_box, image_format):
    data = encode(textured_photo(size, object_box), image_format, quality=90)

    ours, box = render(data)
    naive, naive_box = naive_thumbnail_image(data)

    assert max(abs(a - b) for a, b in zip(box, naive_box, strict=True)) <= 3
    assert abs(ours.width - naive.width) <= 1 and abs(ours.height - naive.height) <= 1
    assert mean_difference(ours, naive) <= 2


@pytest.mark.parametrize(
    ("object_box", "scales"),
    [((443, 301, 1957, 1503), [4]), ((1003, 701, 1220, 905), [4, 1])],
    ids=["large-object", "small-object"],
)
def test_jpeg_is_decoded_at_reduced_scale_and_again_finer_only_for_a_small_crop(
    decode_scales, object_box, scales
):

    make_thumbnail(encode(textured_photo((2400, 1800), object_box), "JPEG", quality=90))

    assert decode_scales == scales


@pytest.mark.parametrize("cut", [1, 12, 20])
@pytest.mark.parametrize("fmt", ["PNG", "GIF"])
def test_files_missing_their_last_bytes_are_rejected(fmt, cut):
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(buffer, format=fmt)
    data = buffer.getvalue()[:-cut]
    with pytest.raises(imaging.ImageError):
        imaging.inspect_image(data)
    with pytest.raises(imaging.ImageError):
        imaging.make_thumbnail(data)


def test_jpeg_with_thousands_of_scans_is_refused_before_decoding():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (128, 128, 128)).save(buffer, format="JPEG", progressive=True)
    data = buffer.getvalue()
    last_scan = data.rindex(b"\xff\xda")
    scan = data[last_scan:-2]  # the last scan, up to the end-of-image marker
    bomb = data[:-2] + scan * 500 + b"\xff\xd9"
    with pytest.raises(ImageError, match="scans"):
        inspect_image(bomb)
    with pytest.raises(ImageError, match="scans"):
        make_thumbnail(bomb)


def test_progressive_jpegs_are_accepted():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (128, 20, 20)).save(buffer, format="JPEG", progressive=True)
    assert inspect_image(buffer.getvalue()).format == "JPEG"


def test_sixteen_bit_grey_with_a_transparent_value_is_flattened_on_white():
    image = Image.new("I;16", (200, 100), 0)
    image.paste(40000, (50, 30, 100, 70))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=0)
    thumbnail = Image.open(io.BytesIO(make_thumbnail(buffer.getvalue())))
    assert thumbnail.size == (60, 50)
    assert min(thumbnail.getpixel((1, 1))) > 240  # the transparent margin is white, not black


def test_gif_with_data_after_its_trailer_is_refused_with_a_true_message():
    buffer = io.BytesIO()
    Image.new("RGB", (20, 20), "red").save(buffer, format="GIF")
    with pytest.raises(ImageError, match="trailer"):
        inspect_image(buffer.getvalue() + b"PK\x03\x04")


# --- what one upload may cost -----------------------------------------------------------------
# Each reported case is refused from its structure or headers, before the work it would cost;
# real images of the same kinds and sizes are still accepted.

LIMIT_MB = imaging.MAX_DECODE_BYTES // 1_000_000


@pytest.fixture
def parsing_forbidden(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("Pillow parsed the file")

    monkeypatch.setattr(Image, "open", refuse)


def refused(data, match):
    with pytest.raises(ImageError, match=match):
        inspect_image(data)
    with pytest.raises(ImageError, match=match):
        make_thumbnail(data)


def test_png_of_436890_empty_chunks_is_refused_by_its_chunk_count(parsing_forbidden):
    data = media.solid_png(1, 1, chunks=media.png_chunk(b"prVt") * 436_890)

    assert len(data) <= 5 * 1024 * 1024
    refused(data, f"more than {checks.MAX_PNG_CHUNKS} chunks")


def test_png_chunk_limit_counts_every_chunk():
    # IHDR, IDAT and IEND besides the private chunks.
    at_limit = media.solid_png(1, 1, chunks=media.png_chunk(b"prVt") * (checks.MAX_PNG_CHUNKS - 3))

    assert inspect_image(at_limit).width == 1
    refused(at_limit[:-12] + media.png_chunk(b"prVt") + at_limit[-12:], "chunks")


def test_png_of_many_small_image_data_chunks_is_accepted():
    image = textured_photo((600, 400), (100, 100, 500, 300))
    data = encode(image)
    header_end = data.index(b"IDAT") - 4
    stream = b"".join(chunk for chunk in _png_chunk_bodies(data, b"IDAT"))
    pieces = [stream[start : start + 256] for start in range(0, len(stream), 256)]
    split = (
        data[:header_end]
        + b"".join(media.png_chunk(b"IDAT", piece) for piece in pieces)
        + media.png_chunk(b"IEND")
    )

    assert len(pieces) > 1000
    assert make_thumbnail(split) == make_thumbnail(data)


def _png_chunk_bodies(data, kind):
    position = 8
    while position < len(data):
        (length,) = struct.unpack_from(">I", data, position)
        if data[position + 4 : position + 8] == kind:
            yield data[position + 8 : position + 8 + length]
        position += 12 + length


def test_progressive_jpeg_of_100_scans_over_50_megapixels_is_refused(decoding_forbidden):
    data = media.progressive_jpeg(7071, 7071, 100)

    assert len(data) < 320_000
    refused(data, rf"100 scans cover \d+ samples \(limit {checks.MAX_JPEG_SCAN_SAMPLES}\)")


def test_the_same_100_scans_over_4_megapixels_are_decoded():
    data = media.progressive_jpeg(2000, 2000, 100)

    thumbnail = decode(make_thumbnail(data))

    assert thumbnail.size == (300, 300)
    assert close_to(thumbnail.getpixel((150, 150)), (128, 128, 128), 2)


def test_scan_work_counts_the_blocks_of_each_scans_components():
    # 4:2:0 at 64 x 32: luma 8 x 4 blocks, chroma 4 x 2 each; the DC scan covers all 48 blocks,
    # then one AC scan each of luma, Cb and Cr.
    layout = checks._walk_jpeg(media.progressive_jpeg(64, 32, 4, subsampling="4:2:0"))

    assert layout.scans == 4
    assert layout.scan_samples == 64 * (48 + 32 + 8 + 8)
    assert layout.coefficient_bytes == 128 * 48


def test_scan_markers_inside_metadata_are_not_scans():
    # The old count of 0xFF 0xDA pairs anywhere refused this; an EXIF thumbnail has its own scan.
    photo = encode(displayed_scene(), "JPEG")
    metadata = b"\xff\xe1" + struct.pack(">H", 2 + 600) + b"\xff\xda" * 300
    data = photo[:2] + metadata + photo[2:]

    assert checks._walk_jpeg(data).scans == 1
    assert inspect_image(data).format == "JPEG"


def test_jpeg_of_thousands_of_segments_or_stray_bytes_is_refused(parsing_forbidden):
    photo = encode(displayed_scene(), "JPEG")
    after_first_segment = 4 + struct.unpack_from(">H", photo, 4)[0]
    comments = photo[:2] + b"\xff\xfe\x00\x02" * (checks.MAX_JPEG_SEGMENTS + 1) + photo[2:]
    padded = (
        photo[:after_first_segment]
        + b"\x00" * (checks.MAX_JPEG_STRAY_BYTES + 1)
        + photo[after_first_segment:]
    )

    refused(comments, f"more than {checks.MAX_JPEG_SEGMENTS} segments")
    refused(padded, f"more than {checks.MAX_JPEG_STRAY_BYTES} stray bytes")


def test_lossless_webp_of_16383_by_3051_is_refused_by_its_memory(decoding_forbidden):
    # 50 M pixels pass the pixel limit, but libwebp and Pillow hold 16 bytes a pixel.
    data = media.lossless_webp(16383, 3051)

    refused(data, rf"too large to decode: about \d+ MB of memory \(limit {LIMIT_MB} MB\)")


def test_webp_within_the_memory_budget_passes_inspection():
    assert inspect_image(media.lossless_webp(16383, 1000)).width == 16383


def test_16_bit_rgba_png_is_refused_by_its_inflated_size(decoding_forbidden):
    pixel = b"\x10\x00\x20\x00\x30\x00\xff\xff"
    data = media.solid_png(7071, 7071, pixel, bit_depth=16, colour_type=6)

    assert len(data) < 500_000
    refused(data, rf"\d+ bytes of pixel data \(limit {checks.MAX_PNG_RAW_BYTES}\)")
    # The same pixels at 8 bits inflate to half as much.
    assert inspect_image(media.solid_png(7071, 7071, b"\x10\x20\x30\xff", colour_type=6))


def test_16_bit_greyscale_costs_more_memory_than_8_bit(decoding_forbidden):
    sixteen = media.solid_png(5000, 5000, b"\x80\x00", bit_depth=16, colour_type=0)
    eight = media.solid_png(5000, 5000, b"\x80", colour_type=0)

    refused(sixteen, rf"too large to decode: .*\(limit {LIMIT_MB} MB\)")
    assert inspect_image(eight).width == 5000


def test_gif_of_349524_frames_is_refused_by_its_frame_count(parsing_forbidden):
    data = media.gif_of_frames(349_524)

    assert len(data) == 5 * 1024 * 1024
    refused(data, f"limit of {imaging.MAX_FRAMES} frames")


def test_frame_limit_boundary():
    assert inspect_image(media.gif_of_frames(imaging.MAX_FRAMES)).frame_count == imaging.MAX_FRAMES
    refused(media.gif_of_frames(imaging.MAX_FRAMES + 1), "frames")


def test_animated_png_and_webp_frames_are_limited_too():
    frames = [Image.new("RGB", (1, 1), (index % 256, 0, 0)) for index in range(1001)]
    webp = encode(frames[0], "WEBP", save_all=True, append_images=frames[1:], lossless=True)
    # acTL declares the frame count Pillow reports.
    apng = media.solid_png(1, 1, chunks=media.png_chunk(b"acTL", struct.pack(">II", 1001, 0)))

    refused(webp, rf"1001 frames \(limit {imaging.MAX_FRAMES}\)")
    refused(apng, rf"\d+ frames \(limit {imaging.MAX_FRAMES}\)")


def test_gif_blocks_are_limited(parsing_forbidden):
    gif = media.gif_of_frames(1)
    first_image = gif.index(b"\x2c")
    comments = b"\x21\xfe\x01c\x00" * (checks.MAX_GIF_BLOCKS // 2 + 1)

    refused(gif[:first_image] + comments + gif[first_image:], "blocks")


def test_gif_frames_are_counted_like_pillow_counts_them():
    frames = [Image.new("RGB", (30, 20), colour) for colour in (RED, BLUE, WHITE, (0, 0, 0))]
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], comment=b"x" * 600)
    # A stray byte between blocks, which Pillow skips.
    data = data[:-1] + b"\x00\x3b"

    assert inspect_image(data).frame_count == Image.open(io.BytesIO(data)).n_frames == 4


def test_photo_of_48_megapixels_gets_a_thumbnail_of_its_small_object():
    image = Image.new("RGB", (8000, 6000), (235, 235, 230))
    ImageDraw.Draw(image).ellipse((3900, 2900, 4099, 3099), fill=(200, 40, 30))
    data = encode(image, "JPEG", quality=90)
    del image

    info, thumbnail = imaging.inspect_and_thumbnail(data)

    assert (info.width, info.height) == (8000, 6000)
    assert decode(thumbnail).size == (210, 210)


def test_progressive_jpeg_at_the_pixel_limit_is_accepted_in_4_2_0_and_refused_in_4_4_4():
    # libjpeg keeps every coefficient: 3 bytes a pixel in 4:2:0, 6 in 4:4:4 (300 MB here).
    subsampled = media.progressive_jpeg(8000, 6000, 10, subsampling="4:2:0")

    assert decode(make_thumbnail(subsampled)).size == (300, 225)
    refused(media.progressive_jpeg(8000, 6000, 10), rf"\(limit {LIMIT_MB} MB\)")


def test_jpeg_is_never_decoded_finer_than_the_memory_budget_allows(monkeypatch, decode_scales):
    # A full-scale RGB decode of 2400 x 1800 (17 MB) no longer fits; half scale (4 MB) does.
    monkeypatch.setattr(checks, "MAX_DECODE_BYTES", 10_000_000)
    photo = encode(textured_photo((2400, 1800), (1003, 701, 1220, 905)), "JPEG", quality=90)

    thumbnail, box = render(photo)

    assert decode_scales == [4, 2]
    assert box == render(photo, max_side=100)[1]  # the box is still found to the pixel
    assert thumbnail.size == fit_within((box[2] - box[0], box[3] - box[1]), 300)


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "LA"])
def test_searching_and_flattening_in_bands_changes_no_pixel(monkeypatch, mode):
    image = textured_photo((700, 500), (120, 90, 560, 400)).convert(mode)
    if mode != "RGB":
        image.putalpha(Image.linear_gradient("L").resize(image.size))
    whole = (content_box(image), thumbnails._crop_and_scale(image, (3, 5, 690, 497), (211, 153)))

    monkeypatch.setattr(thumbnails, "BAND_PIXELS", 5_000)
    banded = (content_box(image), thumbnails._crop_and_scale(image, (3, 5, 690, 497), (211, 153)))

    assert banded[0] == whole[0]
    assert ImageChops.difference(banded[1], whole[1]).getbbox() is None


def test_inspect_and_thumbnail_opens_the_bytes_once(monkeypatch):
    data = red_rectangle_png()
    opened = []
    open_image = Image.open

    def counting(*args, **kwargs):
        opened.append(args)
        return open_image(*args, **kwargs)

    monkeypatch.setattr(Image, "open", counting)

    info, thumbnail = imaging.inspect_and_thumbnail(data)

    assert len(opened) == 1
    monkeypatch.setattr(Image, "open", open_image)
    assert info == inspect_image(data)
    assert thumbnail == make_thumbnail(data)


def test_the_sized_thumbnail_knows_its_width_and_height_as_encoded():
    info, thumbnail = imaging.inspect_and_thumbnail_sized(red_rectangle_png())

    assert (thumbnail.width, thumbnail.height) == decode(thumbnail.data).size == (210, 210)
    assert (info.width, info.height) == (1000, 800)
    assert thumbnail.data == make_thumbnail(red_rectangle_png())


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_displayed_size_reads_the_header_and_applies_the_orientation(monkeypatch, orientation):
    data = encode(Image.new("RGB", (40, 20)), "JPEG", exif=_exif_bytes(orientation))
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("decoded pixels"))

    size = imaging.displayed_size(data)

    assert size == ((20, 40) if orientation in (6, 8) else (40, 20))


@pytest.mark.parametrize("data", [b"", b"not an image", b"\x89PNG\r\n"])
def test_displayed_size_of_unreadable_bytes_is_an_image_error(data):
    with pytest.raises(ImageError):
        imaging.displayed_size(data)
