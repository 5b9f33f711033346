"""Helpers of the admin tests of every app: form data, uploaded files, error texts."""

import re

from django.core.files.uploadedfile import SimpleUploadedFile

from core.testing.media import make_object_png, make_pdf_bytes


def management_form(prefix, *, total, initial):
    """An inline formset's management form data."""
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def form_errors(response) -> str:
    """The text of every error list on an admin page."""
    return " ".join(
        re.sub(r"<[^>]+>", " ", match)
        for match in re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.text, re.S)
    )


def uploaded_file(data: bytes, name: str, content_type: str) -> SimpleUploadedFile:
    """An uploaded file, as a browser sends it."""
    return SimpleUploadedFile(name, data, content_type)


def png_upload(data=None, name="fruit.png", content_type="image/png") -> SimpleUploadedFile:
    """An uploaded PNG (a small one unless `data` says otherwise)."""
    return uploaded_file(data if data is not None else make_object_png(), name, content_type)


def pdf_upload(data=None) -> SimpleUploadedFile:
    """An uploaded PDF (a one-page one unless `data` is given)."""
    return uploaded_file(
        data if data is not None else make_pdf_bytes(), "description.pdf", "application/pdf"
    )
