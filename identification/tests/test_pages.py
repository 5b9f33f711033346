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
    assert "Matches Size" in text
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
        (True, "Size"),
        (False, "Relative area of over colour"),  # only one of them is described
        (True, "Area of russet (whole fruit)"),
    ]
    assert f'href="/fruits/{big.pk}/"' in response.text
    assert "very large" in text_of(response)


@pytest.mark.parametrize(
    ("fruits", "status"),
    [("", 400), ("1", 400), ("1,x", 400), ("1,2,3,4,5,6,7", 400), ("999998,999999", 404)],
)
def test_the_compare_page_wants_two_to_six_fruits_of_the_catalog(client, fruits, status):
    assert client.get("/compare/", {"fruits": fruits}).status_code == status


def test_the_compare_page_without_fruits_says_how_to_choose_them(client):
    response = client.get("/compare/")

    assert response.status_code == 200
    text = text_of(response)
    assert "Pick two to six varieties to compare" in text
    assert 'href="/"' in response.text and 'href="/identify/"' in response.text
    assert "fruits:" not in text and 'role="alert"' not in response.text


def legends(html: str) -> list[str]:
    """The labels of the questions in `html`, in page order."""
    return [legend.strip() for legend in re.findall(r"<legend>([^<]+)</legend>", html)]


def next_legends(response) -> list[str]:
    """The labels of the questions asked first (the section under `next-heading`)."""
    start = response.text.index('id="next-heading"')
    return legends(response.text[start : response.text.index("</section>", start)])


def test_questions_and_reasons_are_labelled_as_words_not_as_upov_headings(client, apples):
    response = client.get("/identify/", {"type": "apple", "fruit_size": "9", "harvest_time": "7"})
    text = text_of(response)
    shown = set(legends(response.text))
    assert {"Size", "Time of harvest", "Stalk length", "Area of russet (whole fruit)"} <= shown
    assert "Matches Size" in text
    assert "Time of:" not in text and "Fruit:" not in text


def test_questions_that_need_a_measured_ratio_are_asked_after_what_can_be_seen(client, apples):
    response = client.get("/identify/", {"type": "apple"})

    assert next_legends(response) == ["Size", "Shape", "Ribbing"]
    asked = legends(response.text)
    assert asked[-1] == "Ratio height/diameter"


def test_a_ratio_that_best_separates_the_candidates_is_still_the_last_next_question(
    client, fruit_factory
):
    # Four large apples told apart best by their ratio, less well by russet and over colour.
    for number, (ratio, russet, colour) in enumerate(
        [(1, 1, 1), (3, 1, 9), (7, 9, 1), (9, 9, 9)], start=1
    ):
        describe(
            fruit_factory(name=f"Apple {number}", catalog_number=number),
            {
                "fruit_size": [7],
                "ratio_height_diameter": [ratio],
                "russet_amount": [russet],
                "over_colour_area": [colour],
            },
        )
    query = {"type": "apple", "fruit_size": "7"}
    api = client.get("/api/v1/identify", query).json()
    assert api["next_questions"][0]["code"] == "ratio_height_diameter"  # the API's order stays

    asked = next_legends(client.get("/identify/", query))

    assert sorted(asked[:2]) == ["Area of russet (whole fruit)", "Relative area of over colour"]
    assert asked[2:] == ["Ratio height/diameter"]


def test_the_count_says_how_many_varieties_are_weighed_and_how_many_are_shown(client, apples):
    some = text_of(client.get("/identify/", {"type": "apple", "fruit_size": "9", "limit": "2"}))
    assert "3 varieties are described for what you answered; the 2 most likely are shown" in some
    every = text_of(client.get("/identify/", {"type": "apple", "fruit_size": "9"}))
    assert "3 varieties are described for what you answered, the most likely first" in every


def test_the_next_questions_come_first_and_the_answers_given_fold_under_their_summary(
    client, apples
):
    response = client.get(
        "/identify/", {"type": "apple", "fruit_size": "7,9", "russet_amount": "7"}
    )

    text = response.text
    folded = re.search(r'<details class="answered">\s*<summary>(.*?)</summary>', text, re.S)
    assert folded, "the answers are not folded"
    summary = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", folded.group(1))).strip()
    assert summary == (
        "Your answers (2): Size: large or very large · Area of russet (whole fruit): large"
    )
    assert text.index('id="next-heading"') < folded.start() < text.index('id="candidates-heading"')
    # Before the questions, a link leads down to the candidates.
    assert '<a href="#candidates-heading">' in text[: text.index('id="next-heading"')]
