"""What a BrAPI request may ask: paging within bounds, filters as lists of strings (a search's
arrays capped), and the filters BrAPI defines for data the catalog does not have.

A request that asks for a page no database could skip to, or too many values at once, is a 400;
a filter on data the catalog has not (studies, trials, programs, observation units...) matches
nothing, rather than being ignored and answering the whole catalog.
"""

import re

from rest_framework import exceptions

from core.db.ids import parse_id

PAGE_SIZE_DEFAULT = 1000  # BrAPI's default
PAGE_SIZE_MAX = 1000
# The furthest row a page may start at (`page` x `pageSize`): every page of a catalog of up to
# ten million fruits, while `currentPage` stays a small whole number and no OFFSET walks further.
OFFSET_MAX = 10_000_000
# A number as a query parameter or a search's text: an optional minus and at most 18 digits (the
# project's id rule, `core.db.ids`), so no text becomes a number a column cannot hold.
WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")
# A search's values, per array and in all: as many as a GET may send (Django's
# DATA_UPLOAD_MAX_NUMBER_FIELDS), well within a database's parameters per query.
SEARCH_VALUES_MAX = 1000
BOOLEANS = {"true": True, "false": False}

# The filters BrAPI v2.1 defines for each call that name data the catalog has not: any value
# matches nothing. (Parameters BrAPI does not define are ignored, as BrAPI servers do.)
EXTERNAL_REFERENCES = ("externalReferenceID", "externalReferenceId", "externalReferenceSource")
GERMPLASM_NO_DATA = ("collection", "programDbId", "trialDbId", "studyDbId", *EXTERNAL_REFERENCES)
PEDIGREE_NO_DATA = (*GERMPLASM_NO_DATA, "familyCode")
ATTRIBUTE_NO_DATA = (
    "attributeCategory",
    "attributePUI",
    "methodPUI",
    "scalePUI",
    "traitPUI",
    "programDbId",
    *EXTERNAL_REFERENCES,
)
ATTRIBUTE_VALUE_NO_DATA = ("programDbId", *EXTERNAL_REFERENCES)
IMAGE_NO_DATA = (
    "observationUnitDbId",
    "observationDbId",
    "descriptiveOntologyTerm",
    "programDbId",
    *EXTERNAL_REFERENCES,
)
# A germplasm search's arrays: each the germplasm list's filter of that name, or data the
# catalog has not.
SEARCH_FILTERS = {
    "germplasmDbIds": "germplasmDbId",
    "germplasmNames": "germplasmName",
    "germplasmPUIs": "germplasmPUI",
    "accessionNumbers": "accessionNumber",
    "commonCropNames": "commonCropName",
    "synonyms": "synonym",
    "genus": "genus",
    "species": "species",
    "binomialNames": "binomialName",
    "parentDbIds": "parentDbId",
    "progenyDbIds": "progenyDbId",
}
SEARCH_NO_DATA = (
    "collections",
    "externalReferenceIDs",
    "externalReferenceIds",
    "externalReferenceSources",
    "familyCodes",
    "instituteCodes",
    "programDbIds",
    "programNames",
    "studyDbIds",
    "studyNames",
    "trialDbIds",
    "trialNames",
)
NO_DATA = "noData"  # the filter that stands for any of them in a search's filters


class BadParameter(exceptions.APIException):
    """A paging value, flag or filter BrAPI defines, given a value it cannot take."""

    status_code = 400
    default_code = "bad_parameter"


def page_params(source) -> tuple[int, int]:
    """`page` (from 0) and `pageSize` (1 to `PAGE_SIZE_MAX`) from a query or a search body, the
    page starting at most `OFFSET_MAX` rows in."""
    page = whole_number(source, "page", default=0, least=0)
    size = whole_number(source, "pageSize", default=PAGE_SIZE_DEFAULT, least=1)
    if size > PAGE_SIZE_MAX:
        raise BadParameter(f"pageSize must be at most {PAGE_SIZE_MAX}.")
    if page * size > OFFSET_MAX:
        raise BadParameter(
            f"page x pageSize must be at most {OFFSET_MAX:,}: page must be at most "
            f"{OFFSET_MAX // size:,} with a pageSize of {size}."
        )
    return page, size


def whole_number(source, name: str, *, default: int, least: int) -> int:
    """A whole number from a query (text) or a search body (a JSON number or text)."""
    value = source.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        value = None
    elif isinstance(value, str):
        value = int(value) if WHOLE_NUMBER.fullmatch(value) else None
    if not isinstance(value, int) or value < least:
        raise BadParameter(f"{name} must be a whole number from {least}.")
    return value


def flag(request, name: str, *, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value.lower() not in BOOLEANS:
        raise BadParameter(f"{name} must be true or false.")
    return BOOLEANS[value.lower()]


def query_filters(request, names, no_data=()) -> dict[str, list[str]]:
    """The filters a GET gives (a parameter may be repeated); empty values are none. A filter
    on data the catalog has not (`no_data`) is given as `NO_DATA`."""
    found = {}
    for name in (*names, *no_data):
        values = [value for value in request.query_params.getlist(name) if value != ""]
        if values:
            found[NO_DATA if name in no_data else name] = values
    return found


def search_filters(body) -> dict[str, list[str]]:
    """A germplasm search's filters: its arrays of strings (`SEARCH_FILTERS`; an empty one is
    no filter), at most `SEARCH_VALUES_MAX` values each and in all."""
    if not isinstance(body, dict):
        raise BadParameter("The search request must be a JSON object.")
    filters, total = {}, 0
    for field in (*SEARCH_FILTERS, *SEARCH_NO_DATA):
        values = body.get(field)
        if values is None:
            continue
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise BadParameter(f"{field} must be an array of strings.")
        if len(values) > SEARCH_VALUES_MAX:
            raise BadParameter(f"{field} must hold at most {SEARCH_VALUES_MAX} values.")
        total += len(values)
        if values:
            filters[SEARCH_FILTERS.get(field, NO_DATA)] = values
    if total > SEARCH_VALUES_MAX:
        raise BadParameter(f"A search may hold at most {SEARCH_VALUES_MAX} values in all.")
    return filters


def with_puis(filters: dict[str, list[str]], page_url) -> dict[str, list[str]]:
    """The filters with `germplasmPUI` turned into ids: a PUI is a fruit's public page
    (`page_url(id)`), and any other text matches nothing. With `germplasmDbId` too, a fruit
    must match both."""
    if "germplasmPUI" not in filters:
        return filters
    filters = dict(filters)
    found = set(filter(None, (pui_id(pui, page_url) for pui in filters.pop("germplasmPUI"))))
    if "germplasmDbId" in filters:
        found &= {parse_id(v) for v in filters["germplasmDbId"]}
    filters["germplasmDbId"] = [str(pk) for pk in sorted(found)]
    return filters


def pui_id(pui: str, page_url) -> int | None:
    """The fruit id of a PUI this server gives (its public page's URL), else None."""
    digits = re.findall(r"[0-9]{1,18}", pui)
    pk = parse_id(digits[-1]) if digits else None
    return pk if pk is not None and page_url(pk) == pui else None
