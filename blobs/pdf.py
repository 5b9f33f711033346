"""The check of uploaded PDFs, shared by the API and the admin forms: one rule, one place.

A PDF is accepted when a viewer would open it: libmagic sees a PDF (whatever the file is called
or declared as) and pypdf finds at least one page. pypdf parses strictly first and, when that
finds no page, leniently, repairing what viewers repair silently: a broken or missing
cross-reference table, a key defined twice, objects that are not where the table says. A PDF
encrypted with an empty user password (permissions only, as office suites write them) is
decrypted; one that needs a password is refused. So is a file cut so badly that no page is
readable ("corrupt or truncated"), or cut before its end-of-file marker, which pypdf requires.

The budget (the API's "Cost"): checking any upload of up to 5 MiB costs at most about 2 s of CPU
and 300 MB of memory. pypdf is pure Python, microseconds per token, and a few kilobytes can make
it parse megabytes, so the check bounds the work rather than trusting the file:

* Only the page tree is read (catalog, page nodes, page dictionaries), never a content stream or
  an image. Each object is read once, so shared or circular /Kids cost nothing more. At most
  MAX_PAGES pages (a 4.5 MiB PDF of 50,000 pages took 6.5 s).
* An object inside an object stream is parsed alone, where pypdf parses every object of the
  stream (30 s and 289 MB for a real one-page PDF whose root sat among 65,543 objects).
* Objects that are not where the cross-reference table says, or not in it, are found by one scan
  of the file, where pypdf scans the file once per object or parses every object in it.
* At most MAX_OBJECTS objects. A cross-reference or object stream decompresses to at most
  MAX_STREAM_BYTES (a 72 KB PDF that inflated to 74 MB of whitespace took 11.8 s); the object
  streams read hold at most MAX_DECOMPRESSED_BYTES in all.
* Whatever else a file makes pypdf do, the check stops after MAX_CPU_SECONDS of CPU time.
"""

import bisect
import io
import itertools
import re
import time
from operator import itemgetter

from django.core.exceptions import ValidationError
from pypdf import PasswordType, PdfReader, apply_configuration
from pypdf.errors import LimitReachedError, PdfReadError, PyPdfError
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NullObject,
    StreamObject,
    read_object,
)

from blobs.content_types import PDF, detect_content_type
from blobs.uploads import validate_upload_size

MAX_PAGES = 2_000
# Real PDFs of 5 MiB list tens of thousands of objects (65,543 in the one-page PDF above).
MAX_OBJECTS = 200_000
# pypdf's own limit, named here for the message.
MAX_ENTRIES = 100_000
MAX_STREAM_BYTES = 20_000_000
MAX_DECOMPRESSED_BYTES = 100_000_000
# Below the 2 s of the budget: the clock is read between pypdf's reads, and the longest work
# between two readings (decoding one 20 MB stream) takes about 0.6 s.
MAX_CPU_SECONDS = 1.25

# pypdf's decoding limits (75 MB by default) for the only streams the check decodes,
# cross-reference and object streams. These are Flate-compressed in practice, with one filter;
# pypdf decodes the others in pure Python, a second per few megabytes (an object stream must be
# Flate-compressed).
_PYPDF_LIMITS = {
    "zlib_maximum_output_length": MAX_STREAM_BYTES,
    "brotli_maximum_output_length": MAX_STREAM_BYTES,
    "lzw_maximum_output_length": 1_000_000,
    "run_length_maximum_output_length": 1_000_000,
    "zlib_maximum_recovery_input_length": 100_000,
    "stream_filters_maximum_length": 1,
    "array_maximum_element_count": MAX_ENTRIES,
    "dictionary_maximum_element_count": MAX_ENTRIES,
    "jbig2dec_binary": None,
}

# What a broken file provokes in pypdf besides its own errors (RecursionError is a RuntimeError).
# Not ImportError or pypdf's DependencyError: a missing library is not a corrupt file.
_UNREADABLE = (
    PyPdfError,
    ValueError,
    LookupError,
    TypeError,
    AttributeError,
    AssertionError,
    ArithmeticError,
    RecursionError,
    EOFError,
)

_OBJECT_AT = re.compile(rb"\s*(\d{1,10})\s+(\d{1,5})\s+obj\b")
_OBJECT = re.compile(rb"(?<![0-9])(\d{1,10})\s{1,8}(\d{1,5})\s{1,8}obj\b")
_TYPED = re.compile(rb"/Type\s*/(?:ObjStm|XRef|Catalog)\b")
_TRAILER = re.compile(rb"trailer\s*<<")
_OFFSET_PAIR = re.compile(rb"(\d+)\s+(\d+)")
_TRAILER_KEYS = ("/Root", "/Encrypt", "/Info", "/ID", "/Size")
# What holding one object's offset costs, counted with the decompressed bytes.
_INDEX_ENTRY_BYTES = 100

_UNSUPPORTED = "The PDF uses an encryption or compression method that cannot be read."
# The limits of pypdf's that this check sets, by the start of pypdf's message. pypdf's other
# limits catch inconsistent files (an entry count beyond the data, say), which are unreadable.
_PYPDF_LIMIT_MESSAGES = {
    "Maximum XRef stream entry limit": f"The PDF has more than {MAX_OBJECTS:,} objects.",
    "Reached maximum array element count": f"The PDF has an array of over {MAX_ENTRIES:,} items.",
    "Reached maximum number of dictionary entries": (
        f"The PDF has a dictionary of over {MAX_ENTRIES:,} entries."
    ),
    "Limit reached while decompressing": (
        f"The PDF has a stream larger than {MAX_STREAM_BYTES:,} bytes once decompressed."
    ),
    "Maximum filter count": _UNSUPPORTED,
}


class _Refused(BaseException):
    """Why the PDF is refused; a BaseException, so that pypdf's repairs do not swallow it."""


class _Budget:
    """What one check may still spend: CPU time and decompressed bytes."""

    def __init__(self):
        self.deadline = time.thread_time() + MAX_CPU_SECONDS
        self.decompressed = MAX_DECOMPRESSED_BYTES
        self.ticks = 0

    def tick(self):
        """Check the clock every 64 ticks (reading it is a system call)."""
        self.ticks += 1
        if not self.ticks % 64 and time.thread_time() > self.deadline:
            raise _Refused(f"The PDF takes more than {MAX_CPU_SECONDS} seconds to check.")

    def hold(self, size):
        self.decompressed -= size
        if self.decompressed < 0:
            raise _Refused(
                f"The PDF's object streams hold more than {MAX_DECOMPRESSED_BYTES:,} bytes."
            )


class _MeteredBytes(io.BytesIO):
    """Bytes whose reads tick the budget: pypdf reads a token or a line at a time."""

    def __init__(self, data, budget):
        super().__init__(data)
        self.budget = budget

    def read(self, size=-1):
        self.budget.tick()
        return super().read(size)


class _Reader(PdfReader):
    """pypdf's reader, finding and parsing each object alone, within the budget."""

    def __init__(self, data, *, strict, budget):
        self._data = data
        self._budget = budget
        self._object_streams = {}
        self._objects = None
        super().__init__(
            _MeteredBytes(data, budget), strict=strict, xref_stream_maximum_entries=MAX_OBJECTS
        )

    def get_object(self, indirect_reference):
        if isinstance(indirect_reference, int):
            indirect_reference = IndirectObject(indirect_reference, 0, self)
        key = (indirect_reference.generation, indirect_reference.idnum)
        if key not in self.resolved_objects and not self._locate(indirect_reference):
            return NullObject()
        return super().get_object(indirect_reference)

    def _locate(self, reference):
        """Whether pypdf will find `reference`, after correcting the table if need be."""
        number, generation = reference.idnum, reference.generation
        if generation == 0 and number in self.xref_objStm:
            return True
        if self.xref_free_entry.get(generation, {}).get(number):
            return True  # pypdf answers null
        offset = self.xref.get(generation, {}).get(number)
        if offset is not None:
            found = _OBJECT_AT.match(self._data, offset)
            if found and (int(found[1]), int(found[2])) == (number, generation):
                return True
        if self.strict:
            raise PdfReadError(f"Object {number} {generation} is not where the table says.")
        offset = self._scan().get((number, generation))
        if offset is None:
            return False
        self.xref.setdefault(generation, {})[number] = offset
        return True

    def _scan(self):
        """Where each object of the file starts, by number and generation (the last one wins)."""
        if self._objects is None:
            self._objects = {}
            for index, found in enumerate(_OBJECT.finditer(self._data)):
                if index == MAX_OBJECTS:
                    raise _Refused(f"The PDF has more than {MAX_OBJECTS:,} objects.")
                self._objects[int(found[1]), int(found[2])] = found.start(1)
                self._budget.tick()
        return self._objects

    def _load_recovery_cache(self, data):
        """Where to find the objects of malformed table entries: from the same single scan."""
        return {
            number: (offset, generation) for (number, generation), offset in self._scan().items()
        }

    def _rebuild_xref_table(self, stream):
        """Repair a broken cross-reference table from one scan of the file.

        pypdf's own repair parses every object of the file, and the index of every object stream
        without a limit. This one parses the trailers and the objects that look like an object
        stream, a cross-reference stream (whose dictionary is a trailer) or the catalog.
        """
        self.xref, self.xref_objStm, self.xref_free_entry = {}, {}, {}
        for (number, generation), offset in self._scan().items():
            self.xref.setdefault(generation, {})[number] = offset
        objects = sorted(self._objects.items(), key=itemgetter(1))
        starts = [offset for _, offset in objects]
        typed = set()  # the objects in which a /Type of interest appears
        for found in _TYPED.finditer(self._data):
            index = bisect.bisect(starts, found.start()) - 1
            if index >= 0:
                typed.add(objects[index])
        trailers, catalog = [], None
        for (number, generation), offset in sorted(typed, key=itemgetter(1)):
            try:
                stream.seek(offset)
                self.read_object_header(stream)
                candidate = read_object(stream, self)
                kind = candidate.get("/Type")
                if kind == "/Catalog":
                    catalog = IndirectObject(number, generation, self)
                elif kind == "/XRef":
                    keys = [key for key in _TRAILER_KEYS if key in candidate]
                    trailers.append((offset, {NameObject(k): candidate.raw_get(k) for k in keys}))
                elif kind == "/ObjStm":
                    for inner in self._decode_object_stream(candidate)[2]:
                        self.xref_objStm[inner] = (number, 0)
            except _UNREADABLE:
                continue
        for found in _TRAILER.finditer(self._data):
            stream.seek(found.end() - 2)
            try:
                trailers.append((found.start(), read_object(stream, self)))
            except _UNREADABLE:
                continue
        for _, trailer in sorted(trailers, key=itemgetter(0)):
            if isinstance(trailer, dict):
                self.trailer.update(trailer)
        if "/Root" not in self.trailer and catalog is not None:
            self.trailer[NameObject("/Root")] = catalog

    def _get_object_from_stream(self, indirect_reference):
        number = indirect_reference.idnum
        data, first, offsets = self._object_stream(self.xref_objStm[number][0])
        if number not in offsets:
            if self.strict:
                raise PdfReadError(f"Object {number} is not in its object stream.")
            return NullObject()
        data.seek(first + offsets[number])
        return self.cache_indirect_object(0, number, read_object(data, self))

    def _object_stream(self, number):
        """An object stream, decoded once (or the error decoding it raised)."""
        if number not in self._object_streams:
            try:
                if number in self.xref_objStm:
                    raise PdfReadError(f"Object stream {number} is inside an object stream.")
                self._object_streams[number] = self._decode_object_stream(self.get_object(number))
            except _UNREADABLE as error:
                self._object_streams[number] = error
        if isinstance(self._object_streams[number], BaseException):
            raise self._object_streams[number]
        return self._object_streams[number]

    def _decode_object_stream(self, stream):
        """The decoded data, where its first object starts, and each object's offset from there."""
        if not isinstance(stream, StreamObject) or stream.get("/Type") != "/ObjStm":
            raise PdfReadError("Not an object stream.")
        count, first = stream.get("/N"), stream.get("/First")
        if not isinstance(count, int) or not isinstance(first, int):
            raise PdfReadError("An object stream without /N or /First.")
        if stream.get("/Filter") not in (None, "/FlateDecode", ["/FlateDecode"]):
            raise _Refused(_UNSUPPORTED)
        if count < 0:
            raise PdfReadError("An object stream of fewer than no objects.")
        if count > MAX_OBJECTS:
            raise _Refused(f"The PDF has more than {MAX_OBJECTS:,} objects.")
        data = stream.get_data()
        self._budget.hold(len(data) + count * _INDEX_ENTRY_BYTES)
        pairs = itertools.islice(_OFFSET_PAIR.finditer(data, 0, first), count)
        offsets = {int(pair[1]): int(pair[2]) for pair in pairs}
        self._budget.tick()
        return _MeteredBytes(data, self._budget), first, offsets


def _resolved(value):
    return value.get_object() if isinstance(value, IndirectObject) else value


def _count_pages(reader, budget):
    """The page dictionaries reachable from the catalog, each object read once.

    In lenient mode a page that cannot be read is skipped, as a viewer shows the others.
    """
    catalog = _resolved(reader.trailer.get("/Root"))
    if not isinstance(catalog, DictionaryObject):
        return 0
    stack, seen, pages = [catalog.get("/Pages")], set(), 0
    while stack:
        budget.tick()
        node = stack.pop()
        if isinstance(node, IndirectObject):
            if (node.idnum, node.generation) in seen:
                continue
            seen.add((node.idnum, node.generation))
            try:
                node = node.get_object()
            except _UNREADABLE as error:
                if reader.strict or _limit_message(error):
                    raise
                continue
        if not isinstance(node, DictionaryObject):
            continue
        kind, kids = _resolved(node.get("/Type")), _resolved(node.get("/Kids"))
        if kind == "/Pages" or (kind != "/Page" and isinstance(kids, ArrayObject)):
            if isinstance(kids, ArrayObject):
                stack.extend(reversed(kids))
        elif kind in ("/Page", None):
            pages += 1
            if pages > MAX_PAGES:
                raise _Refused(f"The PDF has more than {MAX_PAGES:,} pages.")
    return pages


def _limit_message(error):
    """The message of a pypdf limit that this check sets, if `error` is (or wraps) one."""
    error = error if isinstance(error, LimitReachedError) else error.__cause__
    if isinstance(error, LimitReachedError):
        for start, message in _PYPDF_LIMIT_MESSAGES.items():
            if str(error).startswith(start):
                return message
    return None


def _read_pages(data, budget, *, strict):
    """The pages pypdf finds in this mode, or None when it cannot read the file."""
    try:
        reader = _Reader(data, strict=strict, budget=budget)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise _Refused("The PDF is password-protected.")
        return _count_pages(reader, budget)
    except NotImplementedError:  # a security handler or a filter that pypdf lacks
        raise _Refused(_UNSUPPORTED) from None
    except _UNREADABLE as error:
        if message := _limit_message(error):
            raise _Refused(message) from None
        return None


def validate_pdf_bytes(data: bytes) -> int:
    """Accept a PDF a viewer would open, within the budget; return the pages found."""
    validate_upload_size(data)
    if detect_content_type(data) != PDF:
        raise ValidationError("The file is not a PDF.")
    budget = _Budget()
    try:
        with apply_configuration(**_PYPDF_LIMITS):
            pages = _read_pages(data, budget, strict=True)
            if not pages:
                pages = _read_pages(data, budget, strict=False) or pages
    except _Refused as refusal:
        raise ValidationError(str(refusal)) from None
    if pages is None:
        raise ValidationError("The PDF is corrupt or truncated.")
    if pages < 1:
        raise ValidationError("The PDF has no pages.")
    return pages
