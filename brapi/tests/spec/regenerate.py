"""Build the BrAPI v2.1 fixture the tests check the service against, from the specification.

    python brapi/tests/spec/regenerate.py /path/to/plantbreeding-API [REF]

reads the YAML pieces of the specification (`Specification/BrAPI-Core`, `BrAPI-Germplasm`,
`BrAPI-Phenotyping` and the shared `Components`) at `REF` (a tag, branch or commit of a clone of
github.com/plantbreeding/API; `V2.1` by default) straight from git, merges them as the
specification's own `Scripts/buildOpenAPI.py` does (every file's paths and components into one
OpenAPI document), keeps the operations this service serves and every component they reference,
and writes `brapi-v2.1.json` beside this script: an OpenAPI 3.0 document, with the commit it was
built from in `info.x-spec-commit`.

The tests read it twice: every response is validated with `jsonschema` against the schema of its
operation and status, and `openapi-python-client` generates a client from it. The document is
trimmed to the served operations because the whole specification's (over 200 operations) takes
the generator minutes and draws warnings from calls that are not served; the schemas of the kept
operations are the specification's, unchanged.

No dependency but PyYAML and git; the service never imports it.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

OUTPUT = Path(__file__).with_name("brapi-v2.1.json")
ROOTS = (
    "Specification/BrAPI-Core/",
    "Specification/BrAPI-Germplasm/",
    "Specification/BrAPI-Phenotyping/",
    "Specification/Components/",
)
# The operations served under /brapi/v2 (`brapi.urls`), as the specification names them.
SERVED = {
    "/serverinfo": ["get"],
    "/commoncropnames": ["get"],
    "/germplasm": ["get"],
    "/germplasm/{germplasmDbId}": ["get"],
    "/germplasm/{germplasmDbId}/mcpd": ["get"],
    "/search/germplasm": ["post"],
    "/pedigree": ["get"],
    "/attributes": ["get"],
    "/attributes/{attributeDbId}": ["get"],
    "/attributevalues": ["get"],
    "/images": ["get"],
    "/images/{imageDbId}": ["get"],
}
SECTIONS = ("schemas", "parameters", "responses", "securitySchemes")


def git(repository: Path, *args: str) -> str:
    done = subprocess.run(
        [shutil.which("git") or "git", "-C", str(repository), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def merged(repository: Path, ref: str) -> dict:
    """Every piece's paths and components in one document, as `Scripts/buildOpenAPI.py` merges
    them (a later file's entry replaces an earlier one's of the same name)."""
    names = git(repository, "ls-tree", "-r", "--name-only", ref, "--", "Specification").split("\n")
    document = {"paths": {}, "components": {section: {} for section in SECTIONS}}
    for name in sorted(n for n in names if n.endswith(".yaml") and n.startswith(ROOTS)):
        piece = yaml.safe_load(git(repository, "show", f"{ref}:{name}")) or {}
        document["paths"].update(piece.get("paths") or {})
        for section in SECTIONS:
            document["components"][section].update(
                (piece.get("components") or {}).get(section) or {}
            )
    return document


def references(node) -> set[str]:
    """The `$ref`s anywhere in `node`."""
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= references(value)
        return found
    if isinstance(node, list):
        return set().union(*(references(value) for value in node)) if node else set()
    return set()


def trimmed(document: dict, commit: str, ref: str) -> dict:
    """The served operations with every component they reach, nothing else."""
    paths = {}
    for path, methods in SERVED.items():
        item = document["paths"][path]
        paths[path] = {method: item[method] for method in methods}
    components = {section: {} for section in SECTIONS}
    pending = references(paths) | {"#/components/securitySchemes/AuthorizationToken"}
    seen: set[str] = set()
    while pending:
        ref_ = pending.pop()
        if ref_ in seen:
            continue
        seen.add(ref_)
        _, _, section, name = ref_.split("/", 3)
        value = document["components"][section][name]
        components[section][name] = value
        pending |= references(value)
    return {
        "openapi": "3.0.0",
        "info": {
            "title": "BrAPI",
            "version": "2.1",
            "description": (
                "The calls of BrAPI v2.1 that Fruit Catalog serves, as the specification "
                "(github.com/plantbreeding/API) defines them."
            ),
            "x-spec-repository": "https://github.com/plantbreeding/API",
            "x-spec-ref": ref,
            "x-spec-commit": commit,
        },
        "servers": [{"url": "/brapi/v2"}],
        "security": [{"AuthorizationToken": []}],
        "paths": paths,
        "components": {section: dict(sorted(v.items())) for section, v in components.items() if v},
    }


def main(argv: list[str]) -> None:
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    repository, ref = Path(argv[1]), argv[2] if len(argv) == 3 else "V2.1"
    commit = git(repository, "rev-parse", f"{ref}^{{commit}}").strip()
    document = trimmed(merged(repository, ref), commit, ref)
    OUTPUT.write_text(json.dumps(document, indent=1, ensure_ascii=False, sort_keys=False) + "\n")
    print(f"{OUTPUT}: {len(document['paths'])} paths from {ref} ({commit})")


if __name__ == "__main__":
    main(sys.argv)
