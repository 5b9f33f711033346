"""The catalog as a Darwin Core Archive (a checklist), streamed: what GBIF's tools read.

It shows each fruit whole (names and images of the catalog, citations of the publications,
characteristics of identification), as the fruit detail and the fruit page do.

`taxon.txt` is the core (one row per fruit, named as a cultivar of its type's taxon:
`catalog.models.FRUIT_TYPE_TAXA`; then one per misapplied name, GBIF's way of giving a name used
wrongly for a taxon), with the extensions `vernacularname.txt` (every other name with its
language), `multimedia.txt` (every fruit image, with its creator and licence), `references.txt`
(every citation, with pages and plate) and `measurementorfact.txt` (every characteristic a fruit
shows, with its states' labels); `meta.xml` maps their columns to Darwin Core and Dublin Core
terms, `eml.xml` describes the dataset. Each file is written into the zip as its rows are read,
a chunk of fruits at a time (`catalog.exports`), so memory stays flat whatever the catalog's
size.
"""

import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from urllib.parse import quote
from xml.sax.saxutils import escape

from django.conf import settings
from django.db.models import Max, Prefetch
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from blobs.rights import alt_text_or_role, license_url
from catalog.exports import fruit_page_url, in_chunks, iso, newest
from catalog.exports import last_modified as catalog_last_modified
from catalog.models import FRUIT_TYPE_TAXA, Fruit, FruitImage, FruitName, NameKind
from core.db.deadlines import keyset_chunks
from core.rest.files import NOT_MODIFIED, StreamedFileView
from identification.models import CharacteristicState, FruitCharacteristic
from publications.models import CITED_FIELDS, Publication, PublicationFruit

# What a multimedia row reads of an image (never its bytes).
IMAGE_FIELDS = [
    "fruit_id",
    "sha256",
    "content_type",
    "alt_text",
    "role",
    "creator",
    "source",
    "license",
]

DWC = "http://rs.tdwg.org/dwc/terms/"
DC = "http://purl.org/dc/terms/"
GBIF = "http://rs.gbif.org/terms/1.0/"
# Every row is a cultivated plant: GBIF matches its name within this kingdom, which matters
# most for a row whose type names no genus.
KINGDOM = "Plantae"
# The archive's files: name, row type, and the columns after the id (term, header).
FILES = [
    (
        "taxon.txt",
        f"{DWC}Taxon",
        [
            (f"{DWC}taxonID", "taxonID"),
            (f"{DWC}scientificName", "scientificName"),
            (f"{DWC}taxonRank", "taxonRank"),
            (f"{DWC}vernacularName", "vernacularName"),
            (f"{DC}references", "references"),
            (f"{DWC}cultivarEpithet", "cultivarEpithet"),
            (f"{DWC}kingdom", "kingdom"),
            (f"{DWC}taxonomicStatus", "taxonomicStatus"),
            (f"{DWC}acceptedNameUsageID", "acceptedNameUsageID"),
        ],
    ),
    (
        "vernacularname.txt",
        f"{GBIF}VernacularName",
        [(f"{DWC}vernacularName", "vernacularName"), (f"{DC}language", "language")],
    ),
    (
        "multimedia.txt",
        f"{GBIF}Multimedia",
        [
            (f"{DC}identifier", "identifier"),
            (f"{DC}format", "format"),
            (f"{DC}title", "title"),
            (f"{DC}creator", "creator"),
            (f"{DC}license", "license"),
            (f"{DC}source", "source"),
        ],
    ),
    (
        "references.txt",
        f"{GBIF}Reference",
        [(f"{DC}bibliographicCitation", "bibliographicCitation"), (f"{DC}source", "source")],
    ),
    (
        "measurementorfact.txt",
        f"{DWC}MeasurementOrFact",
        [
            (f"{DWC}measurementID", "measurementID"),
            (f"{DWC}measurementType", "measurementType"),
            (f"{DWC}measurementValue", "measurementValue"),
            (f"{DWC}measurementUnit", "measurementUnit"),
            (f"{DWC}measurementMethod", "measurementMethod"),
            (f"{DWC}measurementRemarks", "measurementRemarks"),
        ],
    ),
]
# Several states of one characteristic (a fruit medium to large), in `measurementValue`.
STATE_LABEL_JOIN = "; "


def last_modified():
    """The newest change of anything the archive holds (a deletion included); the catalog's
    includes the characteristics and their values (`catalog.columns`)."""
    return newest(
        catalog_last_modified(),
        PublicationFruit.objects.aggregate(at=Max("updated_at"))["at"],
        Publication.objects.aggregate(at=Max("updated_at"))["at"],
    )


def scientific_name(fruit_type: str, epithet: str) -> str:
    """A cultivar's name after the ICNCP: its type's taxon, then the epithet in single quotes
    ("Malus domestica 'Gravensteiner'", "Prunus 'Stella'"); the quoted epithet alone where the
    type names no genus, so that it is never read as one."""
    taxon = FRUIT_TYPE_TAXA[fruit_type]
    quoted = f"'{epithet}'"
    return f"{taxon.name} {quoted}" if taxon else quoted


def tsv(values) -> str:
    """One line of a tab-separated file; tabs and line breaks inside a value become spaces."""
    return (
        "\t".join(
            " ".join(str(value).replace("\t", " ").split()) if value is not None else ""
            for value in values
        )
        + "\n"
    )


def meta_xml() -> str:
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<archive xmlns="http://rs.tdwg.org/dwc/text/" metadata="eml.xml">\n'
    ]
    for index, (name, row_type, columns) in enumerate(FILES):
        element, key = ("core", "id") if index == 0 else ("extension", "coreid")
        parts.append(
            f'  <{element} encoding="UTF-8" fieldsTerminatedBy="\\t" linesTerminatedBy="\\n" '
            f'fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="{row_type}">\n'
            f'    <files><location>{name}</location></files>\n    <{key} index="0"/>\n'
        )
        for position, (term, _) in enumerate(columns, start=1):
            parts.append(f'    <field index="{position}" term="{term}"/>\n')
        parts.append(f"  </{element}>\n")
    parts.append("</archive>\n")
    return "".join(parts)


def eml_xml(*, title: str, url: str, published: str, license: str, contact: str, email: str) -> str:
    """The dataset's description: title, publication date, licence, the service's address, and
    the contact (an organisation, its e-mail address where there is one), in the element order
    of GBIF's metadata profile."""
    deed = license_url(license) or ""
    rights = f"This work is licensed under {license}{f' ({deed})' if deed else ''}."
    mail = f"<electronicMailAddress>{escape(email)}</electronicMailAddress>" if email else ""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" '
        f'packageId="{escape(url)}" system="http://gbif.org" scope="system" xml:lang="en">',
        "  <dataset>",
        f"    <title>{escape(title)}</title>",
        f"    <creator><organizationName>{escape(title)}</organizationName></creator>",
        f"    <pubDate>{escape(published)}</pubDate>",
        "    <language>en</language>",
        "    <abstract><para>Fruit varieties (cultivars) with their names, images and the "
        "publications that describe them.</para></abstract>",
        f"    <intellectualRights><para>{escape(rights)} Each image states its own licence."
        "</para></intellectualRights>",
        '    <distribution scope="document"><online>'
        f'<url function="information">{escape(url)}</url></online></distribution>',
        f"    <contact><organizationName>{escape(contact)}</organizationName>{mail}"
        f"<onlineUrl>{escape(url)}</onlineUrl></contact>",
        "  </dataset>",
        "</eml:eml>",
    ]
    return "\n".join(lines) + "\n"


def member(name: str, dated: datetime) -> zipfile.ZipInfo:
    """A file of the archive, dated by the export: in UTC, as a zip stores no time zone (and
    to two seconds)."""
    info = zipfile.ZipInfo(name, date_time=dated.astimezone(UTC).timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16  # -rw-r--r-- where it is unpacked
    return info


class _Pipe:
    """A write-only stream whose bytes are taken out as the zip writes them (no seeking)."""

    def __init__(self):
        self.pieces: list[bytes] = []

    def write(self, data) -> int:
        self.pieces.append(bytes(data))
        return len(data)

    def flush(self):
        pass

    def take(self) -> bytes:
        data, self.pieces = b"".join(self.pieces), []
        return data


def archive(
    *,
    page_url: Callable[[int], str],
    absolute: Callable[[str], str],
    dated: datetime,
    dataset: dict[str, str],
):
    """The archive's bytes, in pieces: each file is written as its rows are read, a chunk at a
    time (keyset by id, or catalog order for the core), never the whole of any table.

    Every file is dated `dated` (the newest change), as is the dataset's publication;
    `dataset` is what `eml_xml` states besides (title, license, contact, email)."""
    pipe = _Pipe()
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member("meta.xml", dated), meta_xml())
        description = eml_xml(url=absolute("/"), published=iso(dated)[:10], **dataset)
        zf.writestr(member("eml.xml", dated), description)
        yield pipe.take()
        rows = {
            "taxon.txt": _taxon_rows,
            "vernacularname.txt": _name_rows,
            "multimedia.txt": _image_rows,
            "references.txt": _reference_rows,
            "measurementorfact.txt": _measurement_rows,
        }
        for name, _, columns in FILES:
            with zf.open(member(name, dated), "w", force_zip64=True) as entry:
                entry.write(tsv(["id", *(header for _, header in columns)]).encode())
                for lines in rows[name](page_url=page_url, absolute=absolute):
                    entry.write("".join(lines).encode())
                    yield pipe.take()
    yield pipe.take()


def _taxon_rows(*, page_url, absolute) -> Iterator[list[str]]:
    """A row per fruit (accepted), then a row per misapplied name: GBIF's checklists give a name
    used wrongly for a taxon as a usage of its own, whose accepted usage is that taxon."""
    for chunk in in_chunks(Fruit.objects.only("catalog_number", "name", "type")):
        lines = []
        for fruit in chunk:
            url = page_url(fruit.pk)
            lines.append(taxon_line(url, fruit.type, fruit.name, page=url, status="accepted"))
        yield lines
    misapplied = (
        FruitName.objects.filter(kind=NameKind.MISAPPLIED)
        .select_related("fruit")
        .only("fruit_id", "name", "fruit__type")
    )
    for chunk in keyset_chunks(misapplied):
        lines = []
        for record in chunk:
            url = page_url(record.fruit_id)
            # The name, not the row's id, tells the usage: names are stored anew on each save.
            usage = f"{url}#misapplied-{quote(record.name, safe='')}"
            line = taxon_line(usage, record.fruit.type, record.name, page=url, status="misapplied")
            lines.append(line)
        yield lines


def taxon_line(taxon_id: str, fruit_type: str, epithet: str, *, page: str, status: str) -> str:
    """A line of `taxon.txt`: a cultivar's usage. An accepted one is a fruit, with its name as
    the vernacular name; another's accepted usage is the fruit whose page it names."""
    accepted = status == "accepted"
    return tsv(
        [
            taxon_id,
            taxon_id,
            scientific_name(fruit_type, epithet),
            "cultivar",
            epithet if accepted else "",
            page,
            epithet,
            KINGDOM,
            status,
            "" if accepted else page,
        ]
    )


def _name_rows(*, page_url, absolute) -> Iterator[list[str]]:
    """Every other name but the misapplied ones, which are no names of the fruit (`taxon.txt`)."""
    names = FruitName.objects.exclude(kind=NameKind.MISAPPLIED).only("fruit_id", "name", "language")
    for chunk in keyset_chunks(names):
        yield [tsv([page_url(name.fruit_id), name.name, name.language]) for name in chunk]


def _image_rows(*, page_url, absolute) -> Iterator[list[str]]:
    images = (
        FruitImage.objects.without_blobs()
        .select_related("fruit")
        .only(*IMAGE_FIELDS, "fruit__name")
    )
    for chunk in keyset_chunks(images):
        yield [
            tsv(
                [
                    page_url(image.fruit_id),
                    absolute(image.get_data_url()),
                    image.content_type,
                    alt_text_or_role(image.alt_text, image.role, image.fruit.name),
                    image.creator,
                    image.license_url or image.license,
                    image.source,
                ]
            )
            for image in chunk
        ]


def _reference_rows(*, page_url, absolute) -> Iterator[list[str]]:
    # The citations' query shape; the chunks order by id.
    for chunk in keyset_chunks(PublicationFruit.objects.as_citations()):
        yield [
            tsv(
                [
                    page_url(link.fruit_id),
                    citation_text(link),
                    absolute(link.publication.get_absolute_url()),
                ]
            )
            for link in chunk
        ]


def _measurement_rows(*, page_url, absolute) -> Iterator[list[str]]:
    """A row per fruit and characteristic it shows: the characteristic's name, the labels of
    the fruit's states, its reference as the method; the note and the source as remarks."""
    states = CharacteristicState.objects.only("id", "value", "label", "characteristic_id").order_by(
        "value"
    )
    values = (
        FruitCharacteristic.objects.select_related("characteristic", "source_publication")
        .only(
            "fruit_id",
            "pages",
            "note",
            "characteristic__code",
            "characteristic__name",
            "characteristic__reference",
            *(f"source_publication__{f}" for f in CITED_FIELDS),
        )
        .prefetch_related(Prefetch("states", queryset=states))
    )
    for chunk in keyset_chunks(values):
        lines = []
        for value in chunk:
            url = page_url(value.fruit_id)
            characteristic = value.characteristic
            labels = [state.label for state in value.states.all()]
            lines.append(
                tsv(
                    [
                        url,
                        f"{url}#{characteristic.code}",
                        characteristic.name,
                        STATE_LABEL_JOIN.join(labels),
                        "",
                        characteristic.reference,
                        measurement_remarks(value),
                    ]
                )
            )
        yield lines


def measurement_remarks(value) -> str:
    """The note, then the source: "Ripe in late September. Source: Müller (1905): Deutschlands
    Obstsorten, p. 112." """
    parts = [value.note] if value.note else []
    publication = value.source_publication
    if publication is not None:
        where = f", p. {value.pages}" if value.pages else ""
        parts.append(f"Source: {cited(publication)}{where}.")
    return " ".join(parts)


def citation_text(link) -> str:
    """ "Müller, Bißmann, Lucas (1905): Deutschlands Obstsorten, p. 112, plate IV." """
    where = f", {link.place}" if link.place else ""
    named = f", as {link.name_in_source}" if link.name_in_source else ""
    first = "; first description" if link.is_first_description else ""
    return f"{cited(link.publication)}{where}{named}{first}."


def cited(publication) -> str:
    """Who, when and what: "Müller, Bißmann, Lucas (1905): Deutschlands Obstsorten"."""
    who = publication.authors or "Anonymous"
    when = f" ({publication.year})" if publication.year else ""
    return f"{who}{when}: {publication.title}"


@extend_schema(
    summary="Export the catalog as a Darwin Core Archive",
    description=(
        "A checklist GBIF's tools read: `meta.xml`, `eml.xml` (title, licence, the service's "
        "address, the contact) and `taxon.txt` (core: one row per fruit, `taxonID` its public "
        "page, `scientificName` the cultivar's name after the ICNCP: its type's species or genus, "
        "then the epithet in single quotes (`Malus domestica 'Gravensteiner'`, `Prunus "
        "'Stella'`), `cultivarEpithet` the epithet, `taxonRank` `cultivar`, `kingdom` `Plantae`, "
        "`taxonomicStatus` `accepted`; a misapplied name is a row of its own, `misapplied`, whose "
        "`acceptedNameUsageID` is its fruit's), with the extensions `vernacularname.txt` (every "
        "other name but the misapplied ones, with its language), `multimedia.txt` (every fruit "
        "image with its creator and licence), `references.txt` (every citation with pages and "
        "plate) and `measurementorfact.txt` (every characteristic a fruit shows: "
        "`measurementType` its name, `measurementValue` the labels of the fruit's states joined "
        "by `; `, `measurementMethod` its reference, `measurementRemarks` the note and the "
        "source), each dated by the newest change. Streamed. `ETag` and `Last-Modified` date the "
        "newest change, so a conditional request is a 304. Full builds are limited per client "
        "address (`FRUITCATALOG_EXPORT_RATE_PER_ADDRESS`)."
    ),
    responses={
        (200, "application/zip"): OpenApiTypes.BINARY,
        (200, "application/octet-stream"): OpenApiTypes.BINARY,
        304: NOT_MODIFIED,
    },
)
class DarwinCoreExportView(StreamedFileView):
    """The catalog as a Darwin Core Archive (this module)."""

    media_type = "application/zip"
    filename = "dwca.zip"

    def version_key(self, request):
        return "\n".join(f"{name}={value}" for name, value in dataset().items())

    def last_modified(self, request):
        self.changed = last_modified()
        return self.changed

    def stream(self, request):
        return archive(
            page_url=fruit_page_url(request),
            absolute=request.build_absolute_uri,
            dated=self.changed or timezone.now(),
            dataset=dataset(),
        )


def dataset() -> dict[str, str]:
    """What the settings say of the dataset (`eml_xml`)."""
    return {
        "title": settings.FRUITCATALOG_DATASET_TITLE,
        "license": settings.FRUITCATALOG_DATA_LICENSE,
        "contact": (
            settings.FRUITCATALOG_DATASET_CONTACT_ORGANIZATION
            or settings.FRUITCATALOG_DATASET_TITLE
        ),
        "email": settings.FRUITCATALOG_DATASET_CONTACT_EMAIL,
    }
