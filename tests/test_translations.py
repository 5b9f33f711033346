"""The German message catalog is complete, compiled, and covers every text the pages show.

- every entry of `locale/de/LC_MESSAGES/django.po` is translated, none fuzzy or obsolete;
- the committed `django.mo` holds exactly what the `.po` says (the service reads the `.mo`);
- `makemessages` over a copy of the project finds no marked text the `.po` lacks (needs gettext's
  xgettext; skipped without it, except in CI);
- every public page rendered in German shows none of its English page's interface texts: the
  English page's text nodes and human-read attributes, less the data the page shows (names,
  titles, numbers), must not come back unchanged in German. A text left unmarked fails here.
"""

import io
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command

from blobs.rights import License
from catalog.models import Fruit, FruitImage, FruitName
from identification.models import FruitCharacteristic
from identification.tests.helpers import ensure_standard_characteristics
from publications.models import Publication, PublicationFruit, PublicationFruitImage

ROOT = Path(settings.BASE_DIR)
CATALOG = ROOT / "locale" / "de" / "LC_MESSAGES"
IGNORED = [".venv", "node_modules", "bench", "staticfiles", "docs"]
# Words the same in both languages on purpose: the other language's name in the switch, file
# formats and units, a term German borrows.
SAME_IN_BOTH = {"English", "Deutsch", "PDF", "API", "JSON", "KB", "MB", "Synonym"}


def key(entry) -> tuple[str, str]:
    return (entry.msgctxt or "", entry.msgid)


def translations(entries) -> dict:
    return {
        key(entry): (
            tuple(sorted(entry.msgstr_plural.items())) if entry.msgid_plural else entry.msgstr
        )
        for entry in entries
        if entry.msgid
    }


def test_every_german_entry_is_translated_and_none_is_fuzzy():
    po = polib.pofile(str(CATALOG / "django.po"))

    assert [entry.msgid for entry in po.untranslated_entries()] == []
    assert [entry.msgid for entry in po.fuzzy_entries()] == []
    assert [entry.msgid for entry in po.obsolete_entries()] == []
    assert po.percent_translated() == 100


def test_the_committed_mo_is_the_po_compiled():
    po = polib.pofile(str(CATALOG / "django.po"))
    mo = polib.mofile(str(CATALOG / "django.mo"))

    assert translations(mo) == translations(po.translated_entries()), (
        "locale/de/LC_MESSAGES/django.mo is out of date: run `make messages`"
    )


def test_makemessages_finds_no_marked_text_the_po_lacks(tmp_path):
    if not shutil.which("xgettext"):
        if os.environ.get("CI"):
            pytest.fail("CI must check the message catalog: install gettext", pytrace=False)
        pytest.skip("gettext is not installed (apt-get install gettext)")
    copy = tmp_path / "project"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(*IGNORED, ".git", "__pycache__", "*.sqlite3", "media"),
    )
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "de", "--no-obsolete"]
        + [f"--ignore={name}" for name in IGNORED],
        cwd=copy,
        env={**os.environ, "DJANGO_DEBUG": "1"},
        check=True,
        capture_output=True,
    )

    found = {
        key(entry) for entry in polib.pofile(str(copy / CATALOG.relative_to(ROOT) / "django.po"))
    }
    committed = {key(entry) for entry in polib.pofile(str(CATALOG / "django.po"))}
    assert sorted(found - committed) == [], "marked texts missing from django.po: `make messages`"
    assert sorted(committed - found) == [], "django.po holds texts no longer marked"


class Text(HTMLParser):
    """A page's texts as people meet them: text nodes, and the attributes read to them."""

    READ = {"alt", "title", "aria-label", "placeholder"}

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skipping += 1
        attributes = dict(attrs)
        if tag == "meta" and attributes.get("name") == "description":
            self.texts.append(attributes.get("content") or "")
        self.texts += [value for name, value in attrs if name in self.READ and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.texts.append(data)


def phrases(html: str, data: list[str]) -> set[tuple[str, ...]]:
    """Each text's words, once the data (longest first) and what is no word are taken out."""
    parser = Text()
    parser.feed(html)
    found = set()
    for text in parser.texts:
        for value in data:
            text = text.replace(value, " ")
        words = tuple(word for word in re.findall(r"[^\W\d_]+", text) if word not in SAME_IN_BOTH)
        if words:
            found.add(words)
    return found


@pytest.fixture
def demo(db):
    """The demo data: fruits with names in several languages, relations, images, values and
    two publications with covers, citations and PDFs."""
    ensure_standard_characteristics()
    call_command("load_demo_data", stdout=io.StringIO())


def shown_data() -> list[str]:
    """What the pages show of the catalog's data, in either language, longest first."""
    values = [
        *Fruit.objects.values_list("name", flat=True),
        *FruitName.objects.values_list("name", flat=True),
        *FruitName.objects.values_list("note", flat=True),
        *Publication.objects.values_list("title", flat=True),
        *Publication.objects.values_list("authors", flat=True),
        *Publication.objects.values_list("description", flat=True),
        *PublicationFruit.objects.values_list("name_in_source", flat=True),
        *PublicationFruit.objects.values_list("pages", flat=True),
        *PublicationFruit.objects.values_list("plate", flat=True),
        *FruitCharacteristic.objects.values_list("note", flat=True),
        *FruitImage.objects.values_list("creator", flat=True),
        *FruitImage.objects.values_list("alt_text", flat=True),
        *PublicationFruitImage.objects.values_list("creator", flat=True),
        *PublicationFruitImage.objects.values_list("alt_text", flat=True),
        # The Creative Commons licences' names are names.
        *[str(label) for code, label in License.choices if code.startswith("CC")],
    ]
    # A description's paragraphs and lines are shown apart (`linebreaks`).
    values += [line.strip() for value in values if value for line in value.splitlines()]
    return sorted({value for value in values if value}, key=len, reverse=True)


def public_pages() -> list[str]:
    fruit = (
        Fruit.objects.filter(publication_links__isnull=False, names__isnull=False)
        .filter(relations__isnull=False)
        .distinct()
        .order_by("pk")
        .first()
    ) or Fruit.objects.order_by("pk").first()
    described = FruitCharacteristic.objects.order_by("fruit_id").values_list("fruit_id", flat=True)
    several = list(dict.fromkeys(described))[:3]
    publication = Publication.objects.order_by("pk").first()
    return [
        "/",
        "/?search=Boskoop",
        "/?search=xqzzy",
        f"/fruits/{fruit.pk}/",
        "/identify/",
        "/identify/?type=apple&fruit_size=7",
        "/compare/",
        "/compare/?fruits=" + ",".join(str(pk) for pk in several),
        "/compare/?fruits=a",
        "/publications/",
        f"/publications/{publication.pk}/",
        "/no/such/page",
    ]


def test_every_public_page_in_german_shows_none_of_its_english_interface_texts(client, demo):
    data = shown_data()
    for path in public_pages():
        english = client.get(path)
        german = client.get(f"/de{path}")
        assert english.status_code == german.status_code, path
        assert german["Content-Language"] == "de", path

        left_in_english = phrases(english.content.decode(), data) & phrases(
            german.content.decode(), data
        )

        assert sorted(left_in_english) == [], (path, sorted(left_in_english))
