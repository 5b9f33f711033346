"""Admin form pieces for uploads: file fields checked by the same rules as the API."""

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from blobs.rights import DETAIL_FIELDS, ImageRole, validate_attribution
from blobs.uploads import apply_image_upload

IMAGE_ACCEPT = "image/jpeg,image/png,image/gif,image/webp"


def read_upload(upload) -> bytes:
    """The uploaded file's bytes, reading at most one byte past the upload limit.

    A file over the limit then still fails `validate_upload_size` with its own message, without a
    huge upload being pulled into memory only to be refused.
    """
    upload.seek(0)
    return upload.read(settings.FRUITCATALOG_MAX_UPLOAD_BYTES + 1)


def upload_help_text() -> str:
    """What an image upload accepts, with the configured limit."""
    limit = filesizeformat(settings.FRUITCATALOG_MAX_UPLOAD_BYTES)
    return _("JPEG, PNG, GIF or WebP, at most %(limit)s. The type is detected from the bytes.") % {
        "limit": limit
    }


class ImageUploadForm(forms.ModelForm):
    """An image of a thumbnailed model: the upload runs through `apply_image_upload`.

    The byte column is not an editable form field; the file field turns the upload into bytes and
    the same validator as the API checks type, pixel count, size and that a thumbnail can be made,
    and bytes the parent already has are refused, as the API refuses them. A new row needs a
    file; on a stored row a file replaces the image. The image's details are edited beside it.
    """

    upload = forms.FileField(
        label=gettext_lazy("Image file"),
        required=False,
        widget=forms.FileInput(attrs={"accept": IMAGE_ACCEPT}),
    )

    class Meta:
        fields = DETAIL_FIELDS
        # Narrow enough for a row of a table of images on a laptop.
        widgets = {
            "alt_text": forms.TextInput(attrs={"size": 18}),
            "creator": forms.TextInput(attrs={"size": 14}),
            "source": forms.TextInput(attrs={"size": 40}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["upload"].help_text = upload_help_text()
        if "role" in self.fields:  # left out: the image keeps its role (a new one: fruit)
            self.fields["role"].required = False

    def clean_role(self):
        return self.cleaned_data.get("role") or self.instance.role or ImageRole.FRUIT

    def clean(self):
        """Validate the details and the upload; put its bytes, metadata and thumbnail on the
        instance."""
        cleaned = super().clean()
        self.check_attribution(cleaned)
        upload = cleaned.get("upload")
        if not upload:
            if self.instance.pk is None and "upload" not in self.errors:
                self.add_error("upload", _("No file was submitted."))
            return cleaned
        try:
            apply_image_upload(self.instance, read_upload(upload))
        except ValidationError as error:
            self.add_error("upload", error.messages)
            return cleaned
        duplicate = self.instance.duplicate_id()
        if duplicate is not None:
            self.add_error(
                "upload",
                _("This image is already stored as image %(id)s.") % {"id": duplicate},
            )
        return cleaned

    def check_attribution(self, cleaned: dict) -> None:
        """A licence that requires attribution needs a creator, when either is changed here (an
        untouched row of an inline keeps what it has); the error is on the creator field."""
        if {"license", "creator"} & set(self.errors):
            return  # refused already
        try:
            validate_attribution(
                license=cleaned.get("license", self.instance.license),
                creator=cleaned.get("creator", self.instance.creator),
                changed=self.changed_data,
            )
        except ValidationError as error:
            self.add_error("creator" if "creator" in self.fields else None, error)
