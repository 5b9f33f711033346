"""Changelist rows rendered without Django's per-row work read exactly as Django's own."""

import re

import pytest
from django.contrib import admin
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.views.main import ChangeList
from django.test import RequestFactory
from django.urls import resolve

from catalog.admin import FruitAdmin
from catalog.models import Fruit
from core.site.changelists import FastRowsChangeList

pytestmark = pytest.mark.django_db


def test_the_action_checkbox_is_djangos_markup(fruit_factory):
    fruit = fruit_factory(name='Cox <b>"Orange"</b> & Co')
    model_admin = FruitAdmin(Fruit, admin.site)

    assert model_admin.action_checkbox(fruit) == admin.ModelAdmin.action_checkbox(
        model_admin, fruit
    )


def test_change_urls_are_djangos_for_every_row(fruit_factory, admin_user):
    fruits = [fruit_factory() for _ in range(3)]
    request = RequestFactory().get("/admin/catalog/fruit/")
    request.user = admin_user
    changelist = FruitAdmin(Fruit, admin.site).get_changelist_instance(request)

    assert isinstance(changelist, FastRowsChangeList)
    for fruit in fruits:
        assert changelist.url_for_result(fruit) == ChangeList.url_for_result(changelist, fruit)
        assert changelist.url_for_result(fruit) == f"/admin/catalog/fruit/{fruit.pk}/change/"


def test_every_registered_admin_renders_its_rows_the_fast_way():
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label in {"catalog", "publications"}:
            changelist = model_admin.get_changelist(None)
            assert issubclass(changelist, FastRowsChangeList), model


@pytest.mark.parametrize("query", ["", "?q=apfel", "?q=apfel&type__exact=apple&o=2", "?p=2"])
def test_rows_link_back_to_the_page_with_its_filters_as_django_links_them(
    fruit_factory, admin_user, admin_client, query
):
    for index in range(101):  # two pages
        fruit_factory(name=f"Apfel {index}", type="apple")
    request = RequestFactory().get(f"/admin/catalog/fruit/{query}")
    request.user = admin_user
    request.resolver_match = resolve("/admin/catalog/fruit/")  # filters are kept on this page
    model_admin = FruitAdmin(Fruit, admin.site)
    changelist = model_admin.get_changelist_instance(request)
    django_filters = {"preserved_filters": model_admin.get_preserved_filters(request)}
    links = set()
    for fruit in changelist.result_list:
        # What Django's row rendering does with each (`items_for_result`), against Django's own.
        rendered = add_preserved_filters(
            {"preserved_filters": changelist.preserved_filters, "opts": changelist.opts},
            changelist.url_for_result(fruit),
        )
        own_url = ChangeList.url_for_result(changelist, fruit)
        expected = add_preserved_filters({**django_filters, "opts": changelist.opts}, own_url)
        assert rendered == expected, query
        assert ("_changelist_filters" in rendered) == bool(query)
        links.add(expected.replace("&", "&amp;"))
    html = admin_client.get(f"/admin/catalog/fruit/{query}").content.decode()
    assert set(re.findall(r'href="(/admin/catalog/fruit/\d+/change/[^"]*)"', html)) == links
