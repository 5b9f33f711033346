"""The parse behind `blobs.pdf`, run by it in a process of its own: ``python -m blobs.pdf_worker``.

Reads the PDF from standard input and the limits (JSON, as `blobs.pdf` writes them) from its one
argument, and writes one line of JSON: ``{"pages": n}``, ``{"pages": null}`` when pypdf cannot read
the file, ``{"refused": reason}``, or ``{"missing": message}`` when a library pypdf needs is
absent. It uses pypdf's public API only and imports neither Django nor the rest of the project.

The process bounds itself before it parses: its address space (``RLIMIT_AS``), so that an
allocation beyond the limit fails (a MemoryError, reported as the refusal "memory"), and its CPU
time (``ITIMER_PROF``), whose signal, SIGPROF, kills the process wherever it is, inside C code
too, and a broad ``except`` in pypdf cannot catch it. ``RLIMIT_CPU`` counts whole seconds from the
start of the process, the interpreter's start-up included, so it cannot express the bound.
"""

import io
import json
import logging
import resource
import signal
import sys

from pypdf import PasswordType, PdfReader, apply_configuration
from pypdf.errors import DependencyError, LimitReachedError, PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

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

# The limits of pypdf's that the check sets, by the start of pypdf's message, and the reason the
# worker reports. pypdf's other limits catch inconsistent files (an entry count beyond the data,
# say), which are unreadable.
_PYPDF_LIMIT_REASONS = {
    "Maximum XRef stream entry limit": "objects",
    "Reached maximum array element count": "array",
    "Reached maximum number of dictionary entries": "dictionary",
    "Limit reached while decompressing": "stream",
    "Maximum filter count": "unsupported",
}

# Python asks for memory in blocks of up to a megabyte (or one object's size): a failed request
# leaves the peak within a few of them of the limit.
_MEMORY_MARGIN_BYTES = 8 * 2**20


class Refused(Exception):
    """Why the PDF is refused, as a reason that `blobs.pdf` turns into its message."""


def pypdf_configuration(limits: dict) -> dict:
    """pypdf's decoding and parsing limits for the check.

    pypdf decodes only cross-reference and object streams here (never a content stream or an
    image); these are Flate-compressed in practice, with one filter. pypdf decodes the other
    filters in pure Python, a second per few megabytes, hence their lower limits.
    """
    return {
        "zlib_maximum_output_length": limits["stream_bytes"],
        "brotli_maximum_output_length": limits["stream_bytes"],
        "lzw_maximum_output_length": 1_000_000,
        "run_length_maximum_output_length": 1_000_000,
        "zlib_maximum_recovery_input_length": 100_000,
        "stream_filters_maximum_length": 1,
        "array_maximum_element_count": limits["entries"],
        "dictionary_maximum_element_count": limits["entries"],
        "jbig2dec_binary": None,
    }


def _resolved(value):
    return value.get_object() if isinstance(value, IndirectObject) else value


def count_pages(reader: PdfReader, max_pages: int) -> int:
    """The page dictionaries reachable from the catalog, each object read once.

    Only the page tree is read (catalog, page nodes, page dictionaries), never a content stream or
    an image; shared or circular /Kids cost nothing more. In lenient mode a page that cannot be
    read is skipped, as a viewer shows the others.
    """
    catalog = _resolved(reader.trailer.get("/Root"))
    if not isinstance(catalog, DictionaryObject):
        return 0
    stack, seen, pages = [catalog.get("/Pages")], set(), 0
    while stack:
        node = stack.pop()
        if isinstance(node, IndirectObject):
            if (node.idnum, node.generation) in seen:
                continue
            seen.add((node.idnum, node.generation))
            try:
                node = node.get_object()
            except _UNREADABLE as error:
                if reader.strict or _limit_reason(error):
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
            if pages > max_pages:
                raise Refused("pages")
    return pages


def _limit_reason(error: BaseException) -> str | None:
    """The reason for a pypdf limit that the check sets, if `error` is (or wraps) one."""
    error = error if isinstance(error, LimitReachedError) else error.__cause__
    if isinstance(error, LimitReachedError):
        for start, reason in _PYPDF_LIMIT_REASONS.items():
            if str(error).startswith(start):
                return reason
    return None


def read_pages(data: bytes, limits: dict, *, strict: bool) -> int | None:
    """The pages pypdf finds in this mode, or None when it cannot read the file."""
    try:
        reader = PdfReader(
            io.BytesIO(data), strict=strict, xref_stream_maximum_entries=limits["objects"]
        )
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise Refused("password")
        return count_pages(reader, limits["pages"])
    except NotImplementedError:  # a security handler or a filter that pypdf lacks
        raise Refused("unsupported") from None
    except _UNREADABLE as error:
        if reason := _limit_reason(error):
            raise Refused(reason) from None
        return None


def check(data: bytes, limits: dict) -> dict:
    """Parse strictly, then, when that finds no page, leniently: what the worker answers."""
    try:
        with apply_configuration(**pypdf_configuration(limits)):
            pages = read_pages(data, limits, strict=True)
            if not pages:
                pages = read_pages(data, limits, strict=False) or pages
    except Refused as refusal:
        return {"refused": str(refusal)}
    except DependencyError as error:
        return {"missing": str(error)}
    except MemoryError:
        return {"refused": "memory"}
    return {"pages": pages}


def limit_memory(extra_bytes: int) -> None:
    """Let the process map at most `extra_bytes` beyond what it maps now (Linux)."""
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def came_near_memory_limit() -> bool:
    """Whether the process's peak address space came within a few megabytes of its limit.

    An allocation has failed then, even when pypdf caught the MemoryError and went on to find the
    file unreadable; the allocations that fail otherwise (decompressing a stream) raise it to
    `check`.
    """
    limit, _ = resource.getrlimit(resource.RLIMIT_AS)
    if limit == resource.RLIM_INFINITY:
        return False
    with open("/proc/self/status") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmPeak:"))
    return peak_kb * 1024 > limit - _MEMORY_MARGIN_BYTES


def limit_cpu(seconds: float) -> None:
    """Have the kernel kill the process after `seconds` more of CPU time (SIGPROF's default)."""
    # A parent that ignores or blocks the signal passes that on to the process it starts.
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGPROF})
    signal.setitimer(signal.ITIMER_PROF, seconds)


def main() -> None:
    """Check the PDF on standard input within the limits given as the argument."""
    limits = json.loads(sys.argv[1])
    data = sys.stdin.buffer.read()
    # A hostile file makes pypdf warn once per broken object: noise nobody reads.
    logging.disable(logging.CRITICAL)
    limit_memory(limits["memory_bytes"])
    limit_cpu(limits["cpu_seconds"])
    outcome = check(data, limits)
    signal.setitimer(signal.ITIMER_PROF, 0)
    if "pages" in outcome and not outcome["pages"] and came_near_memory_limit():
        outcome = {"refused": "memory"}
    sys.stdout.write(json.dumps(outcome) + "\n")


if __name__ == "__main__":
    main()
