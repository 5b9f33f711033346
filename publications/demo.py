"""Demo publications: two real pomologies with drawn covers, PDFs and a plate (`load_demo_data`)."""

import unicodedata
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from blobs.rights import ImageRole, License
from catalog.demo import DEMO_FRUITS, DemoFruit, draw_fruit, encode, render_fruit
from catalog.models import Fruit, FruitType
from publications.models import Publication, PublicationFruitImage
from publications.services import (
    publication_create,
    publication_fruit_set_description,
    publication_link_fruit,
    publication_set_cover,
)


@dataclass(frozen=True)
class DemoPublication:
    """A publication as the demo loads it: its linked fruits, and the one shown on a plate."""

    title: str
    authors: str
    year: int
    description: str
    fruits: tuple[str, ...]
    plate: str
    cloth: tuple[int, int, int]


DEMO_PUBLICATIONS = [
    DemoPublication(
        "Deutschlands Obstsorten",
        "Müller, Bißmann, Lucas",
        1905,
        "Descriptions and colour plates of the fruit varieties recommended for German orchards.",
        ("Schöner aus Boskoop", "Gravensteiner", "Williams Christ", "Hedelfinger Riesenkirsche"),
        "Schöner aus Boskoop",
        (40, 70, 50),
    ),
    DemoPublication(
        "Illustrirtes Handbuch der Obstkunde",
        "Eduard Lucas, Johann Georg Conrad Oberdieck",
        1859,
        "The standard German pomology of the 19th century, one variety to a page.",
        ("Goldparmäne", "Gute Luise", "Hauszwetschge", "Große Grüne Reneklode"),
        "Goldparmäne",
        (110, 35, 35),
    ),
]
# Where each publication describes its fruits: pages from `FIRST_PAGE` on, a plate for the one
# it illustrates, and what a few of its entries say besides.
FIRST_PAGE = {"Deutschlands Obstsorten": 112, "Illustrirtes Handbuch der Obstkunde": 41}
CITATION_NOTES = {
    ("Deutschlands Obstsorten", "Hedelfinger Riesenkirsche"): {"is_first_description": True},
    ("Illustrirtes Handbuch der Obstkunde", "Große Grüne Reneklode"): {
        "name_in_source": "Reine Claude verte"
    },
    ("Illustrirtes Handbuch der Obstkunde", "Goldparmäne"): {"name_in_source": "Goldparmaine"},
}
# A cover has no fields for its creator, source and licence (the images of fruits have them):
# the demo's drawn covers are credited at the end of the publication's description instead.
COVER_CREDIT = "Cover: drawn for the Fruit Catalog demo (publications/demo.py), CC0 1.0."
PLATE_BACKGROUND = (238, 228, 204)  # aged paper
GOLD = (212, 175, 85)
INK = (45, 38, 30)
FONT_FILES = ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf")  # where installed, they have umlauts


def _font(size: int, bold: bool = False):
    """A serif font with umlauts when the system has one, else Pillow's own (ASCII only)."""
    try:
        return ImageFont.truetype(FONT_FILES[bold], size), True
    except OSError:
        return ImageFont.load_default(size=size), False


def _write(draw, xy, text: str, size: int, fill, bold=False, anchor="ma"):
    """Draw text; without a font that has umlauts, as ASCII ("Schoener" rather than boxes)."""
    font, unicode_ok = _font(size, bold)
    if not unicode_ok:
        for letter, ascii_letters in {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}.items():
            text = text.replace(letter, ascii_letters).replace(
                letter.upper(), ascii_letters.title()
            )
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    draw.text(xy, text, font=font, fill=fill, anchor=anchor)


def _wrap(text: str, width: int) -> list[str]:
    """Words in lines of at most `width` characters."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


def draw_cover(publication: DemoPublication, plate: DemoFruit) -> bytes:
    """A cloth-bound book cover: gilt frame, title, authors, year and a small fruit vignette."""
    width, height = 600, 850
    cover = Image.new("RGB", (width, height), publication.cloth)
    draw = ImageDraw.Draw(cover)
    draw.rectangle((30, 30, width - 31, height - 31), outline=GOLD, width=6)
    draw.rectangle((48, 48, width - 49, height - 49), outline=GOLD, width=2)
    for index, line in enumerate(_wrap(publication.title, 18)):
        _write(draw, (width / 2, 110 + index * 62), line, 50, GOLD, bold=True)
    vignette = render_fruit(plate, background=publication.cloth).resize((300, 225))
    cover.paste(vignette, (150, 330))
    for index, line in enumerate(_wrap(publication.authors, 30)):
        _write(draw, (width / 2, 610 + index * 40), line, 30, GOLD)
    _write(draw, (width / 2, 740), str(publication.year), 34, GOLD, bold=True)
    return encode(cover, quality=90)


def draw_description_pdf(publication: DemoPublication, fruit: DemoFruit, other_names) -> bytes:
    """A one-page PDF: the variety's name, other names and type, a drawing and a source line."""
    width, height = 827, 1169  # A4 at 100 dpi
    page = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(page)
    _write(draw, (width / 2, 90), fruit.name, 48, INK, bold=True)
    if other_names:
        _write(draw, (width / 2, 160), "Synonyms: " + ", ".join(other_names), 22, INK)
    _write(draw, (width / 2, 200), f"Type: {FruitType(fruit.type).label}", 22, INK)
    drawing = render_fruit(fruit, background=(255, 255, 255))
    drawing.thumbnail((640, 640))
    page.paste(drawing, ((width - drawing.width) // 2, 260))
    source = f"From: {publication.title} ({publication.year}), {publication.authors}"
    for index, line in enumerate(_wrap(source, 60)):
        _write(draw, (width / 2, 1020 + index * 34), line, 22, INK)
    return encode(page, "PDF", resolution=100.0)


def load_demo_publications(stdout=None) -> tuple[int, int]:
    """Create the demo publications that do not exist yet (by title), with cover, links and PDFs.

    Returns how many publications were created and how many were already there.
    """
    demo_fruits = {demo.name: demo for demo in DEMO_FRUITS}
    existing = set(
        Publication.objects.filter(title__in=[p.title for p in DEMO_PUBLICATIONS]).values_list(
            "title", flat=True
        )
    )
    fruits = {fruit.name: fruit for fruit in Fruit.objects.filter(name__in=demo_fruits)}
    created = 0
    for demo in DEMO_PUBLICATIONS:
        if demo.title in existing:
            continue
        publication = publication_create(
            title=demo.title,
            authors=demo.authors,
            year=demo.year,
            description=f"{demo.description}\n\n{COVER_CREDIT}",
        )
        publication_set_cover(
            publication=publication, data=draw_cover(demo, demo_fruits[demo.plate])
        )
        for index, name in enumerate(demo.fruits):
            fruit = fruits.get(name)
            if fruit is None:  # a demo fruit someone renamed or deleted: nothing to link
                continue
            page = FIRST_PAGE[demo.title] + 6 * index
            citation = {
                "pages": f"{page}\u2013{page + 1}",
                "plate": str(index + 1) if name == demo.plate else "",
                **CITATION_NOTES.get((demo.title, name), {}),
            }
            link, _ = publication_link_fruit(
                publication=publication, fruit=fruit, citation=citation
            )
            texts = [other["name"] for other in fruit.name_list]
            pdf = draw_description_pdf(demo, demo_fruits[name], texts)
            publication_fruit_set_description(link=link, data=pdf)
            if name == demo.plate:
                PublicationFruitImage.objects.create(
                    link=link,
                    data=draw_fruit(demo_fruits[name], background=PLATE_BACKGROUND),
                    role=ImageRole.PLATE,
                    alt_text=f"Colour plate of {name} on aged paper, from {demo.title}",
                    creator=demo.authors,
                    source=f"{demo.title} ({demo.year}), plate {index + 1}",
                    license=License.PUBLIC_DOMAIN,
                )
        created += 1
        if stdout is not None:
            stdout.write(f"  {publication}")
    return created, len(existing)
