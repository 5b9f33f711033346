"""The check of uploaded PDFs, shared by the API and the admin forms: one rule, one place.

A PDF is accepted when a viewer would open it: libmagic sees a PDF (whatever the file is called
or declared as) and pypdf finds at least one page. pypdf parses strictly first and, when that
finds no page, leniently, repairing what viewers repair silently: a broken or missing
cross-reference table, a key defined twice, objects that are not where the table says. A PDF
encrypted with an empty user password (permissions only, as office suites write them) is
decrypted; one that needs a password is refused. So is a file cut so badly that no page is
readable ("corrupt or truncated"), or cut before its end-of-file marker, which pypdf requires.

pypdf is pure Python, microseconds per token, and a few kilobytes can make it parse megabytes, so
the check bounds the work rather than trusting the file. pypdf runs, through its public API only,
in a process of its own (`blobs.pdf_worker`) that this module starts for each check and that
bounds itself before parsing:

* CPU time: MAX_CPU_SECONDS for the parse (a timer whose signal kills the process), on top of the
  interpreter's start-up (about 0.2 s of CPU).
* Memory: the parse may map MAX_MEMORY_BYTES beyond what the process holds after start-up (the
  interpreter, pypdf and the file, about 60 MB): past that an allocation fails.
* Wall-clock time: MAX_SECONDS from the start of the process, after which it is killed, should the
  machine be too busy to give it its CPU time.

Within them, what pypdf reads is limited too: only the page tree is read (catalog, page nodes,
page dictionaries), never a content stream or an image, each object once; at most MAX_PAGES pages,
MAX_OBJECTS cross-reference stream entries, MAX_ENTRIES items in an array or a dictionary, and
MAX_STREAM_BYTES for a cross-reference or object stream once decompressed.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from pypdf.errors import DependencyError

from blobs.content_types import PDF, detect_content_type
from blobs.uploads import validate_upload_size
from core.db.deadlines import renew_for_next_step

MAX_PAGES = 2_000
# Real PDFs of 5 MiB list tens of thousands of objects (65,543 in a real one-page PDF whose
# catalog sits among them in one object stream).
MAX_OBJECTS = 200_000
# pypdf's own default, named here for the message.
MAX_ENTRIES = 100_000
MAX_STREAM_BYTES = 20_000_000
# pypdf parses every object of an object stream to read one of them: the real one-page PDF above
# takes it about 5 s of CPU and maps about 170 MB.
MAX_CPU_SECONDS = 10
MAX_MEMORY_BYTES = 300_000_000
# Room for the CPU time on a busy machine, below gunicorn's --timeout of 60 s, which would kill
# the whole request.
MAX_SECONDS = 45


def _refusal(reason: str) -> str:
    """The message for the worker's reason for refusing a PDF."""
    message, limit = {
        "password": (gettext_noop("The PDF is password-protected."), None),
        "unsupported": (
            gettext_noop("The PDF uses an encryption or compression method that cannot be read."),
            None,
        ),
        "pages": (gettext_noop("The PDF has more than %(max)s pages."), MAX_PAGES),
        "objects": (gettext_noop("The PDF has more than %(max)s objects."), MAX_OBJECTS),
        "array": (gettext_noop("The PDF has an array of over %(max)s items."), MAX_ENTRIES),
        "dictionary": (
            gettext_noop("The PDF has a dictionary of over %(max)s entries."),
            MAX_ENTRIES,
        ),
        "stream": (
            gettext_noop("The PDF has a stream larger than %(max)s bytes once decompressed."),
            MAX_STREAM_BYTES,
        ),
        "memory": (
            gettext_noop("The PDF takes more than %(max)s MB of memory to check."),
            MAX_MEMORY_BYTES // 10**6,
        ),
    }[reason]
    return _(message) if limit is None else _(message) % {"max": f"{limit:,}"}


# What the worker inherits of the environment: enough to find this interpreter's packages.
WORKER_ENVIRONMENT = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "TMPDIR", "HOME")

# `python -m blobs.pdf_worker`, run from the directory that holds the `blobs` package.
_PROJECT_DIR = Path(__file__).resolve().parent.parent


def too_slow(seconds: int) -> str:
    return _("The PDF takes more than %(seconds)s seconds to check.") % {"seconds": seconds}


def _parse_in_worker(data: bytes) -> dict:
    """What `blobs.pdf_worker` answers for `data`, within the limits; raise when it overran."""
    limits = {
        "pages": MAX_PAGES,
        "objects": MAX_OBJECTS,
        "entries": MAX_ENTRIES,
        "stream_bytes": MAX_STREAM_BYTES,
        "cpu_seconds": MAX_CPU_SECONDS,
        "memory_bytes": MAX_MEMORY_BYTES,
    }
    try:
        finished = subprocess.run(  # noqa: S603 (this interpreter and module; the file on stdin)
            [sys.executable, "-m", "blobs.pdf_worker", json.dumps(limits)],
            input=data,
            capture_output=True,
            cwd=_PROJECT_DIR,
            # The parser of hostile input sees none of the service's secrets.
            env={name: os.environ[name] for name in WORKER_ENVIRONMENT if name in os.environ},
            timeout=MAX_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:  # the worker has been killed
        raise ValidationError(too_slow(MAX_SECONDS)) from None
    if finished.returncode == -signal.SIGPROF:
        raise ValidationError(too_slow(MAX_CPU_SECONDS))
    if finished.returncode:
        error = finished.stderr.decode(errors="replace")[-2_000:]
        raise RuntimeError(f"The PDF check failed (exit status {finished.returncode}): {error}")
    return json.loads(finished.stdout)


def validate_pdf_bytes(data: bytes) -> int:
    """Accept a PDF a viewer would open, within the limits; return the pages found."""
    validate_upload_size(data)
    if detect_content_type(data) != PDF:
        raise ValidationError(_("The file is not a PDF."))
    outcome = _parse_in_worker(data)
    # The check waited on no database: the write after it gets the request's whole deadline.
    renew_for_next_step()
    if "missing" in outcome:  # a library pypdf needs: the server's fault, not the file's
        raise DependencyError(outcome["missing"])
    if "refused" in outcome:
        raise ValidationError(_refusal(outcome["refused"]))
    pages = outcome["pages"]
    if pages is None:
        raise ValidationError(_("The PDF is corrupt or truncated."))
    if pages < 1:
        raise ValidationError(_("The PDF has no pages."))
    return pages
