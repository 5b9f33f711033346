"""The one mapping of the catalog's rows to BrAPI v2.1's models (docs/api.md, "BrAPI").

Pure functions of rows already read (`brapi.reads` reads them, a fixed number of queries for any
page): a fruit is a germplasm (and its MCPD passport and pedigree node), a characteristic a
germplasm attribute, a state a fruit shows an attribute value, a fruit image a BrAPI image.
BrAPI's fields are strings unless its schema says otherwise, and a field the catalog does not
know is left out rather than sent empty or null (v2.1's schemas allow no null).

A fruit arrives as the dict `reads.germplasm()` or `reads.pedigree()` gives (`id`, `name`,
`type`, `catalog_number` and the annotations' lists): a page of 1,000 is mapped dict to dict,
with no model instance between the database row and the JSON.
"""

from collections.abc import Callable, Iterable
from typing import NamedTuple

from django.utils import translation

from blobs.rights import ImageRole, License, alt_text_or_role, license_url
from catalog.models import FRUIT_TYPE_TAXA, NAME_FIELDS, NameKind, RelationKind
from identification.models import Scale
from wholefruit.dwca import cited

# How each parentage relation is a BrAPI parent (`ParentType`), seen from the child. A seedling
# grows from a seed the named variety bore: the variety is its seed parent, its mother (the
# pollen parent unknown: open pollination). A sport is a branch's mutation, propagated by
# grafting: a clonal descendant. `parent` (a parent whose role is not known) has no entry: v2.1's
# `ParentType` has no neutral value (MALE, FEMALE, SELF, POPULATION, CLONAL), and each of them
# states a role the catalog does not know; such parents are named in the pedigree string and in
# the node's `additionalInfo` instead.
PARENT_TYPES = {
    RelationKind.MOTHER: "FEMALE",
    RelationKind.FATHER: "MALE",
    RelationKind.SEEDLING_OF: "FEMALE",
    RelationKind.SPORT_OF: "CLONAL",
}
# A side of a cross that is not known, in the pedigree string (Purdy notation: female/male).
UNKNOWN_PARENT = "UNKNOWN"
# Names of other varieties: a misapplied name names another variety, not this one, so it is no
# synonym and no accession name (the Darwin Core Archive leaves it out of the names too).
NOT_NAMES = frozenset({NameKind.MISAPPLIED})
SCALE_DATA_TYPES = {Scale.ORDINAL: "Ordinal", Scale.NOMINAL: "Nominal"}
# BrAPI speaks English (its answers never follow a language); the names read back are English
# whatever language is active where this module is first imported.
with translation.override("en"):
    ROLE_BY_LABEL = {ImageRole(code).label.lower(): code for code in ImageRole.values}
# Where a name row of `name_list` (`Fruit.objects.with_names()`: one list of `NAME_FIELDS` per
# name) holds the name and its kind.
NAME, KIND = NAME_FIELDS.index("name"), NAME_FIELDS.index("kind")


def taxon_fields(fruit_type: str) -> dict:
    """`genus` and `species` of a fruit type, from the one table of the types' taxa; none for a
    type that names no genus, no species for one that spans several."""
    taxon = FRUIT_TYPE_TAXA.get(fruit_type)
    if taxon is None:
        return {}
    return {"genus": taxon.genus, **({"species": taxon.species} if taxon.species else {})}


# `taxon_fields` of every type, worked out once rather than once a row.
TAXON_FIELDS = {fruit_type: taxon_fields(fruit_type) for fruit_type in FRUIT_TYPE_TAXA}


class Related(NamedTuple):
    """A fruit's parentage relation as the mapping reads it: its kind, the related variety's
    name, and its id when it is in the catalog."""

    kind: str
    name: str
    fruit_id: int | None = None


def ancestry(fruit: dict) -> list[Related]:
    """The fruit's parentage (`reads.with_ancestry`): a related fruit's own name when it is in
    the catalog, else the name the relation keeps."""
    return [
        Related(kind, other_name if other_id is not None else name, other_id)
        for kind, name, other_id, other_name in fruit["ancestry"]
    ]


def descendants(fruit: dict) -> list[Related]:
    """The fruits that name this one in their parentage (`reads.with_descendants`), each with
    the kind of that relation."""
    return [Related(kind, name, fruit_id) for kind, fruit_id, name in fruit["descendants"]]


def pedigree_string(relations: Iterable[Related]) -> str:
    """A fruit's parentage as one string, "" when none is known.

    A cross in Purdy notation, female first: "Golden Delicious/Jonathan", a side not known
    written `UNKNOWN` ("Cox's Orange Pippin/UNKNOWN" for an open-pollinated seedling of it).
    What Purdy notation has no sign for is said in words, as MCPD's ANCEST allows: parents whose
    roles are not known ("cross involving Ribston Pippin and Nonpareil"), a sport ("sport of
    Gravensteiner"). Parts are joined by "; ".
    """
    female, male, unknown, sport = [], [], [], []
    for relation in relations:
        kind = relation.kind
        if kind in (RelationKind.MOTHER, RelationKind.SEEDLING_OF):
            female.append(relation.name)
        elif kind == RelationKind.FATHER:
            male.append(relation.name)
        elif kind == RelationKind.PARENT:
            unknown.append(relation.name)
        elif kind == RelationKind.SPORT_OF:
            sport.append(relation.name)
    parts = []
    if female or male:
        parts.append(
            f"{' or '.join(female) or UNKNOWN_PARENT}/{' or '.join(male) or UNKNOWN_PARENT}"
        )
    if unknown:
        parts.append("cross involving " + " and ".join(unknown))
    parts.extend(f"sport of {name}" for name in sport)
    return "; ".join(parts)


def other_names(fruit: dict) -> list[tuple[str, str]]:
    """(name, kind) of the fruit's other names (`name_list`) that are names of it, in order."""
    return [(row[NAME], row[KIND]) for row in fruit["name_list"] if row[KIND] not in NOT_NAMES]


def germplasm(fruit: dict, *, page_url: Callable[[int], str]) -> dict:
    """A fruit as a BrAPI `Germplasm`.

    Reads `name_list` (`with_names()`) and `ancestry` (`reads.with_ancestry`). Its public
    page is both its permanent identifier (`germplasmPUI`, as the Darwin Core Archive's
    `taxonID`) and its `documentationURL`.
    """
    pk, name, number = fruit["id"], fruit["name"], fruit["catalog_number"]
    url = page_url(pk)
    record = {
        "germplasmDbId": str(pk),
        "germplasmPUI": url,
        "germplasmName": name,
        "defaultDisplayName": name,
        "commonCropName": fruit["type"],
        **TAXON_FIELDS.get(fruit["type"], {}),
        "documentationURL": url,
        "synonyms": [{"synonym": other, "type": kind} for other, kind in other_names(fruit)],
    }
    if number is not None:
        record["accessionNumber"] = str(number)
    if fruit["ancestry"]:
        pedigree = pedigree_string(ancestry(fruit))
        if pedigree:
            record["pedigree"] = pedigree
    return record


def mcpd(fruit: dict, *, page_url: Callable[[int], str]) -> dict:
    """A fruit's passport as BrAPI models MCPD (`GermplasmMCPD`): what the catalog knows
    (PUID, ACCENUMB, ACCENAME, GENUS, SPECIES, CROPNAME, ANCEST); institutes, acquisition,
    collecting, origin, status and storage are not the catalog's to say, and left out."""
    record = {
        "germplasmDbId": str(fruit["id"]),
        "germplasmPUI": page_url(fruit["id"]),
        "accessionNames": [fruit["name"], *(other for other, _ in other_names(fruit))],
        "commonCropName": fruit["type"],
        **TAXON_FIELDS.get(fruit["type"], {}),
    }
    if fruit["catalog_number"] is not None:
        record["accessionNumber"] = str(fruit["catalog_number"])
    pedigree = pedigree_string(ancestry(fruit))
    if pedigree:
        record["ancestralData"] = pedigree
    return record


def pedigree_node(
    fruit: dict, *, page_url: Callable[[int], str], parents: bool = True, progeny: bool = True
) -> dict:
    """A fruit as a BrAPI `PedigreeNode`: its parents in the catalog (`ancestry`) and the
    fruits that name it as theirs (`descendants`), each with its `parentType`
    (`PARENT_TYPES`). Relations to varieties known by name alone have no `germplasmDbId` to
    give: the pedigree string names them. Parents and progeny whose role is not known are listed
    by id in `additionalInfo` (`parentsOfUnknownRole`, `progenyOfUnknownRole`, comma-separated
    `germplasmDbId`s)."""
    relations = ancestry(fruit)
    record = {
        "germplasmDbId": str(fruit["id"]),
        "germplasmPUI": page_url(fruit["id"]),
        "germplasmName": fruit["name"],
        "defaultDisplayName": fruit["name"],
    }
    pedigree = pedigree_string(relations)
    if pedigree:
        record["pedigreeString"] = pedigree
    unknown_roles = {}
    if parents:
        record["parents"] = [
            {
                "germplasmDbId": str(relation.fruit_id),
                "germplasmName": relation.name,
                "parentType": PARENT_TYPES[relation.kind],
            }
            for relation in relations
            if relation.fruit_id is not None and relation.kind in PARENT_TYPES
        ]
        unknown = [
            str(relation.fruit_id)
            for relation in relations
            if relation.fruit_id is not None and relation.kind == RelationKind.PARENT
        ]
        if unknown:
            unknown_roles["parentsOfUnknownRole"] = ",".join(unknown)
    if progeny:
        children = descendants(fruit)
        record["progeny"] = [
            {
                "germplasmDbId": str(relation.fruit_id),
                "germplasmName": relation.name,
                "parentType": PARENT_TYPES[relation.kind],
            }
            for relation in children
            if relation.kind in PARENT_TYPES
        ]
        unknown = [str(r.fruit_id) for r in children if r.kind == RelationKind.PARENT]
        if unknown:
            unknown_roles["progenyOfUnknownRole"] = ",".join(unknown)
    if unknown_roles:
        record["additionalInfo"] = unknown_roles
    return record


def attribute(characteristic) -> dict:
    """A characteristic as a BrAPI `GermplasmAttribute`: one trait, method and scale of its own
    (each with the characteristic's id), the method citing the UPOV/ECPGR reference, the scale's
    `validValues.categories` its states (`value` the state's code as text, `label` its label).

    Reads `states` (`with_states()` or a prefetch). `commonCropName` is given when the
    characteristic applies to one fruit type; `additionalInfo.fruitTypes` lists them all.
    """
    pk = str(characteristic.pk)
    states = list(characteristic.states.all())
    values = [state.value for state in states]
    ordinal = characteristic.scale == Scale.ORDINAL
    valid = {"categories": [{"value": str(s.value), "label": s.label} for s in states]}
    if ordinal and values:
        valid.update(min=min(values), max=max(values))
    reference = characteristic.reference
    method = {
        "methodDbId": pk,
        "methodName": reference or "Described",
        "description": (
            f"Observed and coded as {reference} describes the characteristic."
            if reference
            else "Observed and coded by the catalog's curators."
        ),
    }
    if reference:
        method["bibliographicalReference"] = reference
    types = characteristic.type_list
    record = {
        "attributeDbId": pk,
        "attributeName": characteristic.name,
        "trait": {
            "traitDbId": pk,
            "traitName": characteristic.name,
            "mainAbbreviation": characteristic.code,
        },
        "method": method,
        "scale": {
            "scaleDbId": pk,
            "scaleName": f"{characteristic.name} ({characteristic.scale})",
            "dataType": SCALE_DATA_TYPES[characteristic.scale],
            "validValues": valid,
        },
        "additionalInfo": {
            "code": characteristic.code,
            "fruitTypes": ",".join(types),
            "reliability": characteristic.reliability,
        },
    }
    if len(types) == 1:
        record["commonCropName"] = types[0]
    return record


def attribute_value(link, *, absolute: Callable[[str], str]) -> dict:
    """One state a fruit shows (a `FruitCharacteristicState`, with its value, characteristic,
    fruit and source read) as a BrAPI `GermplasmAttributeValue`: `value` the state's code, as
    in the attribute's categories; `additionalInfo` its label, the note, and the source (the
    publication cited with its pages, and its page)."""
    value = link.fruit_characteristic
    characteristic = value.characteristic
    info = {"label": link.state.label}
    if value.note:
        info["note"] = value.note
    publication = value.source_publication
    if publication is not None:
        pages = f", p. {value.pages}" if value.pages else ""
        info["source"] = f"{cited(publication)}{pages}"
        info["sourceURL"] = absolute(publication.get_absolute_url())
    return {
        "attributeValueDbId": str(link.pk),
        "attributeDbId": str(characteristic.pk),
        "attributeName": characteristic.name,
        "germplasmDbId": str(value.fruit_id),
        "germplasmName": value.fruit.name,
        "value": str(link.state.value),
        "additionalInfo": info,
    }


def image_name(fruit_name: str, role: str) -> str:
    """An image's name: its fruit and what it shows ("Gravensteiner, blossom")."""
    return alt_text_or_role("", role, fruit_name)


def parse_image_name(text: str) -> tuple[str, str] | None:
    """`image_name` undone: (fruit name, role), or None when `text` is no image's name."""
    fruit_name, _, label = text.rpartition(", ")
    role = ROLE_BY_LABEL.get(label)
    return (fruit_name, role) if fruit_name and role else None


def copyright_text(creator: str, license: str) -> str:
    """Who made the image and under which terms: "Jane Doe; CC BY 4.0
    (https://creativecommons.org/licenses/by/4.0/)"; "" when neither is known."""
    terms = ""
    if license:
        deed = license_url(license)
        terms = f"{License(license).label}{f' ({deed})' if deed else ''}"
    return "; ".join(part for part in (creator, terms) if part)


def image(row, *, absolute: Callable[[str], str]) -> dict:
    """A fruit image (its metadata and its fruit's name, never its bytes) as a BrAPI `Image`.

    BrAPI ties images to observation units, which the catalog does not have: the fruit is named
    in `additionalInfo` (`germplasmDbId`, `germplasmName`). `imageURL` is the versioned byte
    URL (cached for good; new bytes get a new URL), `description` the alt text (else what the
    image shows), `copyright` the creator and licence.
    """
    fruit_name = row.fruit.name
    info = {
        "germplasmDbId": str(row.fruit_id),
        "germplasmName": fruit_name,
        "role": row.role,
        "thumbnailURL": absolute(row.get_thumbnail_url()),
    }
    if row.license:
        info["license"] = row.license
    if row.source:
        info["source"] = row.source
    record = {
        "imageDbId": str(row.pk),
        "imageName": image_name(fruit_name, row.role),
        "imageURL": absolute(row.get_data_url()),
        **({"mimeType": row.content_type} if row.content_type else {}),
        "imageWidth": row.width,
        "imageHeight": row.height,
        "imageFileSize": row.size,
        "description": alt_text_or_role(row.alt_text, row.role, fruit_name),
        "additionalInfo": info,
    }
    copyright = copyright_text(row.creator, row.license)
    if copyright:
        record["copyright"] = copyright
    return record
