"""The BrAPI calls through HTTP: every answer checked against the specification's schemas."""

import pytest
from django.db import OperationalError

from brapi.tests.spec import conforms
from catalog.models import Fruit, FruitImage

pytestmark = pytest.mark.django_db

BASE = "/brapi/v2"


def get(client, path, spec_path=None, **params):
    response = client.get(f"{BASE}{path}", params)
    return response, conforms(response, spec_path or path)


def data(body) -> list:
    return body["result"]["data"]


def ids(records, key="germplasmDbId") -> list[str]:
    return [record[key] for record in records]


# --- core ----------------------------------------------------------------------------------


def test_serverinfo_lists_every_call_served_with_its_method(anon_client):
    response, body = get(anon_client, "/serverinfo")
    assert response.status_code == 200
    calls = {(c["service"], tuple(c["methods"])) for c in body["result"]["calls"]}
    assert ("search/germplasm", ("POST",)) in calls
    assert ("germplasm/{germplasmDbId}/mcpd", ("GET",)) in calls
    assert len(calls) == 12
    assert {v for c in body["result"]["calls"] for v in c["versions"]} == {"2.1"}


def test_common_crop_names_are_the_types_that_have_fruits(anon_client, orchard):
    _, body = get(anon_client, "/commoncropnames")
    assert data(body) == ["apple", "berry", "cherry", "pear"]
    assert body["metadata"]["pagination"] == {
        "currentPage": 0,
        "pageSize": 1000,
        "totalCount": 4,
        "totalPages": 1,
    }
    assert body["metadata"]["status"] == [] and body["metadata"]["datafiles"] == []


# --- germplasm -----------------------------------------------------------------------------


def test_a_fruit_is_a_germplasm(anon_client, orchard):
    jonagold = orchard["fruits"]["Jonagold"]
    response, body = get(anon_client, f"/germplasm/{jonagold.pk}", "/germplasm/{germplasmDbId}")
    assert response.status_code == 200
    page = f"http://testserver/fruits/{jonagold.pk}/"
    assert body["result"] == {
        "germplasmDbId": str(jonagold.pk),
        "germplasmPUI": page,
        "germplasmName": "Jonagold",
        "defaultDisplayName": "Jonagold",
        "accessionNumber": "3",
        "commonCropName": "apple",
        "genus": "Malus",
        "species": "domestica",
        "documentationURL": page,
        # The misapplied name names another variety: no synonym of this one.
        "synonyms": [
            {"synonym": "Jonagold Apfel", "type": "translation"},
            {"synonym": "Jonnie", "type": "trade_name"},
        ],
        "pedigree": "Golden Delicious/Jonathan",
    }
    assert "pagination" not in body["metadata"]


def test_taxa_come_from_the_types_table_and_unknown_ones_are_left_out(anon_client, orchard):
    _, body = get(anon_client, "/germplasm", commonCropName="cherry")
    (cherry,) = data(body)
    assert cherry["genus"] == "Prunus" and "species" not in cherry
    _, body = get(anon_client, "/germplasm", commonCropName="berry")
    (berry,) = data(body)
    assert "genus" not in berry and "species" not in berry
    assert "pedigree" not in berry


def test_pedigree_strings_of_every_kind_of_parentage(anon_client, orchard):
    _, body = get(anon_client, "/germplasm")
    pedigrees = {g["germplasmName"]: g.get("pedigree") for g in data(body)}
    assert pedigrees["Red Jonagold"] == "sport of Jonagold"
    assert pedigrees["Cox's Orange Pippin"] == "Ribston Pippin/UNKNOWN"
    assert pedigrees["Elstar"] == "cross involving Golden Delicious and Ingrid Marie"
    assert pedigrees["Golden Delicious"] is None


def test_the_list_is_in_catalog_order_without_deleted_fruits(anon_client, orchard):
    _, body = get(anon_client, "/germplasm")
    assert [g["accessionNumber"] for g in data(body)] == [str(n) for n in range(1, 11)]
    assert "Gone" not in [g["germplasmName"] for g in data(body)]


@pytest.mark.parametrize(
    ("params", "names"),
    [
        ({"germplasmName": "Jonagold"}, ["Jonagold"]),
        ({"germplasmName": "jonagold"}, []),  # a name is matched exactly
        ({"accessionNumber": "6"}, ["Cox's Orange Pippin"]),
        ({"accessionNumber": "six"}, []),
        ({"commonCropName": "Pear"}, ["Williams"]),
        ({"commonCropName": "banana"}, []),
        ({"genus": "prunus"}, ["Sauerkirsche"]),
        ({"genus": "Malus", "species": "domestica", "accessionNumber": "3"}, ["Jonagold"]),
        ({"species": "communis"}, ["Williams"]),
        ({"binomialName": "Pyrus communis"}, ["Williams"]),
        ({"synonym": "cox"}, ["Cox's Orange Pippin"]),
        ({"synonym": "JONNIE"}, ["Jonagold"]),
        ({"synonym": "Jonathan Gold"}, []),  # a misapplied name is no synonym
        ({"synonym": "Elstar"}, []),  # an own name is no synonym
        ({"germplasmDbId": "abc"}, []),
        ({"unknownFilter": "x", "germplasmName": "Elstar"}, ["Elstar"]),  # ignored
    ],
)
def test_germplasm_filters(anon_client, orchard, params, names):
    response, body = get(anon_client, "/germplasm", **params)
    assert response.status_code == 200
    assert [g["germplasmName"] for g in data(body)] == names
    assert body["metadata"]["pagination"]["totalCount"] == len(names)


def test_filter_by_id(anon_client, orchard):
    elstar = orchard["fruits"]["Elstar"]
    _, body = get(anon_client, "/germplasm", germplasmDbId=str(elstar.pk))
    assert ids(data(body)) == [str(elstar.pk)]


def test_pages_count_from_zero(anon_client, orchard):
    _, body = get(anon_client, "/germplasm", page=1, pageSize=4)
    assert [g["accessionNumber"] for g in data(body)] == ["5", "6", "7", "8"]
    assert body["metadata"]["pagination"] == {
        "currentPage": 1,
        "pageSize": 4,
        "totalCount": 10,
        "totalPages": 3,
    }
    _, body = get(anon_client, "/germplasm", page=3, pageSize=4)
    assert data(body) == [] and body["metadata"]["pagination"]["currentPage"] == 3
    # Far past the last page, within the bound on offsets: empty.
    _, body = get(anon_client, "/germplasm", page=9_999, pageSize=1000)
    assert data(body) == [] and body["metadata"]["pagination"]["totalCount"] == 10


def test_a_filtered_list_pages_within_what_the_filters_find(anon_client, orchard):
    _, body = get(anon_client, "/germplasm", commonCropName="apple", page=1, pageSize=3)
    assert [g["accessionNumber"] for g in data(body)] == ["4", "5", "6"]
    assert body["metadata"]["pagination"]["totalCount"] == 7
    nodes_found = data(get(anon_client, "/pedigree", commonCropName="apple", page=2, pageSize=3)[1])
    assert [node["germplasmName"] for node in nodes_found] == ["Elstar"]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"page": "-1"}, "page must be a whole number from 0"),
        ({"page": "first"}, "page must be a whole number from 0"),
        ({"pageSize": "abc"}, "pageSize must be a whole number from 1"),
        ({"pageSize": "0"}, "pageSize must be a whole number from 1"),
        ({"pageSize": "1001"}, "pageSize must be at most 1000"),
    ],
)
def test_bad_paging_is_a_400_in_brapi_shape(anon_client, orchard, params, words):
    response, body = get(anon_client, "/germplasm", **params)
    assert response.status_code == 400
    assert body["metadata"]["status"] == [{"message": f"{words}.", "messageType": "ERROR"}]


def test_search_answers_at_once_with_the_lists_filters(anon_client, orchard):
    response = anon_client.post(
        f"{BASE}/search/germplasm",
        {"germplasmNames": ["Jonagold", "Elstar"], "commonCropNames": ["apple"], "pageSize": 1},
        format="json",
    )
    assert response.status_code == 200
    body = conforms(response, "/search/germplasm", "post")
    assert [g["germplasmName"] for g in data(body)] == ["Jonagold"]
    assert body["metadata"]["pagination"]["totalCount"] == 2


@pytest.mark.parametrize(
    "payload",
    [["Jonagold"], {"germplasmNames": "Jonagold"}, {"accessionNumbers": [3]}, {"page": -1}],
)
def test_bad_searches_are_a_400(anon_client, orchard, payload):
    response = anon_client.post(f"{BASE}/search/germplasm", payload, format="json")
    assert response.status_code == 400
    conforms(response, "/search/germplasm", "post")


def test_search_needs_no_body(anon_client, orchard):
    response = anon_client.post(f"{BASE}/search/germplasm")
    assert response.status_code == 200
    assert len(data(conforms(response, "/search/germplasm", "post"))) == 10


def test_mcpd_holds_what_the_catalog_knows(anon_client, orchard):
    jonagold = orchard["fruits"]["Jonagold"]
    _, body = get(anon_client, f"/germplasm/{jonagold.pk}/mcpd", "/germplasm/{germplasmDbId}/mcpd")
    assert body["result"] == {
        "germplasmDbId": str(jonagold.pk),
        "germplasmPUI": f"http://testserver/fruits/{jonagold.pk}/",
        "accessionNumber": "3",
        "accessionNames": ["Jonagold", "Jonagold Apfel", "Jonnie"],
        "commonCropName": "apple",
        "genus": "Malus",
        "species": "domestica",
        "ancestralData": "Golden Delicious/Jonathan",
    }


@pytest.mark.parametrize("path", ["/germplasm/{}", "/germplasm/{}/mcpd"])
@pytest.mark.parametrize("pk", ["999999", "abc", "99999999999999999999999"])
def test_unknown_germplasm_is_a_brapi_404(anon_client, orchard, path, pk):
    response = anon_client.get(BASE + path.format(pk))
    assert response.status_code == 404
    body = conforms(response, "/germplasm/{germplasmDbId}")
    assert "No germplasm has the id" in body["metadata"]["status"][0]["message"]


def test_a_deleted_fruit_is_unknown(anon_client, orchard):
    gone = orchard["kept_image_id"]
    assert not Fruit.objects.filter(name="Gone").exists()
    response = anon_client.get(f"{BASE}/images/{gone}")
    assert response.status_code == 404


def test_unknown_paths_are_brapi_404s(anon_client):
    for path in [
        "/brapi/v2/calls",
        "/brapi/v2/germplasm/1/pedigree",
        "/brapi/v1/germplasm",
        "/brapi",
    ]:
        response = anon_client.get(path)
        assert response.status_code == 404, path
        assert response.json()["metadata"]["status"][0]["messageType"] == "ERROR"


def test_a_page_of_1000_germplasm_is_a_fixed_number_of_queries(
    anon_client, orchard, django_assert_max_num_queries, reads_no_bytes
):
    golden = orchard["fruits"]["Golden Delicious"]
    fruits = Fruit.objects.bulk_create(
        Fruit(name=f"Seedling {n}", type="apple", catalog_number=100 + n) for n in range(1000)
    )
    from catalog.models import FruitName, FruitRelation

    FruitName.objects.bulk_create(
        FruitName(fruit=f, name=f"S{f.pk}", name_key=f"s{f.pk}") for f in fruits
    )
    FruitRelation.objects.bulk_create(
        FruitRelation(fruit=f, kind="mother", other=golden, name=golden.name, name_key="x")
        for f in fruits
    )
    # The count, and the page's rows (their ids a subquery) with their names and parentage.
    with reads_no_bytes(), django_assert_max_num_queries(2):
        response = anon_client.get(f"{BASE}/germplasm", {"pageSize": 1000, "page": 0})
    body = conforms(response, "/germplasm")
    assert len(data(body)) == 1000
    assert data(body)[-1]["pedigree"] == "Golden Delicious/UNKNOWN"
    with reads_no_bytes(), django_assert_max_num_queries(2):
        response = anon_client.get(f"{BASE}/pedigree", {"pageSize": 1000, "page": 1})
    body = conforms(response, "/pedigree")
    assert len(data(body)) == 10
    assert data(body)[-1]["parents"][0]["germplasmName"] == "Golden Delicious"
    # The attributes' states are one query more.
    for path, queries in [
        ("/images", 3),
        ("/attributevalues", 3),
        ("/attributes", 4),
    ]:
        with reads_no_bytes(), django_assert_max_num_queries(queries):
            response = anon_client.get(f"{BASE}{path}", {"pageSize": 1000})
        conforms(response, path)


# --- pedigree ------------------------------------------------------------------------------


def nodes(client, **params) -> dict:
    _, body = get(client, "/pedigree", **params)
    return {node["germplasmName"]: node for node in data(body)}


def test_pedigree_nodes_name_parents_and_progeny_with_their_roles(anon_client, orchard):
    fruits = orchard["fruits"]
    found = nodes(anon_client)
    pk = {name: str(fruit.pk) for name, fruit in fruits.items()}
    assert found["Jonagold"]["parents"] == [
        {
            "germplasmDbId": pk["Golden Delicious"],
            "germplasmName": "Golden Delicious",
            "parentType": "FEMALE",
        },
        {"germplasmDbId": pk["Jonathan"], "germplasmName": "Jonathan", "parentType": "MALE"},
    ]
    assert found["Jonagold"]["progeny"] == [
        {
            "germplasmDbId": pk["Red Jonagold"],
            "germplasmName": "Red Jonagold",
            "parentType": "CLONAL",
        }
    ]
    assert found["Red Jonagold"]["parents"][0]["parentType"] == "CLONAL"
    # A seedling's named origin is its seed parent.
    assert found["Cox's Orange Pippin"]["parents"][0]["parentType"] == "FEMALE"
    assert found["Ribston Pippin"]["progeny"][0]["parentType"] == "FEMALE"
    # A parent whose role is not known has no parentType to be given: it is named apart.
    assert found["Elstar"]["parents"] == []
    assert found["Elstar"]["additionalInfo"] == {"parentsOfUnknownRole": pk["Golden Delicious"]}
    assert found["Elstar"]["pedigreeString"] == "cross involving Golden Delicious and Ingrid Marie"
    golden = found["Golden Delicious"]
    assert golden["progeny"] == [
        {"germplasmDbId": pk["Jonagold"], "germplasmName": "Jonagold", "parentType": "FEMALE"}
    ]
    assert golden["additionalInfo"] == {"progenyOfUnknownRole": pk["Elstar"]}


def test_pedigree_filters_and_flags(anon_client, orchard):
    found = nodes(anon_client, germplasmName="Jonagold", includeProgeny="false")
    assert list(found) == ["Jonagold"]
    assert "progeny" not in found["Jonagold"] and len(found["Jonagold"]["parents"]) == 2
    found = nodes(
        anon_client, germplasmDbId=str(orchard["fruits"]["Jonagold"].pk), includeParents="False"
    )
    assert "parents" not in found["Jonagold"] and len(found["Jonagold"]["progeny"]) == 1
    response = anon_client.get(f"{BASE}/pedigree", {"includeParents": "maybe"})
    assert response.status_code == 400
    assert "includeParents must be true or false." in str(conforms(response, "/pedigree"))


# --- attributes ----------------------------------------------------------------------------


def test_a_characteristic_is_an_attribute(anon_client, described):
    size = described["size"]
    _, body = get(anon_client, f"/attributes/{size.pk}", "/attributes/{attributeDbId}")
    pk = str(size.pk)
    assert body["result"] == {
        "attributeDbId": pk,
        "attributeName": "T size",
        "commonCropName": "apple",
        "trait": {"traitDbId": pk, "traitName": "T size", "mainAbbreviation": "t_size"},
        "method": {
            "methodDbId": pk,
            "methodName": "UPOV TG/14/9, 5",
            "description": "Observed and coded as UPOV TG/14/9, 5 describes the characteristic.",
            "bibliographicalReference": "UPOV TG/14/9, 5",
        },
        "scale": {
            "scaleDbId": pk,
            "scaleName": "T size (ordinal)",
            "dataType": "Ordinal",
            "validValues": {
                "categories": [
                    {"value": "1", "label": "very small"},
                    {"value": "3", "label": "small"},
                    {"value": "5", "label": "medium"},
                    {"value": "7", "label": "large"},
                    {"value": "9", "label": "very large"},
                ],
                "min": 1,
                "max": 9,
            },
        },
        "additionalInfo": {"code": "t_size", "fruitTypes": "apple", "reliability": "medium"},
    }


def test_attributes_list_and_filters(anon_client, described):
    shape, size = described["shape"], described["size"]
    _, body = get(anon_client, "/attributes", attributeDbId=str(shape.pk))
    (found,) = data(body)
    assert found["scale"]["dataType"] == "Nominal" and "min" not in found["scale"]["validValues"]
    assert "commonCropName" not in found and found["additionalInfo"]["fruitTypes"] == "apple,pear"
    _, body = get(anon_client, "/attributes", commonCropName="pear")
    assert str(shape.pk) in ids(data(body), "attributeDbId")
    assert str(size.pk) not in ids(data(body), "attributeDbId")
    williams = described["fruits"]["Williams"]
    _, body = get(anon_client, "/attributes", germplasmDbId=str(williams.pk))
    assert ids(data(body), "attributeDbId") == [str(shape.pk)]
    response = anon_client.get(f"{BASE}/attributes/12345678")
    assert response.status_code == 404
    conforms(response, "/attributes/{attributeDbId}")


def test_attribute_values_are_the_states_a_fruit_shows_with_their_source(anon_client, described):
    jonagold, size = described["fruits"]["Jonagold"], described["size"]
    _, body = get(anon_client, "/attributevalues", germplasmDbId=str(jonagold.pk))
    values = data(body)
    assert [v["value"] for v in values] == ["5", "7"]
    first = values[0]
    assert first["attributeDbId"] == str(size.pk) and first["attributeName"] == "T size"
    assert first["germplasmDbId"] == str(jonagold.pk) and first["germplasmName"] == "Jonagold"
    publication = described["publication"]
    assert first["additionalInfo"] == {
        "label": "medium",
        "note": "in good years",
        "source": "Lucas (1905): Deutschlands Obstsorten, p. 112",
        "sourceURL": f"http://testserver/publications/{publication.pk}/",
    }
    _, body = get(anon_client, "/attributevalues", attributeDbId=str(described["shape"].pk))
    assert [(v["germplasmName"], v["value"], v["additionalInfo"]) for v in data(body)] == [
        ("Williams", "2", {"label": "conical"})
    ]


# --- images --------------------------------------------------------------------------------


def test_a_fruit_image_is_a_brapi_image(anon_client, orchard):
    image, jonagold = orchard["image"], orchard["fruits"]["Jonagold"]
    _, body = get(anon_client, f"/images/{image.pk}", "/images/{imageDbId}")
    image = FruitImage.objects.without_blobs().get(pk=image.pk)
    assert body["result"] == {
        "imageDbId": str(image.pk),
        "imageName": "Jonagold, fruit",
        "imageURL": f"http://testserver{image.get_data_url()}",
        "mimeType": "image/png",
        "imageWidth": 120,
        "imageHeight": 90,
        "imageFileSize": image.size,
        "description": "A red-flushed Jonagold on the tree",
        "copyright": "Jane Doe; CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
        "additionalInfo": {
            "germplasmDbId": str(jonagold.pk),
            "germplasmName": "Jonagold",
            "role": "fruit",
            "thumbnailURL": f"http://testserver{image.get_thumbnail_url()}",
            "license": "CC-BY-4.0",
            "source": "Own photo",
        },
    }
    # The versioned byte URL serves the bytes.
    assert anon_client.get(body["result"]["imageURL"]).status_code == 200


def test_images_list_filters_and_never_shows_kept_images(anon_client, orchard):
    _, body = get(anon_client, "/images")
    listed = ids(data(body), "imageDbId")
    assert listed == [str(orchard["image"].pk), str(orchard["plain_image"].pk)]
    assert str(orchard["kept_image_id"]) not in listed
    plain = data(body)[1]
    assert plain["description"] == "Williams, blossom" and "copyright" not in plain
    _, body = get(anon_client, "/images", imageName="Williams, blossom")
    assert ids(data(body), "imageDbId") == [str(orchard["plain_image"].pk)]
    _, body = get(anon_client, "/images", imageName="Williams")
    assert data(body) == []
    _, body = get(anon_client, "/images", commonCropName="pear")
    assert ids(data(body), "imageDbId") == [str(orchard["plain_image"].pk)]
    response = anon_client.get(f"{BASE}/images/{orchard['kept_image_id']}")
    assert response.status_code == 404
    conforms(response, "/images/{imageDbId}")


# --- authentication and faults -------------------------------------------------------------


def test_a_bearer_token_authenticates_and_a_bad_one_is_a_401(anon_client, curator_client, orchard):
    token = curator_client._credentials["HTTP_AUTHORIZATION"].split()[1]
    response = anon_client.get(f"{BASE}/germplasm", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    response = anon_client.get(f"{BASE}/germplasm", HTTP_AUTHORIZATION="Bearer wrong")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert conforms(response, "/germplasm")["metadata"]["status"][0]["message"] == "Invalid token."


def test_an_unreachable_database_is_a_503_in_brapi_shape(anon_client, monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(Fruit.objects, "types_in_use", down)
    response = anon_client.get(f"{BASE}/commoncropnames")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    body = conforms(response, "/commoncropnames")
    assert body["metadata"]["status"][0]["message"].startswith("The database is unavailable")


def test_the_brapi_calls_are_not_in_the_apis_schema(anon_client):
    schema = anon_client.get("/api/v1/schema", HTTP_ACCEPT="application/json").json()
    assert not [path for path in schema["paths"] if "brapi" in path]


def test_brapi_reads_and_searches_answer_any_origin(anon_client, orchard):
    origin = {"HTTP_ORIGIN": "https://pedigree-viewer.example"}
    response = anon_client.get(f"{BASE}/germplasm", **origin)
    assert response["Access-Control-Allow-Origin"] == "https://pedigree-viewer.example"
    preflight = anon_client.options(
        f"{BASE}/search/germplasm",
        **origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type, authorization",
    )
    assert preflight["Access-Control-Allow-Origin"] == "https://pedigree-viewer.example"
    response = anon_client.post(f"{BASE}/search/germplasm", {}, format="json", **origin)
    assert response["Access-Control-Allow-Origin"] == "https://pedigree-viewer.example"
