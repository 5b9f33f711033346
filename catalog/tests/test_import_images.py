"""`manage.py import_images`: photos named by catalog number, from a folder or a zip."""

import io
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import FruitImage
from core.testing.media import make_image_bytes, make_object_png

pytestmark = pytest.mark.django_db


def photos() -> dict[str, bytes]:
    return {
        "1042.jpg": make_image_bytes("JPEG", size=(200, 150)),
        "1042-2.png": make_object_png(size=(130, 100)),
        "1042_section.webp": make_image_bytes("WEBP", size=(160, 120)),
        "77.jpg": make_image_bytes("JPEG", size=(100, 100)),  # no such fruit
        "1042-broken.jpg": b"\xff\xd8\xff not really a jpeg",
        "notes.txt": b"not a photo",
    }


def run(source, *args) -> tuple[str, str, bool]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_images", str(source), *args, stdout=out, stderr=err)
    except CommandError as error:
        return out.getvalue(), err.getvalue() + str(error), False
    return out.getvalue(), err.getvalue(), True


@pytest.fixture
def folder(tmp_path):
    for name, data in photos().items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def test_photos_go_to_their_fruits_and_a_second_run_adds_nothing(folder, fruit_factory):
    fruit = fruit_factory(name="Gravensteiner", catalog_number=1042)
    out, err, ok = run(folder)
    assert not ok  # three files failed
    assert "3 added, 0 skipped, 3 failed" in err
    assert "77.jpg: no fruit has the catalog number 77" in err
    assert "notes.txt: not named by a catalog number" in err
    assert "1042-broken.jpg:" in err
    assert "1042.jpg: added to 1042 Gravensteiner as image" in out
    images = FruitImage.objects.filter(fruit=fruit).order_by("pk")
    assert images.count() == 3
    assert sorted(images.values_list("role", flat=True)) == ["fruit", "fruit", "section"]
    assert not images.missing_thumbnail().exists()

    out, err, ok = run(folder)
    assert "0 added, 3 skipped, 3 failed" in err
    assert "1042.jpg: 1042 Gravensteiner already has these bytes as image" in out
    assert FruitImage.objects.count() == 3


def test_a_zip_works_as_a_folder_and_a_dry_run_stores_nothing(tmp_path, fruit_factory):
    fruit_factory(name="Gravensteiner", catalog_number=1042)
    source = tmp_path / "photos.zip"
    with zipfile.ZipFile(source, "w") as archive:
        for name, data in photos().items():
            if name.startswith("1042") and "broken" not in name:
                archive.writestr(f"orchard/{name}", data)
        archive.writestr("__MACOSX/._1042.jpg", b"resource fork")
    out, err, ok = run(source, "--dry-run")
    assert ok, err
    assert "3 would be added, 0 skipped, 0 failed" in out
    assert not FruitImage.objects.exists()
    out, err, ok = run(source)
    assert ok and FruitImage.objects.count() == 3


def test_a_file_over_the_upload_limit_fails_unread(folder, fruit_factory, settings):
    fruit_factory(name="Gravensteiner", catalog_number=1042)
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 100
    _out, err, _ok = run(folder)
    assert "1042.jpg: larger than the upload limit of 100 bytes" in err
    assert not FruitImage.objects.exists()


def test_a_source_that_is_neither_folder_nor_zip_is_an_error(tmp_path):
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"x")
    _out, err, ok = run(path)
    assert not ok and "neither a folder nor a zip file" in err


def test_an_imported_photo_is_decoded_once_and_hashed_once(tmp_path, fruit_factory, work_on):
    fruit = fruit_factory(name="Gravensteiner", catalog_number=1042)
    photo = make_object_png(size=(130, 100))
    (tmp_path / "1042.png").write_bytes(photo)
    counts = work_on(photo)

    _out, err, ok = run(tmp_path)

    assert ok, err
    assert counts == {"decoded": 1, "hashed": 1}
    image = FruitImage.objects.get(fruit=fruit)
    assert image.has_thumbnail and image.width == 130


def corrupt(path, member: str) -> None:
    """Flip a byte of a stored member's data: its CRC no longer matches."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    data = bytearray(path.read_bytes())
    name_length, extra_length = (
        int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little"),
        int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little"),
    )
    start = info.header_offset + 30 + name_length + extra_length
    data[start + 100] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("compression", "words"),
    [(zipfile.ZIP_STORED, "Bad CRC-32 for file '1042-2.png'"), (zipfile.ZIP_DEFLATED, "")],
    ids=["stored", "deflated"],
)
def test_a_corrupt_zip_member_is_that_files_failure_and_the_others_are_attached(
    tmp_path, fruit_factory, compression, words
):
    fruit_factory(name="Gravensteiner", catalog_number=1042)
    source = tmp_path / "photos.zip"
    with zipfile.ZipFile(source, "w", compression=compression) as archive:
        for name in ("1042.jpg", "1042-2.png", "1042_section.webp"):
            archive.writestr(name, photos()[name])
    corrupt(source, "1042-2.png")
    out, err, ok = run(source)
    assert not ok
    assert f"1042-2.png: cannot be read from the zip file ({words}" in err
    assert "1042.jpg: added to 1042 Gravensteiner" in out
    assert "1042_section.webp: added to 1042 Gravensteiner" in out
    assert "2 added, 0 skipped, 1 failed" in err
    assert FruitImage.objects.count() == 2


def test_a_link_out_of_the_folder_is_refused_and_its_target_never_read(tmp_path, fruit_factory):
    fruit_factory(name="Gravensteiner", catalog_number=1042)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.jpg").write_bytes(photos()["1042.jpg"])
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "1042.jpg").symlink_to(outside / "private.jpg")
    (folder / "1042-2.png").write_bytes(photos()["1042-2.png"])
    (folder / "1042_section.png").symlink_to("1042-2.png")  # inside the folder: followed
    out, err, ok = run(folder)
    assert not ok
    assert "1042.jpg: refused: a link to outside the folder" in err
    assert "1042-2.png: added to 1042 Gravensteiner" in out
    assert "1042_section.png: 1042 Gravensteiner already has these bytes" in out
    assert "1 added, 1 skipped, 1 failed" in err
    assert FruitImage.objects.count() == 1


@pytest.mark.parametrize(
    "name",
    ["../1042.jpg", "/1042.jpg", "orchard/../../1042.jpg", "..\\1042.jpg", "C:/photos/1042.jpg"],
    ids=["parent", "absolute", "parent-in-the-middle", "windows-parent", "drive"],
)
def test_a_zip_name_that_leaves_the_zip_is_refused(tmp_path, fruit_factory, name):
    fruit_factory(name="Gravensteiner", catalog_number=1042)
    source = tmp_path / "photos.zip"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name), photos()["1042.jpg"])
        archive.writestr("1042-2.png", photos()["1042-2.png"])
    _out, err, ok = run(source)
    assert not ok
    assert f"{name}: refused: a name outside the zip file" in err
    assert "1 added, 0 skipped, 1 failed" in err
    assert FruitImage.objects.count() == 1
