"""Admin: characteristics with their states, and on the fruit's page the states it shows."""

from django.contrib import admin
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext, gettext_lazy

from blobs.admin import AdminAssetsMixin
from catalog.admin import FruitAdmin
from catalog.models import Fruit, FruitImage, FruitType
from identification.forms import (
    CharacteristicAdminForm,
    FruitCharacteristicForm,
    FruitCharacteristicFormSet,
)
from identification.models import Characteristic, CharacteristicState, FruitCharacteristic
from identification.services import (
    bump_versions,
    characteristic_delete,
    characteristic_save,
)

FEW = 10  # fewer than this many characteristics described: "few"


class CharacteristicStateInline(admin.TabularInline):
    """The states, in value order, each label in English and German. One that fruits' values
    use cannot be deleted."""

    model = CharacteristicState
    fields = ["value", "label", "label_de", "image"]
    # Chosen by searching the fruit images (their admin serves it without the bytes).
    autocomplete_fields = ["image"]
    extra = 1
    min_num, max_num = 2, 20

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "image":  # the chosen images' labels, without their bytes
            kwargs["queryset"] = FruitImage.objects.without_blobs().select_related("fruit")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_formset(self, request, obj=None, **kwargs):
        # The admin passes min_num and max_num on but does not enforce them by default.
        return super().get_formset(request, obj, validate_min=True, validate_max=True, **kwargs)


@admin.register(Characteristic)
class CharacteristicAdmin(AdminAssetsMixin, admin.ModelAdmin):
    """Characteristics (UPOV, ECPGR) with their states inline; the name and the labels in English
    and, beside them, German."""

    form = CharacteristicAdminForm
    inlines = [CharacteristicStateInline]
    # Few columns: the filters and the admin's sidebar leave a laptop's table little room.
    list_display = ["name", "code", "type_labels", "reliability", "position"]
    list_display_links = ["name", "code"]
    list_filter = ["scale", "reliability"]
    fields = ["code", "name", "name_de", "types", "scale", "reliability", "position", "reference"]
    search_fields = ["code", "name", "name_de", "reference"]

    @admin.display(description=gettext_lazy("Fruit types"))
    def type_labels(self, characteristic):
        return ", ".join(str(FruitType(value).label) for value in characteristic.type_list)

    def save_model(self, request, obj, form, change):
        """Through the service: a type no longer listed loses its fruits' values."""
        # States are the inline's (`states=None`): none is removed here, so none can be in use.
        characteristic_save(characteristic=obj, fruit_types=form.cleaned_data["types"], states=None)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        bump_versions(form.instance.type_list)  # states changed: what identify keeps is stale

    def delete_model(self, request, obj):
        characteristic_delete(characteristic=obj)

    def delete_queryset(self, request, queryset):
        for characteristic in queryset:
            characteristic_delete(characteristic=characteristic)


class FruitCharacteristicInline(admin.TabularInline):
    """One row per characteristic of the fruit's type: its states to tick, source and pages."""

    model = FruitCharacteristic
    form = FruitCharacteristicForm
    formset = FruitCharacteristicFormSet
    fields = ["question", "values", "source", "pages", "note"]
    can_delete = False
    verbose_name = "characteristic"
    verbose_name_plural = "characteristics of its type (tick the states the fruit shows)"
    classes = ["catalog-compact"]

    def get_extra(self, request, obj=None, **kwargs):
        return 0  # the formset makes one row per characteristic itself

    def has_add_permission(self, request, obj=None):
        return obj is not None and super().has_add_permission(request, obj)


class CharacteristicsDescribedFilter(admin.SimpleListFilter):
    title = gettext_lazy("characteristics described")
    parameter_name = "described"

    def lookups(self, request, model_admin):
        return [
            ("none", gettext("None")),
            ("few", gettext("Fewer than %(few)d") % {"few": FEW}),
            ("enough", gettext("%(few)d or more") % {"few": FEW}),
        ]

    def queryset(self, request, queryset):
        if self.value() not in {"none", "few", "enough"}:
            return queryset
        count = (
            FruitCharacteristic.objects.filter(fruit=OuterRef("pk"))
            .order_by()
            .values("fruit")
            .annotate(n=Count("pk"))
            .values("n")
        )
        queryset = queryset.annotate(described=Coalesce(Subquery(count), 0))
        if self.value() == "none":
            return queryset.filter(described=0)
        if self.value() == "few":
            return queryset.filter(described__lt=FEW)
        return queryset.filter(described__gte=FEW)


admin.site.unregister(Fruit)


@admin.register(Fruit)
class DescribedFruitAdmin(FruitAdmin):
    """The catalog's fruit admin with the characteristics each fruit shows."""

    inlines = [*FruitAdmin.inlines, FruitCharacteristicInline]
    list_filter = [*FruitAdmin.list_filter, CharacteristicsDescribedFilter]
