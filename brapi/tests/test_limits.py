"""What the BrAPI calls refuse or bound, through HTTP: numbers no column holds, pages past any
count, strings no database stores, too many values; filters BrAPI defines that the catalog has
no data for; errors made before any view, in BrAPI's envelope; tokens as BrAPI clients send
them."""

import json
from urllib.parse import urlencode

import pytest
from django.test import Client

from brapi.tests.spec import conforms
from catalog.models import FruitImage

pytestmark = pytest.mark.django_db

BASE = "/brapi/v2"
NINES = "9" * 5000


def data(body) -> list:
    return body["result"]["data"]


def names(body) -> list[str]:
    return [record["germplasmName"] for record in data(body)]


def search(client, payload, **extra):
    body = json.dumps(payload) if not isinstance(payload, bytes | str) else payload
    return client.post(f"{BASE}/search/germplasm", body, content_type="application/json", **extra)


def assert_brapi_error(response, status: int, words: str = "") -> str:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = conforms(response, "/germplasm")  # an error's envelope, whatever the call
    message = " ".join(s["message"] for s in body["metadata"]["status"])
    assert words in message, message
    return message


# --- paging --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"page": "--5"},
        {"pageSize": "--5"},
        {"page": "+5"},
        {"page": NINES},
        {"pageSize": NINES},
        {"page": "99999999999999999999"},
        {"page": "10001", "pageSize": "1000"},  # past the bound on offsets
    ],
)
@pytest.mark.parametrize("path", ["/germplasm", "/pedigree", "/images", "/attributes"])
def test_paging_beyond_any_number_is_a_400(anon_client, orchard, params, path):
    response = anon_client.get(f"{BASE}{path}", params)
    assert_brapi_error(response, 400)


@pytest.mark.parametrize(
    "payload",
    [{"page": "--1"}, {"page": NINES}, {"page": 10**30}, {"pageSize": 10**30}, {"page": 1.5}],
)
def test_search_paging_beyond_any_number_is_a_400(anon_client, orchard, payload):
    assert_brapi_error(search(anon_client, payload), 400)


def test_the_last_page_within_the_bound_is_answered(anon_client, orchard):
    response = anon_client.get(f"{BASE}/germplasm", {"page": "9999", "pageSize": "1000"})
    body = conforms(response, "/germplasm")
    assert data(body) == [] and body["metadata"]["pagination"]["currentPage"] == 9999
    response = anon_client.get(f"{BASE}/germplasm", {"page": "-0"})
    assert response.status_code == 200


@pytest.mark.parametrize("page", ["5", "9999"])
def test_a_page_past_an_estimated_count_is_empty_without_reading_rows(
    anon_client, orchard, monkeypatch, page, django_assert_max_num_queries
):
    # A count above the exact limit is PostgreSQL's estimate: pages past it are not looked for.
    monkeypatch.setattr("core.rest.pagination.EXACT_COUNT_LIMIT", 3)
    with django_assert_max_num_queries(2) as queries:
        response = anon_client.get(f"{BASE}/germplasm", {"page": page, "pageSize": "1000"})
    body = conforms(response, "/germplasm")
    assert data(body) == []
    assert body["metadata"]["pagination"]["currentPage"] == int(page)
    assert not [q for q in queries.captured_queries if "OFFSET" in q["sql"].upper()]
    response = search(anon_client, {"page": int(page), "pageSize": 1000})
    assert data(conforms(response, "/search/germplasm", "post")) == []


# --- filters -------------------------------------------------------------------------------


def test_an_accession_number_beyond_any_catalog_number_matches_nothing(anon_client, orchard):
    response = anon_client.get(f"{BASE}/germplasm", {"accessionNumber": NINES})
    assert data(conforms(response, "/germplasm")) == []
    response = search(anon_client, {"accessionNumbers": [NINES, "3"]})
    assert names(conforms(response, "/search/germplasm", "post")) == ["Jonagold"]


def test_a_germplasm_pui_finds_its_fruit_and_any_other_matches_nothing(anon_client, orchard):
    jonagold = orchard["fruits"]["Jonagold"]
    pui = f"http://testserver/fruits/{jonagold.pk}/"
    for path, params in [
        ("/germplasm", {"germplasmPUI": pui}),
        ("/pedigree", {"germplasmPUI": pui}),
    ]:
        response = anon_client.get(f"{BASE}{path}", params)
        assert names(conforms(response, path)) == ["Jonagold"]
    response = search(anon_client, {"germplasmPUIs": [pui, "doi:10.1/x"]})
    assert names(conforms(response, "/search/germplasm", "post")) == ["Jonagold"]
    for other in [
        "https://elsewhere.example/fruits/{}/",
        "http://testserver/fruits/{}/images",
        "{}",
    ]:
        response = anon_client.get(f"{BASE}/germplasm", {"germplasmPUI": other.format(jonagold.pk)})
        assert data(conforms(response, "/germplasm")) == [], other
    # With an id as well: both must match.
    elstar = orchard["fruits"]["Elstar"]
    response = anon_client.get(
        f"{BASE}/germplasm", {"germplasmPUI": pui, "germplasmDbId": str(elstar.pk)}
    )
    assert data(conforms(response, "/germplasm")) == []


def test_parent_and_progeny_filters_follow_the_parentage(anon_client, orchard):
    fruits = orchard["fruits"]
    golden, jonagold = fruits["Golden Delicious"], fruits["Jonagold"]
    response = anon_client.get(f"{BASE}/germplasm", {"parentDbId": str(golden.pk)})
    assert names(conforms(response, "/germplasm")) == ["Jonagold", "Elstar"]
    response = anon_client.get(f"{BASE}/germplasm", {"progenyDbId": str(jonagold.pk)})
    assert names(conforms(response, "/germplasm")) == ["Golden Delicious", "Jonathan"]
    response = search(anon_client, {"progenyDbIds": [str(fruits["Red Jonagold"].pk)]})
    assert names(conforms(response, "/search/germplasm", "post")) == ["Jonagold"]
    response = anon_client.get(f"{BASE}/germplasm", {"parentDbId": "abc"})
    assert data(conforms(response, "/germplasm")) == []


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/germplasm", "studyDbId"),
        ("/germplasm", "programDbId"),
        ("/germplasm", "trialDbId"),
        ("/germplasm", "collection"),
        ("/germplasm", "externalReferenceId"),
        ("/pedigree", "familyCode"),
        ("/pedigree", "studyDbId"),
        ("/attributes", "attributeCategory"),
        ("/attributes", "traitPUI"),
        ("/attributes", "programDbId"),
        ("/attributevalues", "programDbId"),
        ("/images", "observationUnitDbId"),
        ("/images", "observationDbId"),
        ("/images", "descriptiveOntologyTerm"),
    ],
)
def test_filters_on_what_the_catalog_has_not_match_nothing(anon_client, described, path, param):
    response = anon_client.get(f"{BASE}{path}", {param: "1"})
    body = conforms(response, path)
    assert data(body) == [] and body["metadata"]["pagination"]["totalCount"] == 0
    # An empty value is no filter; an unknown parameter is ignored.
    for params in [{param: ""}, {"noSuchFilter": "1"}]:
        assert data(conforms(anon_client.get(f"{BASE}{path}", params), path)), params


@pytest.mark.parametrize(
    "field", ["studyDbIds", "programNames", "trialDbIds", "instituteCodes", "externalReferenceIds"]
)
def test_search_filters_on_what_the_catalog_has_not_match_nothing(anon_client, orchard, field):
    response = search(anon_client, {field: ["1"]})
    assert data(conforms(response, "/search/germplasm", "post")) == []


def test_attribute_trait_method_and_scale_names_filter(anon_client, described):
    size, shape = described["size"], described["shape"]
    for params, expected in [
        ({"traitName": "T size"}, [size]),
        ({"methodName": "UPOV TG/14/9, 5"}, [size]),
        ({"methodName": "Described"}, [shape]),
        ({"scaleName": "T shape (nominal)"}, [shape]),
        ({"scaleName": "T shape (ordinal)"}, []),
    ]:
        response = anon_client.get(f"{BASE}/attributes", params)
        found = [a["attributeDbId"] for a in data(conforms(response, "/attributes"))]
        assert found == [str(c.pk) for c in expected], params


def test_an_empty_search_array_is_no_filter(anon_client, orchard):
    response = search(anon_client, {"germplasmDbIds": [], "germplasmNames": [], "studyDbIds": []})
    assert len(data(conforms(response, "/search/germplasm", "post"))) == 10


# --- what a request may send ---------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b'{"germplasmNames": ["Jona\\u0000gold"]}',
        b'{"germplasmNames": ["\\ud800"]}',
        b'{"synonyms": ["\\udfff"]}',
        b'{"germplasmNames": ["x"], "note\\u0000": 1}',
    ],
)
def test_strings_no_database_stores_are_a_400(anon_client, orchard, raw):
    assert_brapi_error(search(anon_client, raw), 400, "null character or a lone surrogate")


def test_too_many_values_are_a_400(anon_client, orchard):
    many = [str(n) for n in range(1001)]
    assert_brapi_error(search(anon_client, {"germplasmNames": many}), 400, "at most 1000")
    half = many[:600]
    response = search(anon_client, {"germplasmNames": half, "synonyms": half})
    assert_brapi_error(response, 400, "at most 1000")
    response = search(anon_client, {"germplasmNames": many[:1000]})
    assert response.status_code == 200


def test_errors_made_before_the_views_are_in_brapis_envelope(anon_client, settings):
    response = anon_client.get(f"{BASE}/germplasm?germplasmName=%00")
    assert_brapi_error(response, 400, "Null characters are not allowed.")
    settings.FRUITCATALOG_MAX_BODY_BYTES = 100
    response = search(anon_client, {"germplasmNames": ["x" * 200]})
    assert_brapi_error(response, 413, "larger than the limit of 100 bytes")
    too_many = urlencode({f"p{n}": "1" for n in range(1001)})
    response = Client().get(f"{BASE}/germplasm?{too_many}", HTTP_ACCEPT="text/html")
    assert_brapi_error(response, 400, "more than 1,000 parameters")
    response = anon_client.get(f"{BASE}/germplasm", HTTP_HOST="evil.example")
    assert_brapi_error(response, 400, "Host header")


def test_a_bug_is_a_500_in_brapis_envelope(monkeypatch):
    def bug(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("brapi.views.ServerInfoView.get", bug)
    response = Client(raise_request_exception=False).get(f"{BASE}/serverinfo")
    assert_brapi_error(response, 500, "A server error occurred.")


# --- authentication ------------------------------------------------------------------------


def test_a_bad_bearer_token_is_asked_for_as_a_bearer(anon_client, orchard):
    response = anon_client.get(f"{BASE}/germplasm", HTTP_AUTHORIZATION="Bearer wrong")
    assert_brapi_error(response, 401, "Invalid token.")
    assert response["WWW-Authenticate"] == "Bearer"
    response = anon_client.get(f"{BASE}/germplasm", HTTP_AUTHORIZATION="Token wrong")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Bearer null", "Bearer undefined"])
def test_an_empty_bearer_token_reads_anonymously(anon_client, orchard, header):
    response = anon_client.get(f"{BASE}/germplasm", HTTP_AUTHORIZATION=header)
    assert len(data(conforms(response, "/germplasm"))) == 10
    response = search(anon_client, {}, HTTP_AUTHORIZATION=header)
    assert response.status_code == 200


def test_a_curators_session_searches_without_a_csrf_token(curator, orchard):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(curator)
    response = search(browser, {"germplasmNames": ["Elstar"]})
    assert names(conforms(response, "/search/germplasm", "post")) == ["Elstar"]


# --- mapping -------------------------------------------------------------------------------


def test_an_image_without_a_media_type_leaves_it_out(anon_client, orchard):
    image = orchard["image"]
    FruitImage.objects.filter(pk=image.pk).update(content_type="")
    response = anon_client.get(f"{BASE}/images/{image.pk}")
    assert "mimeType" not in conforms(response, "/images/{imageDbId}")["result"]
