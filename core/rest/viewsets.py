"""Behaviour shared by the domain apps' resource viewsets."""

from django.shortcuts import get_object_or_404
from django.urls import reverse


class ReadBackMixin:
    """Answer a create or update with the row read back through `get_queryset()`.

    The saved instance lacks the list annotations and prefetches the representation needs; a
    create also answers with the new row's `Location`. Subclasses store through their services
    in `write()`, whose Django `ValidationError`s the exception handler answers as 400s. A row
    deleted between the write's commit and the read back is a 404.
    """

    def write(self, serializer):
        """Store the validated data; return the saved instance."""
        return serializer.save()

    def perform_create(self, serializer):
        serializer.instance = get_object_or_404(self.get_queryset(), pk=self.write(serializer).pk)

    perform_update = perform_create

    def get_success_headers(self, data):
        lookup = self.lookup_url_kwarg or self.lookup_field
        path = reverse(f"{self.basename}-detail", kwargs={lookup: data["id"]})
        return {"Location": self.request.build_absolute_uri(path)}
