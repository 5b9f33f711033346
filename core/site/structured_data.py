"""schema.org JSON-LD for the public pages: built from data, safe inside a `<script>` element.

A JSON-LD block is data, not a script: browsers do not run it, so the pages' Content-Security-
Policy (no inline scripts) does not block it, and search engines read it all the same.
"""

import json

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

# Inside <script>, "</script>" (or "<!--") in a string would end or confuse the element: JSON
# allows these characters escaped, and JSON parsers read the escapes back. U+2028 and U+2029 are
# escaped for old JavaScript parsers.
_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def json_ld(data: dict) -> SafeString:
    """`data` as a `<script type="application/ld+json">` element, escaped for HTML."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308


def without_empty(data: dict) -> dict:
    """`data` without the keys whose value is None, "" or an empty list."""
    return {key: value for key, value in data.items() if value not in (None, "", [])}
