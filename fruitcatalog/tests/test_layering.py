"""The layering of the code, checked by import-linter against `.importlinter`."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / ".importlinter"), "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def tree_copy(tmp_path):
    """A copy of the project's packages and contracts, to break on purpose."""
    for name in ("fruitcatalog", "catalog", "publications"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_every_import_points_down():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "bad_import", "contract"),
    [
        ("fruitcatalog/blobs/responses.py", "import catalog.models", "Stored bytes know no"),
        ("catalog/services.py", "import publications.models", "The catalog never imports"),
        ("publications/services.py", "import catalog.serializers", "Publications take from"),
        ("fruitcatalog/search.py", "import catalog.models", "Routes above the domain apps"),
    ],
)
def test_an_import_pointing_the_wrong_way_is_reported(tree_copy, module, bad_import, contract):
    path = tree_copy / module
    path.write_text(path.read_text() + f"\n{bad_import}  # noqa\n")

    result = lint_imports(tree_copy)

    assert result.returncode != 0
    broken = result.stdout.partition("Broken contracts")[2]
    assert contract in broken, result.stdout
