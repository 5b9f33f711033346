"""schema.org JSON-LD for the public pages: built from data, safe inside a `<script>` element.

A JSON-LD block is data, not a script: browsers do not run it, so the pages' Content-Security-
Policy (no inline scripts) does not block it, and search engines read it all the same.
"""

import json
import re

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


# A credited name is an organisation's when one of its words is one of these (compared ignoring
# case; "e.V." is read as "e.v")...
ORGANIZATION_WORDS = frozenset(
    {
        "ag", "archive", "archives", "association", "catalog", "catalogue", "collection",
        "college", "company", "demo", "e.v", "foundation", "gardens", "gmbh", "herbarium", "inc",
        "institute", "library", "ltd", "nursery", "nurseries", "project", "publishers",
        "publishing", "society", "société", "team", "university",
    }
)  # fmt: skip
# ... or ends with one of these: German compounds name what they are last ("Pomologen-Verein",
# "Landesanstalt", "Gartenbaugesellschaft"), endings a person's name hardly has.
ORGANIZATION_ENDINGS = (
    "anstalt", "archiv", "baumschule", "baumschulen", "bibliothek", "gesellschaft", "hochschule",
    "institut", "ministerium", "museum", "sammlung", "stiftung", "universität", "verband",
    "verein", "verlag",
)  # fmt: skip
# A part of a comma-separated list made only of initials ("E.", "J. G. C.", "Chr.", "J.-G.")
# belongs to the name before it: "Lucas, E." is one person.
_INITIALS = re.compile(r"(?:[^\W\d_]{1,3}\.[\s-]*)+")
_WORDS = re.compile(r"\w+(?:\.\w+)*")


def agents(text: str) -> list[dict]:
    """The people and organisations a credit or an author list names, as schema.org `Person`s
    and `Organization`s, in their order.

    Semicolons, where the text has one, separate the names ("Lucas, Eduard; Oberdieck, Johann
    Georg Conrad"); otherwise commas do ("Müller, Bißmann, Lucas"), a part of initials only
    staying with the name before it. "and" and "und" separate nothing: an association's name
    holds them ("Obst- und Gartenbauverein").
    """
    if ";" in text:
        names = text.split(";")
    else:
        names = []
        for part in text.split(","):
            if names and _INITIALS.fullmatch(part.strip()):
                names[-1] = f"{names[-1]},{part}"
            else:
                names.append(part)
    return [agent(name.strip()) for name in names if _WORDS.search(name)]


def agent(name: str) -> dict:
    """One name as a schema.org `Organization` when a word of it says it is one (see
    `ORGANIZATION_WORDS`), else a `Person`."""
    words = _WORDS.findall(name.casefold())
    is_organization = any(
        word in ORGANIZATION_WORDS or word.endswith(ORGANIZATION_ENDINGS) for word in words
    )
    return {"@type": "Organization" if is_organization else "Person", "name": name}


def one_or_list(items: list):
    """None for no item, the item itself for one, else the list (JSON-LD reads one value and a
    list of one alike)."""
    if not items:
        return None
    return items[0] if len(items) == 1 else items
