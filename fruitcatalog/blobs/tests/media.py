"""Images and PDFs made in memory for the tests of every app."""

import io

from PIL import Image


def make_image_bytes(fmt="PNG", size=(64, 48), color=(200, 30, 30), mode="RGB", **save_args):
    """Bytes of a solid image in `fmt`."""
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt, **save_args)
    return buffer.getvalue()


def make_object_png(size=(120, 100), box=(30, 20, 59, 49), color=(220, 0, 0)):
    """A white PNG with a coloured rectangle (inclusive box), to see the crop."""
    image = Image.new("RGB", size, "white")
    image.paste(color, (box[0], box[1], box[2] + 1, box[3] + 1))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def make_pdf_bytes(pages=1) -> bytes:
    """A small valid PDF with `pages` pages (drawn with Pillow)."""
    buffer = io.BytesIO()
    frames = [Image.new("RGB", (200, 280), "white") for _ in range(pages)]
    frames[0].save(buffer, format="PDF", save_all=True, append_images=frames[1:])
    return buffer.getvalue()
