"""BrAPI v2.1's own schemas (`spec/brapi-v2.1.json`, built by `spec/regenerate.py` from the
specification's repository, its commit in `info.x-spec-commit`), and the check of an answer
against them.

`conforms(response, path, method)` validates the body with `jsonschema` against the schema the
specification gives the operation and status, and also refuses a field the schema does not name
(BrAPI's schemas leave `additionalProperties` open, so a misspelt field would pass unseen);
`additionalInfo`, BrAPI's free-form object, takes any key. An error answers in BrAPI's envelope
with the message in `metadata.status` (the specification's 4xx schemas are plain strings; the
contract asks for the envelope, which BrAPI's clients read), checked against `metadata`.
"""

import json
from pathlib import Path

from jsonschema import Draft202012Validator

SPEC = json.loads((Path(__file__).parent / "spec" / "brapi-v2.1.json").read_text())
COMPONENTS = SPEC["components"]
ERROR_SCHEMA = {
    "type": "object",
    "required": ["metadata"],
    "properties": {
        "metadata": {
            "allOf": [
                {"$ref": "#/components/schemas/metadata"},
                {
                    "type": "object",
                    "required": ["status"],
                    "properties": {
                        "status": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"properties": {"messageType": {"const": "ERROR"}}},
                        }
                    },
                },
            ]
        }
    },
}


def resolve(node: dict) -> dict:
    while "$ref" in node:
        _, _, section, name = node["$ref"].split("/", 3)
        node = COMPONENTS[section][name]
    return node


def response_schema(path: str, method: str, status: int) -> dict:
    responses = SPEC["paths"][path][method]["responses"]
    assert str(status) in responses, f"{method.upper()} {path} has no {status} in the spec"
    return resolve(responses[str(status)])["content"]["application/json"]["schema"]


def properties(schema: dict) -> tuple[dict, bool]:
    """The properties an object schema names (through `$ref` and `allOf`), and whether it takes
    any other key (`additionalProperties` given as a schema or true)."""
    schema = resolve(schema)
    found, open_ = dict(schema.get("properties") or {}), bool(schema.get("additionalProperties"))
    for part in schema.get("allOf", []):
        more, more_open = properties(part)
        found.update(more)
        open_ = open_ or more_open
    return found, open_


def unnamed_fields(instance, schema: dict, where: str = "") -> list[str]:
    """The keys of `instance`, at any depth, that its schema does not name."""
    schema = resolve(schema)
    if isinstance(instance, list):
        items = schema.get("items") or {}
        return [
            f for i, v in enumerate(instance) for f in unnamed_fields(v, items, f"{where}[{i}]")
        ]
    if not isinstance(instance, dict):
        return []
    named, open_ = properties(schema)
    found = []
    for key, value in instance.items():
        if key in named:
            found += unnamed_fields(value, named[key], f"{where}.{key}")
        elif not open_:
            found.append(f"{where}.{key}")
    return found


def validate(body, schema: dict) -> None:
    root = {**schema, "components": COMPONENTS}
    errors = sorted(Draft202012Validator(root).iter_errors(body), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def conforms(response, path: str, method: str = "get") -> dict:
    """The answer's body, once checked against the specification (see the module)."""
    body = response.json()
    if response.status_code >= 400:
        validate(body, ERROR_SCHEMA)
        return body
    schema = response_schema(path, method, response.status_code)
    validate(body, schema)
    assert not unnamed_fields(body, schema), unnamed_fields(body, schema)
    return body
