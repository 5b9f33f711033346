"""The public pages: /identify/ (a GET form, a permalink), /compare/, and the fruit's page."""

import re

import pytest

from identification.tests.helpers import describe

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
def apples(fruit_factory):
    big = fruit_factory(name="Big Russet", catalog_number=1)
    small = fruit_factory(name="Small Smooth", catalog_number=2)
    medium = fruit_factory(name="Medium Red", catalog_number=3)
    describe(big, {"fruit_size": [9], "russet_amount": [7]})
    describe(small, {"fruit_size": [1], "russet_amount": [1], "over_colour_area": [1]})
    describe(medium, {"fruit_size": [7], "russet_amount": [1], "over_colour_area": [9]})
    return big, small, medium


def test_the_identify_page_offers_the_types_with_characteristics(client):
    response = client.get("/identify/")
    assert response.status_code == 200
    assert 'href="?type=apple"' in response.text and 'href="?type=pear"' in response.text
    assert 'href="?type=cherry"' not in response.text


def test_without_answers_the_first_questions_come_in_position_order(client, apples):
    response = client.get("/identify/", {"type": "apple"})
    assert response.status_code == 200
    form = response.text
    assert '<form class="identify" method="get" action="/identify/">' in form
    assert '<input type="hidden" name="type" value="apple">' in form
    assert "Start with these" in form
    assert form.index('name="fruit_size"') < form.index('name="russet_amount"')
    assert 'name="fruit_size" value="" checked' in form  # "can't tell", chosen until answered
    assert "Most likely" not in form


def test_answers_in_the_query_show_ranked_candidates_and_the_next_questions(
    client, apples, django_assert_max_num_queries
):
    big, small, medium = apples
    query = {"type": "apple", "fruit_size": "9", "russet_amount": "7", "shape": ""}
    client.get("/identify/", query)
    with django_assert_max_num_queries(4):
        response = client.get("/identify/", query)
    text = text_of(response)
    assert text.index("Big Russet") < text.index("Medium Red") < text.index("Small Smooth")
    assert "Matches Fruit: size" in text
    assert f"/compare/?fruits={big.pk},{medium.pk},{small.pk}" in response.text
    # The answers stay chosen; a next question is asked.
    assert 'name="fruit_size" value="9" checked' in response.text
    assert "Next best questions" in text and 'name="over_colour_area"' in response.text
    assert "/api/v1/identify?type=apple&amp;fruit_size=9" in response.text


def test_an_answer_of_several_states_stays_one_choice(client, apples):
    response = client.get("/identify/", {"type": "apple", "fruit_size": "7,9"})
    assert 'name="fruit_size" value="7,9" checked' in response.text
    assert "large or very large" in text_of(response)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"type": "banana"}, "type: 'banana' is not a fruit type."),
        ({"type": "apple", "fruit_size": "4"}, "fruit_size: '4' is not one of its states"),
        ({"type": "apple", "pear_shape": "1"}, "No characteristic 'pear_shape' applies to apple"),
        ({"type": "apple", "limit": "99"}, "limit: An integer from 1 to 50."),
    ],
)
def test_a_bad_query_is_a_400_page_that_says_what_is_wrong(client, query, message):
    response = client.get("/identify/", query)
    assert response.status_code == 400
    assert message in text_of(response).replace("&#x27;", "'")


def test_the_compare_page_sets_fruits_side_by_side_and_marks_where_they_differ(
    client, apples, django_assert_max_num_queries
):
    big, small, _ = apples
    client.get("/compare/", {"fruits": f"{big.pk},{small.pk}"})
    with django_assert_max_num_queries(3):
        response = client.get("/compare/", {"fruits": f"{big.pk},{small.pk}"})
    assert response.status_code == 200
    rows = re.findall(
        r"<tr( class=\"compare__differs\")?>\s*<th scope=\"row\">([^<]+)", response.text
    )
    assert [(bool(marked), name.strip()) for marked, name in rows] == [
        (True, "Fruit: size"),
        (False, "Fruit: relative area of over colour"),  # only one of them is described
        (True, "Fruit: area of russet (whole fruit)"),
    ]
    assert f'href="/fruits/{big.pk}/"' in response.text
    assert "very large" in text_of(response)


@pytest.mark.parametrize(
    ("fruits", "status"),
    [("", 400), ("1", 400), ("1,x", 400), ("1,2,3,4,5,6,7", 400), ("999998,999999", 404)],
)
def test_the_compare_page_wants_two_to_six_fruits_of_the_catalog(client, fruits, status):
    assert client.get("/compare/", {"fruits": fruits}).status_code == status
