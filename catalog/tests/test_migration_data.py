"""The data-migration helpers' frozen copies agree with the live code at the freeze point.

Applied migrations must compute what they computed when written, so `catalog.migration_data`
and `blobs.migration_data` hold copies of the folding and the header reading instead of
importing them. These tests pin that the copies matched the live code when they were made;
should the live code change on purpose, a failure here is expected: change the test's
expectations, not the copies.
"""

import ast
from pathlib import Path

import pytest
from PIL import Image

import blobs.migration_data
import catalog.migration_data
from blobs import content_types, imaging
from blobs.migration_data import _displayed_size
from catalog.migration_data import (
    _detect_content_type,
    _fold,
    _inspected_size,
    _spellings_of,
    _variants,
    search_document,
)
from core.db import search
from core.testing.media import (
    gif_of_frames,
    lossless_webp,
    make_image_bytes,
    make_object_png,
    make_pdf_bytes,
    solid_png,
)

PROJECT_PACKAGES = {
    "blobs",
    "catalog",
    "core",
    "fruitcatalog",
    "identification",
    "publications",
    "wholefruit",
}

NAMES = [
    "Schöner aus Boskoop",
    "Schoener aus Boskoop",
    "Gräfin von Paris",
    "GRÄFIN VON PARIS",
    "Köstliche aus Kew",
    "Ko\u0308stliche",  # an umlaut written as o and a combining diaeresis
    "Weißer Klarapfel",
    "WEISSER KLARAPFEL",
    "Großherzog ẞ",
    "Ünsbacher Gelbe",
    "Cox's Orange-Pippin",
    "Cox\u2019s Orange Pippin",
    "Bel\u2018Ago",
    "Ma\u02bcalot",
    "d`Angers",
    "Belle de l\u00b4Anjou",
    "Rote Sternrenette (Nr. 12)",
    "Berner Rosen, neu! / Sorte?",
    "Alexander_Lucas",
    "Doyenné du Comice",
    "Reinette de Caux — Ær",
    "ﬁne Birne",  # a ligature, split by NFKD
    "Apfel\x1fmit\x1eSteuerzeichen",
    "  Boskoop  ",
    "%",
    "'",
    "",
    "7",
    "0",
    "A-12",
    "12/3",
]
CATALOG_NUMBERS = [None, 0, 7, 1234]


@pytest.mark.parametrize("module", [catalog.migration_data, blobs.migration_data])
def test_the_migration_helpers_import_nothing_of_the_project(module):
    tree = ast.parse(Path(module.__file__).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not imported & PROJECT_PACKAGES


@pytest.mark.parametrize("name", NAMES)
def test_the_frozen_folding_folds_a_name_as_the_live_search_does(name):
    assert _fold(name) == search.fold(name)
    assert _fold(name, transliterate=True) == search.fold(name, transliterate=True)
    assert _variants(name) == search.variants(name)


@pytest.mark.parametrize("number", CATALOG_NUMBERS)
def test_the_frozen_search_document_and_spellings_are_the_live_ones(number):
    for head, others in [(NAMES[0], NAMES[1:]), (NAMES[10], NAMES[:10]), ("", ["Boskoop", ""])]:
        parts = [number, *others, None]
        assert search_document(*parts, head=head) == search.search_document(*parts, head=head)
        assert search_document(*parts) == search.search_document(*parts)
        assert _spellings_of(head, *parts) == search.spellings_of(head, *parts)


def test_the_frozen_folding_spells_a_known_name_as_expected():
    assert search_document(7, "Boskoop", head="Schöner aus Boskoop") == (
        "schoner aus boskoop\x1fschoener aus boskoop\x1e7\x1fboskoop"
    )


def exif_jpeg(orientation: int) -> bytes:
    """A 64x48 JPEG whose EXIF asks for `orientation`."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    return make_image_bytes("JPEG", size=(64, 48), exif=exif.tobytes())


def exif_png(orientation: int) -> bytes:
    """A 64x48 PNG with an eXIf chunk asking for `orientation`."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    return make_image_bytes("PNG", size=(64, 48), exif=exif.tobytes())


IMAGES = {
    "png": make_object_png(),
    "jpeg": make_image_bytes("JPEG"),
    "gif": make_image_bytes("GIF", mode="P", color=3),
    "webp": make_image_bytes("WEBP"),
    "lossless webp": lossless_webp(30, 20),
    "animated gif": gif_of_frames(3),
    "jpeg rotated a quarter": exif_jpeg(6),
    "jpeg rotated three quarters": exif_jpeg(8),
    "jpeg upside down": exif_jpeg(3),
    "jpeg with an invalid orientation": exif_jpeg(9),
    "png rotated a quarter": exif_png(6),
    "png beyond the pixel limits": solid_png(10_000, 9_000, b"\x00", colour_type=0),
    "pdf": make_pdf_bytes(),
    "bmp": make_image_bytes("BMP"),
    "text": b"not an image",
    "png signature only": b"\x89PNG\r\n\x1a\n",
    "empty": b"",
}


def live_metadata(data: bytes) -> tuple[str, int, int]:
    """What migration 0006 stored with the live `inspect_image`: type, width and height."""
    try:
        info = imaging.inspect_image(data)
    except imaging.ImageError:
        return (content_types.detect_content_type(data) if data else "", 0, 0)
    return info.content_type, info.width, info.height


def frozen_metadata(data: bytes) -> tuple[str, int, int]:
    content_type = _detect_content_type(data) if data else ""
    return (content_type, *_inspected_size(data, content_type))


@pytest.mark.parametrize("data", IMAGES.values(), ids=IMAGES.keys())
def test_the_frozen_inspection_describes_an_image_as_the_live_one(data):
    assert frozen_metadata(data) == live_metadata(data)


def test_the_frozen_inspection_swaps_the_sides_of_a_rotated_jpeg():
    assert frozen_metadata(IMAGES["jpeg rotated a quarter"]) == ("image/jpeg", 48, 64)
    assert frozen_metadata(IMAGES["jpeg upside down"]) == ("image/jpeg", 64, 48)


def test_the_frozen_inspection_refuses_what_passes_pillows_bomb_limit():
    assert frozen_metadata(IMAGES["png beyond the pixel limits"]) == ("image/png", 0, 0)


def live_displayed_size(data: bytes) -> tuple[int, int]:
    """What migrations catalog 0015 and publications 0006 stored with the live code."""
    try:
        return imaging.displayed_size(data)
    except imaging.ImageError:
        return 0, 0


@pytest.mark.parametrize("data", IMAGES.values(), ids=IMAGES.keys())
def test_the_frozen_displayed_size_is_the_live_one(data):
    assert _displayed_size(data) == live_displayed_size(data)


def test_the_frozen_displayed_size_honours_the_orientation_and_thumbnails():
    thumbnail = imaging.make_thumbnail(make_object_png(size=(600, 200), box=(0, 0, 599, 199)))
    assert _displayed_size(thumbnail) == (300, 100)
    assert _displayed_size(IMAGES["jpeg rotated three quarters"]) == (48, 64)


@pytest.mark.parametrize("name", ["Straße", "  STRASSE ", "Schöner aus Boskoop", "ẞ", ""])
def test_the_frozen_name_key_is_the_live_one(name):
    assert catalog.migration_data.name_key(name) == search.name_key(name)
