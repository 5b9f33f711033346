"""Changelist rows rendered without Django's per-row work read exactly as Django's own."""

import pytest
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.test import RequestFactory

from catalog.admin import FruitAdmin
from catalog.models import Fruit
from fruitcatalog.changelists import FastRowsChangeList

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
