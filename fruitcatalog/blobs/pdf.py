"""The check of uploaded PDFs, shared by the API and the admin forms: one rule, one place."""

import io

from django.core.exceptions import ValidationError
from pypdf import PdfReader

from fruitcatalog.blobs.content_types import PDF, detect_content_type
from fruitcatalog.blobs.uploads import validate_upload_size


def validate_pdf_bytes(data: bytes) -> int:
    """Accept a complete PDF of at least one page within the upload limit; return its page count.

    The bytes decide: libmagic must see a PDF (whatever the file is called or declared as), and
    pypdf must parse it in strict mode, which requires the end-of-file marker and a consistent
    cross-reference table, so a truncated or cut-up file is refused. The price: PDFs with a
    broken cross-reference table, which viewers repair silently, are refused too (saving them
    again from a viewer fixes them).
    """
    validate_upload_size(data)
    if detect_content_type(data) != PDF:
        raise ValidationError("The file is not a PDF.")
    try:
        pages = len(PdfReader(io.BytesIO(data), strict=True).pages)
    except Exception:
        # pypdf reports malformed input with its own errors and with whatever built-in error the
        # broken structure provokes (ValueError, KeyError, TypeError, RecursionError, ...): any
        # failure to read the page tree means the file is not a usable PDF.
        raise ValidationError("The PDF is corrupt or truncated.") from None
    if pages < 1:
        raise ValidationError("The PDF has no pages.")
    return pages
