"""PDFs built in memory by hand (bytes and zlib): valid ones and the review's hostile ones.

The PDF tests check them; `bench/bench_hostile.py` measures what checking `HOSTILE_PDFS` costs.
"""

import zlib

CATALOG = b"<</Type/Catalog/Pages 2 0 R>>"
PAGE = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>"


def stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<<" + dictionary + b"/Length %d>>stream\n" % len(data) + data + b"\nendstream"


def refs(*numbers: int) -> bytes:
    return b" ".join(b"%d 0 R" % number for number in numbers)


def build_pdf(objects: list[bytes]) -> bytes:
    """Objects numbered from 1 (the first the catalog) with a cross-reference table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def object_stream_pdf(objects: list[bytes], *, padding: bytes = b"") -> bytes:
    """PDF 1.5: objects numbered from 1 in one object stream, after `padding`; an xref stream."""
    count = len(objects)
    index, body = [], bytearray(padding)
    for number, text in enumerate(objects, start=1):
        index.append(b"%d %d" % (number, len(body)))
        body += text + b"\n"
    header = b" ".join(index) + b"\n"
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    stream_offset = len(out)
    dictionary = b"/Type/ObjStm/N %d/First %d/Filter/FlateDecode" % (count, len(header))
    compressed = zlib.compress(header + body, 9)
    out += b"%d 0 obj\n%s\nendobj\n" % (count + 1, stream(dictionary, compressed))
    xref_offset = len(out)
    rows = [(0, 0, 65535)] + [(2, count + 1, i) for i in range(count)]
    rows += [(1, stream_offset, 0), (1, xref_offset, 0)]
    table = b"".join(
        bytes([kind]) + a.to_bytes(4, "big") + b.to_bytes(4, "big") for kind, a, b in rows
    )
    dictionary = b"/Type/XRef/Size %d/W[1 4 4]/Root 1 0 R/Filter/FlateDecode" % (count + 3)
    out += b"%d 0 obj\n%s\nendobj\n" % (count + 2, stream(dictionary, zlib.compress(table)))
    out += b"startxref\n%d\n%%%%EOF\n" % xref_offset
    return bytes(out)


def pages_pdf(count: int) -> bytes:
    """`count` pages under one page node."""
    kids = refs(*range(3, count + 3))
    node = b"<</Type/Pages/Kids[%s]/Count %d>>" % (kids, count)
    return build_pdf([CATALOG, node] + [PAGE] * count)


ONE_PAGE = [CATALOG, b"<</Type/Pages/Kids[3 0 R]/Count 1>>", PAGE]


def shared_tree_pdf(fanout: int = 18, levels: int = 4) -> bytes:
    """One page under `levels` page nodes, each listing the next `fanout` times."""
    nodes = [
        b"<</Type/Pages/Kids[%s]/Count %d>>" % (refs(*[number + 1] * fanout), fanout)
        for number in range(2, levels + 2)
    ]
    return build_pdf([CATALOG, *nodes, b"<</Type/Page/Parent %d 0 R>>" % (levels + 1)])


def crowded_object_stream_pdf(count: int = 65_543) -> bytes:
    """One page whose objects sit among `count` objects of one object stream."""
    fillers = [b"<</Type/Annot/Subtype/Link/Rect[0 0 %d 10]/F 4>>" % i for i in range(count - 3)]
    return object_stream_pdf(ONE_PAGE + fillers)


def dense_page_pdf(arrays: int) -> bytes:
    """A page dictionary carrying `arrays` arrays of a thousand numbers (2 KB each)."""
    junk = b"[" + b" ".join([b"[" + b" 0" * 1000 + b"]"] * arrays) + b"]"
    return build_pdf([*ONE_PAGE[:2], b"<</Type/Page/Parent 2 0 R/Junk %s>>" % junk])


def content_bomb_pdf(size: int = 74_000_000) -> bytes:
    """One page whose content stream inflates to `size` bytes of whitespace."""
    contents = stream(b"/Filter/FlateDecode", zlib.compress(b" " * size, 9))
    page = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>"
    return build_pdf([*ONE_PAGE[:2], page, contents])


def with_startxref(data: bytes, value: bytes) -> bytes:
    return data[: data.rindex(b"startxref")] + b"startxref\n" + value + b"\n%%EOF\n"


# The hostile PDFs at full size, for bench/bench_hostile.py (CPU and memory of each).
HOSTILE_PDFS = {
    "object stream inflating to 74 MB of whitespace": lambda: object_stream_pdf(
        ONE_PAGE, padding=b" " * 74_000_000
    ),
    "50,000 pages": lambda: pages_pdf(50_000),
    "page tree of 111,150 shared references": shared_tree_pdf,
    "one page among 65,543 objects of an object stream": crowded_object_stream_pdf,
    "page dictionary of 4.8 MB of nested arrays": lambda: dense_page_pdf(2_400),
    "broken table, object stream of 100,000 objects": lambda: with_startxref(
        crowded_object_stream_pdf(100_000), b"0"
    ),
    "accepted: page content inflating to 74 MB": content_bomb_pdf,
    "accepted: 2,000 pages, broken table": lambda: with_startxref(pages_pdf(2_000), b"0"),
}
