"""Data-migration steps imported by historical migrations: keep their signatures stable.

Frozen copies, not imports, of the live code these steps need: the text folding of
`core.db.search` and the header reading of `blobs.imaging` and `blobs.content_types`. An applied
migration must compute what it computed when it was written, so these must not follow later
changes of the live code; a migration that needs the new behaviour gets a new step.
`catalog/tests/test_migration_data.py` shows they agreed with the live code when frozen.
"""

import hashlib
import io
import re
import struct
import unicodedata
import warnings

import magic
from PIL import Image, UnidentifiedImageError

BATCH_SIZE = 100  # rows of image bytes held in memory at once


def fill_image_metadata(model):
    """Fill type, size, dimensions and hashes for rows of a (historical) image model lacking them.

    Undecodable images keep their bytes and get the type libmagic detects, zero dimensions and no
    thumbnail hash, so the backfill later reports them instead of this migration failing.
    """
    last_pk = 0
    while True:
        batch = list(model.objects.filter(pk__gt=last_pk, sha256="").order_by("pk")[:BATCH_SIZE])
        if not batch:
            return
        for row in batch:
            data = bytes(row.data)
            row.size = len(data)
            row.sha256 = hashlib.sha256(data).hexdigest()
            row.content_type = _detect_content_type(data) if data else ""
            row.width, row.height = _inspected_size(data, row.content_type)
            thumbnail = bytes(row.thumbnail_data) if row.thumbnail_data else b""
            row.thumbnail_sha256 = hashlib.sha256(thumbnail).hexdigest() if thumbnail else ""
        model.objects.bulk_update(
            batch, ["size", "sha256", "content_type", "width", "height", "thumbnail_sha256"]
        )
        last_pk = batch[-1].pk


def _fruits_with_names(fruit_model):
    """Batches of (fruit, its other names in order) of a (historical) fruit model, by id."""
    last_pk = 0
    while True:
        batch = list(
            fruit_model.objects.filter(pk__gt=last_pk)
            .order_by("pk")
            .prefetch_related("synonyms")[:1000]
        )
        if not batch:
            return
        yield [
            (
                fruit,
                [s.name for s in sorted(fruit.synonyms.all(), key=lambda s: (s.position, s.pk))],
            )
            for fruit in batch
        ]
        last_pk = batch[-1].pk


def fill_fruit_search_text(fruit_model):
    """Compute the search column of every fruit of a (historical) fruit model in the folded form
    of its spellings (a later refill migration brings every row to the newest form)."""
    for batch in _fruits_with_names(fruit_model):
        for fruit, names in batch:
            fruit.search_text = search_document(fruit.catalog_number, *names, head=fruit.name)
        fruit_model.objects.bulk_update([fruit for fruit, _ in batch], ["search_text"])


def fill_fruit_spellings(fruit_model, spelling_model):
    """Write the spellings of every fruit of a (historical) fruit model, one row each: its own
    name's first, then its catalog number's and its other names'."""
    for batch in _fruits_with_names(fruit_model):
        rows = [
            spelling_model(
                fruit_id=fruit.pk,
                spelling=spelling,
                is_own_name=is_own_name,
                catalog_number=fruit.catalog_number,
            )
            for fruit, names in batch
            for spelling, is_own_name in _spellings_of(fruit.name, fruit.catalog_number, *names)
        ]
        spelling_model.objects.bulk_create(rows, batch_size=1000)


# --- frozen: the folding of core/db/search.py ---------------------------------------------------

# German transliterations: "Köstliche" is also written "Koestliche".
_TRANSLITERATIONS = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "ẞ": "SS"}
)
_APOSTROPHES = str.maketrans("", "", "'\u2019\u2018\u02bc`\u00b4")
_NOT_A_WORD = re.compile(r"[\W_]+")
# Between the parts of a search document: control characters no folded text contains (`_fold`
# turns them into spaces), so a match never spans two parts; the head ends with _HEAD_END.
_PART_SEPARATOR = "\x1f"
_HEAD_END = "\x1e"


def _fold(text: str, *, transliterate: bool = False) -> str:
    """Fold for matching: umlauts written out (`transliterate`) or not, marks dropped, casefolded,
    apostrophes removed and any other punctuation a single space ("Schöner" -> "schoner")."""
    if transliterate:
        # Composed first, so that "o" + a combining diaeresis is written out too.
        text = unicodedata.normalize("NFC", text).translate(_TRANSLITERATIONS)
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    words = _NOT_A_WORD.sub(" ", stripped.casefold().translate(_APOSTROPHES))
    return " ".join(words.split())


def _variants(text: str) -> list[str]:
    """The folded spellings a stored text is found under: with umlauts dropped and written out."""
    plain, written_out = _fold(text), _fold(text, transliterate=True)
    return [plain] if plain == written_out else [plain, written_out]


def name_key(name: str) -> str:
    """The key under which two names are the same: trimmed and casefolded."""
    return name.strip().casefold()


def search_document(*parts: object, head: object = None) -> str:
    """The folded spellings of the non-empty parts as one text column `contains` can scan.

    With `head`, the document starts with the head's spellings and `_HEAD_END`.
    """
    body = _PART_SEPARATOR.join(
        spelling
        for part in parts
        if part not in (None, "")
        for spelling in _variants(str(part))
        if spelling
    )
    if head is None:
        return body
    return _PART_SEPARATOR.join(_variants(str(head))) + _HEAD_END + body


def _spellings_of(head: object, *parts: object) -> list[tuple[str, bool]]:
    """`(spelling, of_head)` for each folded spelling of `head` and the non-empty `parts`, each
    spelling once (one that the head has counts as the head's): the rows of a spellings table."""
    seen, found = set(), []
    for part, of_head in [(head, True), *((part, False) for part in parts)]:
        if part in (None, ""):
            continue
        for spelling in _variants(str(part)):
            if spelling and spelling not in seen:
                seen.add(spelling)
                found.append((spelling, of_head))
    return found


# --- frozen: what blobs.imaging.inspect_image reports of an image --------------------------------
# Only what the metadata columns hold: the type libmagic detects and the displayed size from the
# header. The upload checks (structure walks, frame and decoding budgets, the 50 MP cap below
# Pillow's own limit) are not copied: they guard the cost of a thumbnail, and these bytes were
# stored already. A file they refuse but whose header Pillow reads (cut after its header, or too
# costly to decode) gets its header's size here, and the thumbnail backfill reports it.

# libmagic identifies every image format from its first bytes.
_MAGIC_PREFIX_BYTES = 8192
# Detected MIME type per image format Pillow may open.
_IMAGE_FORMATS = {
    "JPEG": "image/jpeg",
    "PNG": "image/png",
    "GIF": "image/gif",
    "WEBP": "image/webp",
}
_ORIENTATION_TAG = 0x0112
_SWAPS_SIDES = frozenset({5, 6, 7, 8})
# Pillow's plugins raise these, besides the documented errors, on corrupt headers.
_DECODER_ERRORS = (OSError, SyntaxError, ValueError, struct.error, EOFError, IndexError)


def _detect_content_type(data: bytes) -> str:
    """MIME type libmagic detects from the first bytes of `data`."""
    try:
        return magic.from_buffer(data[:_MAGIC_PREFIX_BYTES], mime=True)
    except magic.MagicException:
        return "application/octet-stream"


def _inspected_size(data: bytes, content_type: str) -> tuple[int, int]:
    """Width and height of an image as displayed (after its EXIF orientation); (0, 0) for bytes
    that are no image of an allowed type, not consistently one type, or beyond Pillow's
    decompression-bomb limit (its warning counts: an upload had to stay below it)."""
    if content_type not in _IMAGE_FORMATS.values():
        return 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        # Broken metadata is tolerated and ignored, so Pillow's complaints about it are noise.
        warnings.filterwarnings("ignore", category=UserWarning, module="PIL")
        try:
            image = Image.open(io.BytesIO(data), formats=list(_IMAGE_FORMATS))
            # Pillow names JPEGs carrying several pictures (phones' MPF) MPO.
            pillow_format = "JPEG" if image.format == "MPO" else image.format
            if _IMAGE_FORMATS.get(pillow_format) != content_type:
                return 0, 0
            width, height = image.size
            orientation = _orientation(image)
        except (
            UnidentifiedImageError,
            Image.DecompressionBombWarning,
            Image.DecompressionBombError,
            MemoryError,
            *_DECODER_ERRORS,
        ):
            return 0, 0
    if width * height == 0:
        return 0, 0
    return (height, width) if orientation in _SWAPS_SIDES else (width, height)


def _orientation(image: Image.Image) -> int:
    """EXIF orientation 1-8 known before decoding; 1 when absent or unreadable."""
    # A PNG may keep its eXIf chunk after the pixel data, which Pillow reaches only by decoding.
    if image.format == "PNG" and "exif" not in image.info:
        return 1
    try:
        value = image.getexif().get(_ORIENTATION_TAG)
    except Exception:  # a broken EXIF block must not refuse the image, whatever Pillow raises
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1
