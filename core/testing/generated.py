"""A Python client generated from an OpenAPI document by `openapi-python-client` (the generator
most Python API consumers reach for), with its default settings, importable while it is used."""

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@contextlib.contextmanager
def generated_client(document: Path, folder: Path, package: str):
    """Generate `package` from `document` into `folder` and make it importable; yields what the
    generator did (`subprocess.CompletedProcess`). Afterwards the package is forgotten and the
    folder removed."""
    if not GENERATOR.exists():
        pytest.fail("openapi-python-client is missing: `make test` installs requirements-dev.txt")
    # The generator formats its output with ruff, which sits beside it in the virtualenv.
    env = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            *("--path", str(document)),
            *("--meta", "none"),
            *("--output-path", str(folder / package)),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    sys.path.insert(0, str(folder))
    try:
        yield done
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.partition(".")[0] == package]:
            del sys.modules[name]
        shutil.rmtree(folder, ignore_errors=True)
