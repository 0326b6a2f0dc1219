"""Discord's own description of its HTTP API (spec/openapi.json), and checking the fake's
traffic against it.

The fake's other checks were written by the same hands as the bot, so they share its blind
spots. This module holds both sides to Discord's contract instead: every request the bot makes
must be an operation Discord describes (path and method), with declared query parameters of
the right type and a JSON body (or multipart `payload_json`) valid against the operation's
request schema; every body the fake answers with must be valid against the operation's
response schema for that status. A violation is recorded as a problem and fails the test.

Two deliberate allowances, both for requests only: ids may be JSON integers where the schema
says snowflake string (Discord accepts both, and discord.py sends integers in places), and
the spec's `content` limit of 4000 is left to validation.py's 2000 for bots. The spec is
JSON Schema 2020-12; `$ref`s resolve within the document. Validators are compiled once per
operation and direction and cached, so the cost per request is one validation: first by
jsonschema-rs (compiled, about 25 times as fast on message bodies, whose components are
`oneOf`s that must try every branch), and only a body it finds invalid by the `jsonschema`
reference implementation too, whose verdict stands and whose errors say what is wrong.
"""

from __future__ import annotations

import bisect
import copy
import functools
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).with_name("spec") / "openapi.json"
BASE = "urn:discord-openapi"
SNOWFLAKE = re.compile(r"0|[1-9][0-9]*")  # the spec's two string patterns
COLOUR = re.compile(r"#(([0-9a-fA-F]{2}){3}|([0-9a-fA-F]){3})")
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Operation:
    """One method on one path of the spec."""

    method: str
    template: str
    pointer: str  # JSON pointer of the operation object
    operation_id: str
    params: dict[str, dict[str, Any]] = field(hash=False, compare=False)  # query, by name


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


class ApiSpec:
    """The loaded spec: operation lookup and cached validators."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.request_document = _lenient(document)
        self._registries = {
            "strict": Registry().with_resource(
                BASE, Resource.from_contents(document, default_specification=DRAFT202012)
            ),
            "request": Registry().with_resource(
                BASE,
                Resource.from_contents(self.request_document, default_specification=DRAFT202012),
            ),
        }
        self._routes: list[tuple[re.Pattern[str], int, str, dict[str, Any]]] = []
        for template, item in document["paths"].items():
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            literal = -template.count("{")  # prefer /users/@me over /users/{user_id}
            self._routes.append((re.compile(regex), literal, template, item))
        self._routes.sort(key=lambda r: r[1], reverse=True)
        self._validators: dict[tuple[str, str], Draft202012Validator | None] = {}
        self._fast_registries = {
            "strict": jsonschema_rs.Registry([(BASE, document)]),
            "request": jsonschema_rs.Registry([(BASE, self.request_document)]),
        }
        self._fast: dict[tuple[str, str], Any] = {}
        self.length_bounds = _bands(document, ("maxLength", "minLength"))
        self.item_bounds = _bands(document, ("maxItems", "minItems"))
        self.words = _literals(document, str)
        self.numbers = _literals(document, int)
        self.number_bounds = sorted(
            {*_bands(document, ("minimum", "maximum")), -(2**31), 2**31, -(2**63), 2**63}
        )
        self.verdicts: dict[tuple[Any, ...], list[str]] = {}
        self.hits = self.misses = 0

    # -- looking up ---------------------------------------------------------------------------

    def operation(self, method: str, path: str) -> Operation | str:
        """The operation for a request, or why there is none."""
        for regex, _, template, item in self._routes:
            if regex.fullmatch(path):
                op = item.get(method.lower())
                if op is None:
                    allowed = [m.upper() for m in METHODS if m in item]
                    return f"{method} is not a method of {template} (Discord has {allowed})"
                params = {
                    p["name"]: p
                    for p in [*item.get("parameters", []), *op.get("parameters", [])]
                    if p.get("in") == "query"
                }
                pointer = f"/paths/{_escape(template)}/{method.lower()}"
                return Operation(method.upper(), template, pointer, op["operationId"], params)
        return f"{method} {path} is not a route of Discord's API"

    def _validator(self, pointer: str, kind: str) -> Draft202012Validator | None:
        key = (pointer, kind)
        if key not in self._validators:
            document = self.request_document if kind == "request" else self.document
            node: Any = document
            for part in pointer.strip("/").split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(node, dict) or part not in node:
                    node = None
                    break
                node = node[part]
            validator = None
            if node is not None:
                validator = Draft202012Validator(
                    {"$ref": f"{BASE}#{pointer}"}, registry=self._registries[kind]
                )
            self._validators[key] = validator
        return self._validators[key]

    def _errors(self, pointer: str, kind: str, body: Any) -> list[Any]:
        """The violations of ``body``: none when the compiled validator finds it valid."""
        key = (pointer, kind)
        if key not in self._fast:
            uri = f"{BASE}#{urllib.parse.quote(pointer, safe='/~')}"
            self._fast[key] = jsonschema_rs.Draft202012Validator(
                {"$ref": uri}, registry=self._fast_registries[kind]
            )
        if self._fast[key].is_valid(body):
            return []
        validator = self._validator(pointer, kind)
        assert validator is not None
        return _errors(validator, body)

    # -- caching verdicts ---------------------------------------------------------------------

    def skeleton(self, value: Any) -> Any:
        """What of a JSON value can change its verdict, for caching verdicts.

        Discord's schemas constrain a string only by its length (at the `maxLength` and
        `minLength` bounds), by two patterns (snowflake digits, `#rrggbb` colours) and by
        `const`/`enum` words; an integer by `const`/`enum` values and `minimum`/`maximum`
        bounds. So a value the spec names is kept, any other becomes its band between the
        bounds (and a string its pattern class). Two bodies with the same skeleton get the
        same verdict.
        """
        if isinstance(value, dict):
            return {k: self.skeleton(v) for k, v in value.items()}
        if isinstance(value, list):
            # Arrays are checked item by item against one `items` schema, plus their length
            # (`maxItems`/`minItems`) and `uniqueItems`: the set of item skeletons, the length
            # band and whether items repeat decide the verdict.
            items = {json.dumps(self.skeleton(v), sort_keys=True) for v in value}
            repeats = len({json.dumps(v, sort_keys=True) for v in value}) < len(value)
            band = bisect.bisect_left(self.item_bounds, len(value))
            return ["#list", band, repeats, *sorted(items)]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if value in self.numbers:
                return value
            return f"#int{bisect.bisect_left(self.number_bounds, value)}"
        if isinstance(value, float):
            return "#float"
        if isinstance(value, str):
            if value in self.words:
                return value
            kind = "s"
            if SNOWFLAKE.fullmatch(value):
                kind = "id"
            elif COLOUR.fullmatch(value):
                kind = "colour"
            return f"#{kind}{bisect.bisect_left(self.length_bounds, len(value))}"
        return repr(value)

    def cached(self, key: tuple[Any, ...], body: Any, check: Any) -> list[str]:
        """`check()`'s verdict, computed once per skeleton of `body`."""
        full = (*key, json.dumps(self.skeleton(body), sort_keys=True))
        if full not in self.verdicts:
            self.misses += 1
            self.verdicts[full] = check()
        else:
            self.hits += 1
        return self.verdicts[full]

    # -- checking -----------------------------------------------------------------------------

    def check_request(
        self, op: Operation, query: dict[str, str], body: Any, content_type: str
    ) -> list[str]:
        """What in a request Discord's description does not allow."""
        errors = []
        for name, value in query.items():
            param = op.params.get(name)
            if param is None:
                errors.append(f"query parameter {name!r} is not one of {sorted(op.params)}")
                continue
            errors += _check_query(name, value, param.get("schema", {}))
        if body is None:
            return errors
        media = (
            "multipart/form-data" if content_type.startswith("multipart") else ("application/json")
        )
        content = f"{op.pointer}/requestBody/content/{_escape(media)}/schema"
        validator = self._validator(content, "request")
        if validator is None:
            errors.append(f"{op.operation_id} takes no {media} body")
            return errors
        errors += self.cached(
            ("request", content),
            body,
            lambda: [
                f"request body: {_describe(e)}" for e in self._errors(content, "request", body)
            ],
        )
        return errors

    def check_response(self, op: Operation, status: int, body: Any) -> list[str]:
        """What in a response body Discord's description does not allow (server errors,
        which the spec does not describe but Discord does answer, are not checked)."""
        if status >= 500:
            return []
        responses = self._node(f"{op.pointer}/responses") or {}
        code = str(status)
        if code not in responses:
            code = f"{code[0]}XX" if f"{code[0]}XX" in responses else "default"
        if code not in responses:
            return [f"{op.operation_id} has no {status} response in Discord's description"]
        if status == 204 or body is None:
            return []
        schema = self._resolve_response(f"{op.pointer}/responses/{_escape(code)}")
        if schema is None:
            return [f"{op.operation_id} answers {status} without a body in Discord's description"]
        validator = self._validator(schema, "strict")
        assert validator is not None
        return self.cached(
            ("response", schema, status),
            body,
            lambda: [
                f"response {status}: {_describe(e)}" for e in self._errors(schema, "strict", body)
            ],
        )

    def _node(self, pointer: str) -> Any:
        node: Any = self.document
        for part in pointer.strip("/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def _resolve_response(self, pointer: str) -> str | None:
        node = self._node(pointer)
        while isinstance(node, dict) and "$ref" in node:
            pointer = node["$ref"].lstrip("#")
            node = self._node(pointer)
        if not isinstance(node, dict) or "application/json" not in node.get("content", {}):
            return None
        return f"{pointer}/content/application~1json/schema"


def _errors(validator: Draft202012Validator, instance: Any) -> list[Any]:
    return sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))[:5]


def _describe(error: Any) -> str:
    """One line per violation: where, and the most specific reason.

    For a failed oneOf/anyOf the branch that matched the object's `type` is followed (a
    button failing the button schema, not "2 is not one of [10]" from the text display's).
    """
    best = error
    while best.context:
        branches: dict[Any, list[Any]] = {}
        for sub in best.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        plausible = [
            errs
            for errs in branches.values()
            if not any(
                e.validator in ("enum", "const") and list(e.relative_path)[-1:] == ["type"]
                for e in errs
            )
        ]
        errs = plausible[0] if len(plausible) == 1 else list(best.context)
        best = min(errs, key=lambda e: (-len(e.absolute_path), len(e.message)))
    where = "/".join(str(p) for p in best.absolute_path) or "(top)"
    message = best.message if len(best.message) < 300 else best.message[:300] + "..."
    return f"at {where}: {message}"


def _check_query(name: str, value: str, schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if "$ref" in schema and schema["$ref"].endswith("/SnowflakeType"):
        kind = "snowflake"
    ok = True
    if kind == "integer":
        ok = re.fullmatch(r"-?\d+", value) is not None
        if ok:
            number = int(value)
            ok = schema.get("minimum", number) <= number <= schema.get("maximum", number)
    elif kind == "boolean":
        ok = value.lower() in ("true", "false", "1", "0")
    elif kind == "snowflake":
        ok = re.fullmatch(r"0|[1-9]\d*", value) is not None
    if not ok:
        return [f"query parameter {name}={value!r} is not a valid {kind} ({schema})"]
    return []


def _literals(node: Any, kind: type) -> set[Any]:
    """Every value of this type a schema in the spec names as a `const` or in an `enum`."""
    found: set[Any] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "const" and type(value) is kind:
                found.add(value)
            elif key == "enum" and isinstance(value, list):
                found |= {v for v in value if type(v) is kind}
            else:
                found |= _literals(value, kind)
    elif isinstance(node, list):
        for item in node:
            found |= _literals(item, kind)
    return found


def _bands(document: Any, keys: tuple[str, ...]) -> list[int]:
    """The bounds these keywords (e.g. maxLength, minLength) set anywhere in the document,
    each with the value just past it, sorted: a value's band is where it falls among them."""
    return sorted({n for b in _limits(document, keys) for n in (b, b + 1)})


def _limits(node: Any, keys: tuple[str, ...]) -> set[int]:
    """Every value of these keywords anywhere in the document."""
    found: set[int] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys and isinstance(value, int) and not isinstance(value, bool):
                found.add(value)
            found |= _limits(value, keys)
    elif isinstance(node, list):
        for item in node:
            found |= _limits(item, keys)
    return found


def _lenient(document: dict[str, Any]) -> dict[str, Any]:
    """The document as requests are checked: snowflakes may be integers, `content` may be
    as long as the spec allows anyone (validation.py holds bots to 2000)."""
    doc = copy.deepcopy(document)
    schemas = doc["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {"anyOf": [snowflake, {"type": "integer", "minimum": 0}]}
    return doc


@functools.cache
def load() -> ApiSpec:
    """The spec, parsed once per process."""
    return ApiSpec(json.loads(SPEC_PATH.read_text()))
