"""What stored bytes are: the type libmagic detects, and the one file-extension table.

Django-free, like `imaging`, which takes its image types from here.
"""

import magic

# libmagic identifies every allowed format from its first bytes; SVG and HTML may need more (an
# XML prolog and comments can come first), which 8 KiB covers without scanning a whole upload.
MAGIC_PREFIX_BYTES = 8192

JPEG = "image/jpeg"
PNG = "image/png"
GIF = "image/gif"
WEBP = "image/webp"
PDF = "application/pdf"
OCTET_STREAM = "application/octet-stream"

# The file extension of every type the service stores; names in Content-Disposition use it.
EXTENSIONS: dict[str, str] = {JPEG: "jpg", PNG: "png", GIF: "gif", WEBP: "webp", PDF: "pdf"}


def detect_content_type(data: bytes) -> str:
    """MIME type libmagic detects from the first bytes of ``data``."""
    try:
        return magic.from_buffer(data[:MAGIC_PREFIX_BYTES], mime=True)
    except magic.MagicException:
        return OCTET_STREAM


def extension_for(content_type: str) -> str:
    """File extension for a detected type ("bin" for anything unexpected)."""
    return EXTENSIONS.get(content_type, "bin")
