"""Tests of `blobs.pdf`: what a viewer opens passes, bombs are refused within the bounds; no DB.

Every PDF is built here in memory, by hand (bytes and zlib) or with pypdf's writer. The check
parses in a process of its own (`blobs.pdf_worker`), so the limits the tests lower are the
module's constants, which it hands to that process.
"""

import io
import json
import os
import resource
import time

import pypdf
import pytest
from django.core.exceptions import ValidationError
from pypdf import PdfWriter
from pypdf.errors import DependencyError

from blobs import pdf
from blobs.pdf import validate_pdf_bytes
from core.testing.media import make_pdf_bytes
from core.testing.pdfs import (
    CATALOG,
    ONE_PAGE,
    PAGE,
    build_pdf,
    crowded_object_stream_pdf,
    dense_page_pdf,
    object_stream_pdf,
    pages_pdf,
    shared_tree_pdf,
    with_startxref,
)


def writer_pdf(pages: int = 2, **encryption) -> bytes:
    """A PDF of blank pages written by pypdf, encrypted with `encryption` if given."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(200, 200)
    if encryption:
        writer.encrypt(**encryption)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def refusal(data: bytes) -> str:
    with pytest.raises(ValidationError) as caught:
        validate_pdf_bytes(data)
    return caught.value.messages[0]


# Hostile PDFs (the cases a to d, and a dense page dictionary)


def test_a_stream_that_inflates_beyond_the_limit_is_refused_naming_it():
    # The 72 KB PDF whose stream inflated to 74 MB of whitespace; here just over the limit.
    data = object_stream_pdf(ONE_PAGE, padding=b" " * (pdf.MAX_STREAM_BYTES + 1_000))
    assert len(data) < 100_000
    assert refusal(data) == "The PDF has a stream larger than 20,000,000 bytes once decompressed."


def test_pdfs_of_up_to_max_pages_pass_and_one_page_more_is_refused():
    assert validate_pdf_bytes(pages_pdf(pdf.MAX_PAGES)) == 2_000
    assert refusal(pages_pdf(pdf.MAX_PAGES + 1)) == "The PDF has more than 2,000 pages."


def test_a_page_tree_sharing_and_looping_its_nodes_reads_each_node_once():
    # Like the 4 KB tree of 99,567 references (pypdf refused it after 1.5 s).
    shared = shared_tree_pdf(fanout=18, levels=4)
    assert len(shared) < 4096
    assert validate_pdf_bytes(shared) == 1
    looping = build_pdf(
        [
            CATALOG,
            b"<</Type/Pages/Kids[3 0 R 2 0 R 4 0 R]/Count 2>>",
            PAGE,
            b"<</Type/Pages/Kids[2 0 R 5 0 R]/Count 1>>",
            PAGE,
        ]
    )
    assert validate_pdf_bytes(looping) == 2


def test_an_object_in_a_huge_object_stream_is_parsed_alone():
    # The real PDF had its root among 65,543 objects of one stream (30 s, +289 MB). The
    # others are never parsed, so the broken one at the end does not matter (pypdf refused it).
    assert validate_pdf_bytes(crowded_object_stream_pdf()) == 1
    objects = [*ONE_PAGE, *[b"<</Type/Annot/F %d>>" % i for i in range(65_539)], b"<</Broken"]
    assert validate_pdf_bytes(object_stream_pdf(objects)) == 1


def test_more_objects_than_the_limit_are_refused():
    data = object_stream_pdf(ONE_PAGE + [b"null"] * pdf.MAX_OBJECTS)
    assert refusal(data) == "The PDF has more than 200,000 objects."


def test_parsing_stops_at_the_cpu_limit(monkeypatch):
    # Dense syntax costs pypdf microseconds a byte: 4.8 MB of it took 9 s; 200 KB here.
    monkeypatch.setattr(pdf, "MAX_CPU_SECONDS", 0.01)
    assert refusal(dense_page_pdf(100)) == "The PDF takes more than 0.01 seconds to check."


def children_cpu_seconds() -> float:
    """The CPU time of this process's finished children (the check's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_a_pdf_whose_parse_exceeds_the_cpu_bound_is_refused_once_the_bound_is_spent(monkeypatch):
    # Unbounded, pypdf parses this 4.8 MB page dictionary for over 10 s of CPU.
    data = dense_page_pdf(2_400)
    monkeypatch.setattr(pdf, "MAX_CPU_SECONDS", 0.5)
    spent = children_cpu_seconds()
    assert refusal(data) == "The PDF takes more than 0.5 seconds to check."
    assert children_cpu_seconds() - spent < 0.5 + 1.5  # the interpreter's start-up besides


def test_a_check_that_outlasts_the_wall_clock_bound_is_refused_and_its_process_killed(monkeypatch):
    # As on a machine too busy to give the worker its CPU time within MAX_SECONDS.
    data = dense_page_pdf(2_400)
    monkeypatch.setattr(pdf, "MAX_CPU_SECONDS", 60)
    monkeypatch.setattr(pdf, "MAX_SECONDS", 1.5)
    started = time.monotonic()
    assert refusal(data) == "The PDF takes more than 1.5 seconds to check."
    assert time.monotonic() - started < 8


@pytest.mark.parametrize(
    "data",
    [
        object_stream_pdf(ONE_PAGE, padding=b" " * 15_000_000),
        crowded_object_stream_pdf(),
    ],
    ids=["one-large-stream", "many-small-objects"],
)
def test_a_pdf_whose_parse_exceeds_the_memory_bound_is_refused_naming_it(monkeypatch, data):
    # Both pass under the bound of MAX_MEMORY_BYTES (the second maps about 170 MB).
    monkeypatch.setattr(pdf, "MAX_MEMORY_BYTES", 10_000_000)
    assert refusal(data) == "The PDF takes more than 10 MB of memory to check."


# What viewers open


def with_prev_pointing_at_text() -> bytes:
    """A trailer whose /Prev (the previous table) points into a string."""
    data = build_pdf([*ONE_PAGE, b"(%s)" % (b"a" * 40)])
    prev = data.index(b"a" * 40) + 5
    return data.replace(b"/Root 1 0 R>>", b"/Root 1 0 R/Prev %d>>" % prev)


@pytest.mark.parametrize(
    ("data", "strict_error"),
    [
        (
            build_pdf([CATALOG, b"<</Type/Pages/Kids[3 0 R]/Count 1/Count 1>>", PAGE]),
            "Multiple definitions in dictionary",
        ),
        (with_startxref(make_pdf_bytes(), b"0"), "Broken xref table"),
        (make_pdf_bytes().replace(b"PDF driver", b"PDF driver, edited"), "Broken xref table"),
        (with_prev_pointing_at_text(), "Could not find xref table"),
    ],
    ids=["key-defined-twice", "no-startxref", "offsets-shifted", "prev-table-missing"],
)
def test_pdfs_that_viewers_repair_pass_with_their_pages(data, strict_error):
    with pytest.raises(pypdf.errors.PdfReadError, match=strict_error):
        pypdf.PdfReader(io.BytesIO(data), strict=True).pages[0]
    assert validate_pdf_bytes(data) == 1


def test_a_broken_table_is_repaired_with_the_objects_of_object_streams():
    data = object_stream_pdf([CATALOG, b"<</Type/Pages/Kids[3 0 R 4 0 R]/Count 2>>", PAGE, PAGE])
    assert validate_pdf_bytes(with_startxref(data, b"0")) == 2


def test_a_page_that_cannot_be_read_leaves_the_others():
    data = build_pdf(
        [
            CATALOG,
            b"<</Type/Pages/Kids[3 0 R 4 0 R 9 0 R]/Count 3>>",
            PAGE,
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Rotate <<",
        ]
    )
    assert validate_pdf_bytes(data) == 1


# Encryption


@pytest.mark.parametrize("algorithm", ["AES-256", "AES-128", "RC4-128"])
def test_encryption_with_an_empty_user_password_passes_and_a_password_is_refused(algorithm):
    permissions_only = writer_pdf(user_password="", owner_password="owner", algorithm=algorithm)
    assert validate_pdf_bytes(permissions_only) == 2
    protected = writer_pdf(user_password="secret", owner_password="owner", algorithm=algorithm)
    assert refusal(protected) == "The PDF is password-protected."


def test_a_missing_crypto_library_is_an_error_not_a_corrupt_pdf(monkeypatch, tmp_path):
    data = writer_pdf(user_password="", owner_password="owner", algorithm="AES-256")
    # The check's process inherits the environment: packages here hide pypdf's AES providers.
    for package in ("cryptography", "Crypto"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("raise ImportError('hidden')\n")
    path = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    with pytest.raises(DependencyError, match="AES"):
        validate_pdf_bytes(data)


def test_an_unsupported_security_handler_is_named():
    data = build_pdf([*ONE_PAGE, b"<</Filter/Adobe.PubSec/V 4/R 4>>"])
    data = data.replace(b"/Root 1 0 R>>", b"/Root 1 0 R/Encrypt 4 0 R>>")
    assert refusal(data) == "The PDF uses an encryption or compression method that cannot be read."


def test_the_worker_that_parses_a_pdf_sees_none_of_the_services_secrets(monkeypatch, tmp_path):
    monkeypatch.setenv("DJANGO_SECRET_KEY", "not-for-the-parser")
    monkeypatch.setenv("DATABASE_URL", "postgres://secret@db/catalog")
    seen = tmp_path / "environment.json"
    probe = tmp_path / "sitecustomize.py"
    probe.write_text(
        f"import json, os\nopen({str(seen)!r}, 'w').write(json.dumps(sorted(os.environ)))\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))

    validate_pdf_bytes(make_pdf_bytes())

    names = json.loads(seen.read_text())
    assert "DJANGO_SECRET_KEY" not in names and "DATABASE_URL" not in names
    assert "PYTHONPATH" in names
