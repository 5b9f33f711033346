"""The publications admin, driven through its pages with Django's test client."""

import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import get_deleted_objects
from django.contrib.messages import constants as message_levels
from django.test import RequestFactory
from django.urls import reverse

from core.testing.admin_pages import (
    form_errors,
    management_form,
    pdf_upload,
    png_upload,
    uploaded_file,
)
from core.testing.media import make_object_png, make_pdf_bytes
from publications.models import Publication, PublicationFruit, PublicationFruitImage

PUBLICATION_CHANGELIST = reverse("admin:publications_publication_changelist")
PUBLICATION_ADD = reverse("admin:publications_publication_add")
IMAGE_CHANGELIST = reverse("admin:publications_publicationfruitimage_changelist")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'


def publication_url(publication):
    """The admin change page of `publication`."""
    return reverse("admin:publications_publication_change", args=[publication.pk])


def link_url(link):
    """The admin change page of a link (its PDF and images)."""
    return reverse("admin:publications_publicationfruit_change", args=[link.pk])


def publication_form_data(
    *,
    title="Deutschlands Obstsorten",
    authors="Müller, Bißmann, Lucas",
    year="1905",
    cover=None,
    remove_cover=False,
    links=(),
    new_links=(),
):
    """POST data of the publication page.

    `links` are (link, fruit id, pdf upload or None, delete) rows of stored links; `new_links`
    are (fruit id, pdf upload or None) rows to add.
    """
    data = {"title": title, "authors": authors, "year": year, "description": ""}
    if cover is not None:
        data["cover_upload"] = cover
    if remove_cover:
        data["remove_cover"] = "on"
    data |= management_form("links", total=len(links) + len(new_links), initial=len(links))
    for index, (link, fruit_id, description, delete) in enumerate(links):
        data |= {f"links-{index}-id": link.pk, f"links-{index}-fruit": fruit_id}
        if description is not None:
            data[f"links-{index}-description_upload"] = description
        if delete:
            data[f"links-{index}-DELETE"] = "on"
    for offset, (fruit_id, description) in enumerate(new_links):
        index = len(links) + offset
        data[f"links-{index}-fruit"] = fruit_id
        if description is not None:
            data[f"links-{index}-description_upload"] = description
    return data


def link_form_data(*, images=(), uploads=(), description=None, remove_description=False):
    """POST data of a link's page: its PDF and its images (`images`: (image, delete) rows)."""
    data = management_form("images", total=len(images) + len(uploads), initial=len(images))
    if description is not None:
        data["description_upload"] = description
    if remove_description:
        data["remove_description"] = "on"
    for index, (image, delete) in enumerate(images):
        data[f"images-{index}-id"] = image.pk
        if delete:
            data[f"images-{index}-DELETE"] = "on"
    for offset, image_upload in enumerate(uploads):
        data[f"images-{len(images) + offset}-upload"] = image_upload
    return data


# --- the publication list ------------------------------------------------------------------------


def test_publication_list_shows_cover_title_authors_year_and_linked_fruit_count(
    admin_client, publication_factory, fruit_factory, link_fruit
):
    publication = publication_factory(
        title="Deutschlands Obstsorten",
        authors="Müller, Bißmann, Lucas",
        year=1905,
        cover_data=make_object_png(),
    )
    for name in ["Gravensteiner", "Conference"]:
        link_fruit(publication, fruit_factory(name=name))
    publication_factory(title="Without a cover")

    response = admin_client.get(PUBLICATION_CHANGELIST)

    assert response.status_code == 200
    # The cover's thumbnail, not the cover: a changelist never loads full-size covers.
    cover = re.escape(
        f"/api/v1/publications/{publication.pk}/cover/thumbnail"
        f"?v={publication.cover_thumbnail_sha256[:16]}"
    )
    assert re.search(rf'<img src="{cover}"[^>]*loading="lazy"', response.text)
    assert "base64" not in response.text
    assert "Müller, Bißmann, Lucas" in response.text
    rows = {p.title: p.fruit_count for p in response.context["cl"].result_list}
    assert rows == {"Deutschlands Obstsorten": 2, "Without a cover": 0}


def test_publication_list_takes_constant_queries_and_reads_no_bytes(
    admin_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    reads_no_bytes,
    django_assert_max_num_queries,
):
    fruits = [fruit_factory() for _ in range(3)]
    admin_client.get(PUBLICATION_CHANGELIST)
    publication = publication_factory(cover_data=make_object_png())
    link_fruit(publication, fruits[0], pdf=make_pdf_bytes())
    with reads_no_bytes() as few:
        admin_client.get(PUBLICATION_CHANGELIST)
    for _ in range(30):
        publication = publication_factory(cover_data=make_object_png())
        for fruit in fruits:
            link_fruit(publication, fruit, pdf=make_pdf_bytes())

    with django_assert_max_num_queries(len(few)), reads_no_bytes():
        response = admin_client.get(PUBLICATION_CHANGELIST)

    assert len(response.context["cl"].result_list) == 31


def test_publication_search_ignores_case_and_accents(admin_client, publication_factory):
    publication_factory(title="Deutschlands Obstsorten", authors="Müller, Bißmann, Lucas")
    publication_factory(title="Illustrirtes Handbuch der Obstkunde", authors="Lucas, Oberdieck")

    response = admin_client.get(PUBLICATION_CHANGELIST, {"q": "MULLER"})

    assert [p.title for p in response.context["cl"].result_list] == ["Deutschlands Obstsorten"]


# --- covers --------------------------------------------------------------------------------------


def test_add_publication_with_a_cover(admin_client):
    cover = make_object_png(size=(300, 400))

    response = admin_client.post(PUBLICATION_ADD, publication_form_data(cover=png_upload(cover)))

    assert response.status_code == 302, form_errors(response)
    publication = Publication.objects.get()
    assert bytes(publication.cover_data) == cover
    assert (publication.cover_content_type, publication.cover_size) == ("image/png", len(cover))
    assert (publication.cover_width, publication.cover_height) == (300, 400)
    assert publication.search_text == (
        "deutschlands obstsorten\x1fmuller bissmann lucas\x1fmueller bissmann lucas"
    )


@pytest.mark.parametrize(
    "data",
    [SVG, b"plain text", make_object_png()[:150], make_pdf_bytes()],
    ids=["svg", "text", "truncated-png", "pdf"],
)
def test_a_cover_that_is_not_a_complete_image_is_a_form_error(admin_client, data):
    response = admin_client.post(
        PUBLICATION_ADD, publication_form_data(cover=uploaded_file(data, "cover.png", "image/png"))
    )

    assert response.status_code == 200
    assert form_errors(response).strip()
    assert not Publication.objects.exists()


def test_a_cover_over_the_size_limit_is_a_form_error(admin_client, settings):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 100

    response = admin_client.post(PUBLICATION_ADD, publication_form_data(cover=png_upload()))

    assert "The file is larger than the limit of 100 bytes." in form_errors(response)
    assert not Publication.objects.exists()


def test_the_cover_can_be_removed(admin_client, publication_factory):
    publication = publication_factory(title="Pomona", cover_data=make_object_png())

    response = admin_client.post(
        publication_url(publication), publication_form_data(title="Pomona", remove_cover=True)
    )

    assert response.status_code == 302, form_errors(response)
    publication.refresh_from_db()
    assert not publication.has_cover
    assert publication.cover_data is None
    assert (publication.cover_width, publication.cover_height) == (0, 0)


def test_a_replaced_cover_shows_under_a_new_url_at_once(admin_client, publication_factory):
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    before = publication.get_cover_thumbnail_url()

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(
            title="Pomona", cover=png_upload(make_object_png(size=(80, 60), color=(0, 0, 200)))
        ),
    )

    assert response.status_code == 302, form_errors(response)
    publication.refresh_from_db()
    after = publication.get_cover_thumbnail_url()
    assert after != before and "?v=" in after
    assert (publication.cover_width, publication.cover_height) == (80, 60)
    for page in (PUBLICATION_CHANGELIST, publication_url(publication)):
        text = admin_client.get(page).text
        assert f'src="{after}"' in text and f'src="{before}"' not in text, page


def test_view_on_site_opens_the_publications_public_page(admin_client, publication_factory):
    publication = publication_factory(title="Pomona")
    page = admin_client.get(publication_url(publication)).text
    (link,) = re.findall(r'<a href="([^"]+)" class="viewsitelink"', page)
    response = admin_client.get(link)
    assert response.status_code == 302
    assert response["Location"].endswith(f"/publications/{publication.pk}/")
    assert admin_client.get(response["Location"]).status_code == 200


def test_saving_without_a_new_cover_keeps_it(admin_client, publication_factory):
    cover = make_object_png()
    publication = publication_factory(title="Pomona", cover_data=cover)

    response = admin_client.post(
        publication_url(publication), publication_form_data(title="Pomona Franconica")
    )

    assert response.status_code == 302, form_errors(response)
    publication.refresh_from_db()
    assert bytes(publication.cover_data) == cover
    assert publication.has_cover
    assert "franconica" in publication.search_text


# --- linked fruits and their PDFs ----------------------------------------------------------------


def test_link_fruits_with_a_pdf_through_the_inline(
    admin_client, publication_factory, fruit_factory
):
    publication = publication_factory(title="Pomona")
    boskoop, conference = fruit_factory(name="Boskoop"), fruit_factory(name="Conference")
    description = make_pdf_bytes(pages=2)

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(
            title="Pomona", new_links=[(boskoop.pk, pdf_upload(description)), (conference.pk, None)]
        ),
    )

    assert response.status_code == 302, form_errors(response)
    links = {link.fruit_id: link for link in PublicationFruit.objects.all()}
    assert bytes(links[boskoop.pk].description_data) == description
    assert links[boskoop.pk].description_size == len(description)
    assert not links[conference.pk].has_description


@pytest.mark.parametrize(
    "data",
    [make_object_png(), b"%PDF-1.4 then nothing", make_pdf_bytes()[:-40]],
    ids=["png", "header-only", "truncated"],
)
def test_a_description_that_is_not_a_complete_pdf_is_a_form_error(
    admin_client, publication_factory, fruit_factory, data
):
    publication = publication_factory(title="Pomona")
    fruit = fruit_factory(name="Boskoop")

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(title="Pomona", new_links=[(fruit.pk, pdf_upload(data))]),
    )

    assert response.status_code == 200
    assert form_errors(response).strip()
    assert not PublicationFruit.objects.exists()


def test_linking_a_fruit_twice_is_a_form_error(admin_client, publication_factory, fruit_factory):
    publication = publication_factory(title="Pomona")
    fruit = fruit_factory(name="Boskoop")

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(title="Pomona", new_links=[(fruit.pk, None), (fruit.pk, None)]),
    )

    assert response.status_code == 200
    assert "duplicate" in form_errors(response).lower()
    assert not PublicationFruit.objects.exists()


def test_change_page_shows_links_with_pdf_and_previews_without_reading_bytes(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image,
    reads_no_bytes,
):  # fmt: skip
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    link = link_fruit(publication, fruit_factory(name="Boskoop"), pdf=make_pdf_bytes())
    image = add_publication_image(link)

    with reads_no_bytes():
        response = admin_client.get(publication_url(publication))

    assert response.status_code == 200
    assert f'src="{publication.get_cover_thumbnail_url()}"' in response.text
    assert f'href="{publication.get_cover_url()}"' in response.text
    assert f'href="{link.get_description_url()}"' in response.text
    assert f'src="{image.get_thumbnail_url()}"' in response.text
    assert f'href="{link_url(link)}"' in response.text  # where its images are managed
    assert admin_client.get(link.get_description_url())["Content-Type"] == "application/pdf"


def test_deleting_a_link_unlinks_the_fruit_with_its_images(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image
):
    publication = publication_factory(title="Pomona")
    fruit = fruit_factory(name="Boskoop")
    link = link_fruit(publication, fruit, pdf=make_pdf_bytes())
    add_publication_image(link)

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(title="Pomona", links=[(link, fruit.pk, None, True)]),
    )

    assert response.status_code == 302, form_errors(response)
    assert not PublicationFruit.objects.exists()
    assert not PublicationFruitImage.objects.exists()
    assert fruit.__class__.objects.filter(pk=fruit.pk).exists()


def test_a_link_keeps_its_fruit(admin_client, publication_factory, fruit_factory, link_fruit):
    publication = publication_factory(title="Pomona")
    boskoop, conference = fruit_factory(name="Boskoop"), fruit_factory(name="Conference")
    link = link_fruit(publication, boskoop)

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(title="Pomona", links=[(link, conference.pk, None, False)]),
    )

    assert response.status_code == 200
    assert "A link keeps its fruit" in form_errors(response)
    link.refresh_from_db()
    assert link.fruit_id == boskoop.pk


def test_fruit_picker_autocompletes_by_folded_name(admin_client, fruit_factory):
    fruit = fruit_factory(name="Schöner aus Boskoop")
    fruit_factory(name="Conference")

    response = admin_client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "publications",
            "model_name": "publicationfruit",
            "field_name": "fruit",
            "term": "SCHONER",
        },
    )

    assert [r["id"] for r in response.json()["results"]] == [str(fruit.pk)]


# --- a link's page: its PDF and images -----------------------------------------------------------


def test_upload_an_image_of_a_linked_fruit_on_its_link_page(
    admin_client, publication_factory, fruit_factory, link_fruit
):
    link = link_fruit(publication_factory(title="Pomona"), fruit_factory(name="Boskoop"))
    data = make_object_png(size=(400, 300), box=(100, 50, 199, 149))

    response = admin_client.post(link_url(link), link_form_data(uploads=[png_upload(data)]))

    assert response.status_code == 302, form_errors(response)
    image = PublicationFruitImage.objects.get(link=link)
    assert bytes(image.data) == data
    assert (image.width, image.height, image.content_type) == (400, 300, "image/png")
    assert image.has_thumbnail


@pytest.mark.parametrize("data", [SVG, b"text", make_object_png()[:150]])
def test_a_bad_image_on_the_link_page_is_a_form_error(
    admin_client, publication_factory, fruit_factory, link_fruit, data
):
    link = link_fruit(publication_factory(title="Pomona"), fruit_factory(name="Boskoop"))

    response = admin_client.post(
        link_url(link), link_form_data(uploads=[uploaded_file(data, "x.png", "image/png")])
    )

    assert response.status_code == 200
    assert form_errors(response).strip()
    assert not PublicationFruitImage.objects.exists()


def test_the_link_page_replaces_and_removes_the_pdf(
    admin_client, publication_factory, fruit_factory, link_fruit
):
    link = link_fruit(
        publication_factory(title="Pomona"), fruit_factory(name="Boskoop"), pdf=make_pdf_bytes()
    )
    replacement = make_pdf_bytes(pages=3)

    replaced = admin_client.post(
        link_url(link), link_form_data(description=pdf_upload(replacement))
    )
    link.refresh_from_db()
    assert replaced.status_code == 302, form_errors(replaced)
    assert bytes(link.description_data) == replacement

    removed = admin_client.post(link_url(link), link_form_data(remove_description=True))
    link.refresh_from_db()
    assert removed.status_code == 302, form_errors(removed)
    assert not link.has_description


def test_the_link_page_reads_no_bytes(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image,
    reads_no_bytes,
):  # fmt: skip
    link = link_fruit(
        publication_factory(title="Pomona", cover_data=make_object_png()),
        fruit_factory(name="Boskoop"),
        pdf=make_pdf_bytes(),
    )
    image = add_publication_image(link)

    with reads_no_bytes():
        response = admin_client.get(link_url(link))

    assert response.status_code == 200
    assert "Pomona \N{EN DASH}" in response.text
    assert f'src="{image.get_thumbnail_url()}"' in response.text


# --- the image list and the backfill action ------------------------------------------------------


def test_image_list_shows_previews_in_constant_queries_without_bytes(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image,
    reads_no_bytes, django_assert_max_num_queries,
):  # fmt: skip
    admin_client.get(IMAGE_CHANGELIST)
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    add_publication_image(link_fruit(publication, fruit_factory(), pdf=make_pdf_bytes()))
    with reads_no_bytes() as few:
        admin_client.get(IMAGE_CHANGELIST)
    for _ in range(10):
        add_publication_image(link_fruit(publication, fruit_factory(), pdf=make_pdf_bytes()))

    with django_assert_max_num_queries(len(few)), reads_no_bytes():
        response = admin_client.get(IMAGE_CHANGELIST)

    assert response.text.count('class="catalog-thumb"') == 11
    assert "Pomona" in response.text


def test_generate_missing_thumbnails_action_reports_counts(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image
):
    link = link_fruit(publication_factory(title="Pomona"), fruit_factory())
    images = [add_publication_image(link) for _ in range(2)]
    PublicationFruitImage.objects.update(thumbnail_data=None, thumbnail_sha256="")
    (broken,) = PublicationFruitImage.objects.bulk_create(
        [PublicationFruitImage(link=link, data=b"not an image")]
    )

    response = admin_client.post(
        IMAGE_CHANGELIST,
        {"action": "generate_missing_thumbnails", "_selected_action": [images[0].pk], "index": 0},
        follow=True,
    )

    (message,) = response.context["messages"]
    assert message.level == message_levels.WARNING
    assert "Generated 2 missing thumbnail(s); 1 image(s) could not be decoded" in message.message
    assert str(broken.pk) in message.message
    assert PublicationFruitImage.objects.missing_thumbnail().get() == broken


def test_a_fruit_a_publication_links_cannot_be_deleted_in_the_admin(
    admin_client, publication_factory, fruit_factory, link_fruit, reads_no_bytes
):
    fruit = fruit_factory(name="Boskoop")
    link_fruit(publication_factory(title="Pomona"), fruit, pdf=make_pdf_bytes())
    delete_url = reverse("admin:catalog_fruit_delete", args=[fruit.pk])

    with reads_no_bytes():
        page = admin_client.get(delete_url)
    response = admin_client.post(delete_url, {"post": "yes"})

    assert "would require deleting the following protected related objects" in page.text
    assert response.status_code == 200
    assert fruit.__class__.objects.filter(pk=fruit.pk).exists()


def test_deleting_a_publication_takes_its_links_and_images_without_reading_bytes(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image,
    reads_no_bytes,
):  # fmt: skip
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    add_publication_image(link_fruit(publication, fruit_factory(), pdf=make_pdf_bytes()))
    delete_url = reverse("admin:publications_publication_delete", args=[publication.pk])

    with reads_no_bytes():
        page = admin_client.get(delete_url)
    response = admin_client.post(delete_url, {"post": "yes"})

    assert page.status_code == 200
    assert response.status_code == 302
    assert not Publication.objects.exists()
    assert not PublicationFruitImage.objects.exists()


def django_listing(obj, user):
    """Django's own listing of what deleting `obj` takes along (it reads bytes to make it)."""
    request = RequestFactory().get("/")
    request.user = user
    return get_deleted_objects([obj], request, admin.site)


@pytest.mark.parametrize("deleted", ["publication", "link"])
def test_a_delete_page_lists_what_djangos_own_listing_does_without_reading_bytes(
    admin_client, admin_user, publication_factory, fruit_factory, link_fruit,
    add_publication_image, reads_no_bytes, deleted,
):  # fmt: skip
    publication = publication_factory(title="Pomona", cover_data=make_object_png())
    link = link_fruit(publication, fruit_factory(name="Boskoop"), pdf=make_pdf_bytes())
    images = [add_publication_image(link), add_publication_image(link)]
    obj = publication if deleted == "publication" else link
    delete_url = reverse(f"admin:publications_{obj._meta.model_name}_delete", args=[obj.pk])

    with reads_no_bytes():
        page = admin_client.get(delete_url)

    listed, counted, lacking, protected = django_listing(obj, admin_user)
    assert page.context["deleted_objects"] == listed
    assert dict(page.context["model_count"]) == counted
    assert page.context["perms_lacking"] == lacking == set()
    assert page.context["protected"] == protected == []
    assert f'<a href="{link_url(link)}">{link}</a>' in page.text
    for image in images:
        url = reverse("admin:publications_publicationfruitimage_change", args=[image.pk])
        assert f'<a href="{url}">{image}</a>' in page.text


def test_the_protected_links_of_a_fruit_are_listed_as_django_lists_them(
    admin_client, admin_user, publication_factory, fruit_factory, link_fruit, reads_no_bytes
):
    fruit = fruit_factory(name="Boskoop")
    links = [link_fruit(publication_factory(), fruit, pdf=make_pdf_bytes()) for _ in range(2)]

    with reads_no_bytes():
        page = admin_client.get(reverse("admin:catalog_fruit_delete", args=[fruit.pk]))

    assert page.context["protected"] == django_listing(fruit, admin_user)[3]
    for link in links:
        assert f'<a href="{link_url(link)}">{link}</a>' in page.text


def test_an_image_delete_page_lists_the_image_and_deletes_it_without_reading_bytes(
    admin_client, publication_factory, fruit_factory, link_fruit, add_publication_image,
    reads_no_bytes,
):  # fmt: skip
    link = link_fruit(publication_factory(title="Pomona"), fruit_factory(name="Boskoop"))
    image, kept = add_publication_image(link), add_publication_image(link)
    delete_url = reverse("admin:publications_publicationfruitimage_delete", args=[image.pk])

    with reads_no_bytes():
        page = admin_client.get(delete_url)
        response = admin_client.post(delete_url, {"post": "yes"})

    url = reverse("admin:publications_publicationfruitimage_change", args=[image.pk])
    assert page.context["deleted_objects"] == [
        f'Publication fruit image: <a href="{url}">{image}</a>'
    ]
    assert response.status_code == 302
    assert list(PublicationFruitImage.objects.all()) == [kept]


def test_the_inline_edits_citations_and_search_follows_the_name_in_source(
    admin_client, publication_factory, fruit_factory, link_fruit
):
    publication = publication_factory(title="Pomona")
    fruit = fruit_factory(name="Gravensteiner")
    data = publication_form_data(title="Pomona", new_links=[(fruit.pk, None)])
    data |= {
        "links-0-pages": "112-114",
        "links-0-plate": "IV",
        "links-0-name_in_source": "Blumen-Calvill",
        "links-0-is_first_description": "on",
    }
    response = admin_client.post(publication_url(publication), data)
    assert response.status_code == 302, form_errors(response)
    link = PublicationFruit.objects.get()
    assert (link.pages, link.plate, link.name_in_source, link.is_first_description) == (
        "112-114",
        "IV",
        "Blumen-Calvill",
        True,
    )
    assert fruit.__class__.objects.search("blumen calvill").exists()
    page = admin_client.get(publication_url(publication)).text
    assert 'value="Blumen-Calvill"' in page and 'value="112-114"' in page

    response = admin_client.post(
        publication_url(publication),
        publication_form_data(title="Pomona", links=[(link, fruit.pk, None, True)]),
    )
    assert response.status_code == 302, form_errors(response)
    assert not fruit.__class__.objects.search("blumen calvill").exists()


def test_deleting_a_publication_in_the_admin_forgets_the_names_its_links_gave(
    admin_client, publication_factory, fruit_factory
):
    from publications.services import publication_link_fruit

    publication, fruit = publication_factory(), fruit_factory(name="Gravensteiner")
    publication_link_fruit(
        publication=publication, fruit=fruit, citation={"name_in_source": "Ernteapfel"}
    )
    assert fruit.__class__.objects.search("ernteapfel").exists()
    delete_url = reverse("admin:publications_publication_delete", args=[publication.pk])
    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 302
    assert not fruit.__class__.objects.search("ernteapfel").exists()
