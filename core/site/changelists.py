"""Admin changelists that render their rows without the per-row work Django repeats.

A 100-row changelist at a million fruits spent ten times as long rendering as in SQL. Two
costs per row dominated, neither needed per row: the action checkbox, rendered through the form
widget templates (three template renders a row), and the change URL, one `reverse()` per linked
column — and, on a filtered, searched or later page, one `resolve()` per linked column too, as
`add_preserved_filters` looks up the URL it adds the page's filters to. `FastRowsAdminMixin`
writes the same checkbox with `format_html` and builds the change URL, filters included, once
per page.
"""

from django.contrib.admin import helpers
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.utils import quote
from django.contrib.admin.views.main import ChangeList
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

# Stands in for the object id while the change URL is reversed once (letters and digits only,
# so reversing leaves it as it is).
_ID_STAND_IN = "0idstandin0"


class FastRowsChangeList(ChangeList):
    """A changelist whose rows' change URLs come from one `reverse()` per page.

    The filters a row's link carries back to this page (`_changelist_filters`) are the same for
    every row, so they go into that URL once (`row_filters`), and `preserved_filters` (which
    Django's row rendering alone reads) is left empty for the rows to take the URL as it is.
    """

    def __init__(self, request, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        self.row_filters, self.preserved_filters = self.preserved_filters, ""

    def url_for_result(self, result):
        template = self.__dict__.get("_change_url_template")
        if template is None:
            url = reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                args=(_ID_STAND_IN,),
                current_app=self.model_admin.admin_site.name,
            )
            context = {"preserved_filters": self.row_filters, "opts": self.opts}
            path, mark, query = add_preserved_filters(context, url).partition("?")
            template = self._change_url_template = (path, mark + query)
        path, query = template
        return path.replace(_ID_STAND_IN, str(quote(getattr(result, self.pk_attname)))) + query


class FastRowsAdminMixin:
    """A `ModelAdmin` whose changelist rows render as Django's do, at a fraction of the cost.

    A custom changelist class should subclass `FastRowsChangeList`.
    """

    def get_changelist(self, request, **kwargs):
        return FastRowsChangeList

    def action_checkbox(self, obj):
        """The row's action checkbox: the markup Django's `CheckboxInput` renders."""
        label = format_html(_("Select this object for an action - {}"), str(obj))
        return format_html(
            '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
            helpers.ACTION_CHECKBOX_NAME,
            str(obj.pk),
            label,
        )
