from django.apps import AppConfig


class BlobsConfig(AppConfig):
    """Stored bytes: images with thumbnails, covers and PDFs, their checks and byte responses."""

    name = "blobs"
    label = "blobs"
    verbose_name = "Stored bytes"
