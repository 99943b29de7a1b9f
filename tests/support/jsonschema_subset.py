#!/usr/bin/env python3
"""jsonschema_subset.py - a JSON Schema (draft 2020-12) validator for the keywords that
docs/schema/*.schema.json use, standard library only.

Usage: jsonschema_subset.py [--toml TABLE] [--coverage] SCHEMA INSTANCE...

An INSTANCE is a JSON file (`-`: standard input); with --toml TABLE it is a TOML file, and what is
validated is its table TABLE (dotted: `tool.trainlint`; an absent table is `{}`). --coverage also
fails when some property that the schema declares appears in none of the instances, so that a
test cannot pass on documents that never exercise an optional field.

A schema that uses a keyword outside the subset below is refused (exit 2) rather than having the
keyword ignored: the subset cannot grow silently, and a schema cannot come to rely on a check that
is not made. Refused too: a $ref that is not `#/$defs/NAME` or names no definition, a property
without a `description`, an `examples` or `default` value that its own schema rejects.

Assertions and applicators: type, enum, const, minimum, pattern (Python's `re`, unanchored),
properties, required, additionalProperties (false or a schema), dependentRequired, items (one
schema), oneOf, anyOf, $ref. Annotations: $schema (must be draft 2020-12), $comment, title,
description, examples, default, $defs.

Exit status: 0 every instance valid, 1 an instance invalid (or, with --coverage, a property never
seen), 2 a refused schema or a usage error, 3 an instance that is not JSON (or TOML).
"""

import json
import re
import sys

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ANNOTATIONS = {"$schema", "$comment", "title", "description", "examples", "default", "$defs"}
IMPLEMENTED = {
    "type", "enum", "const", "minimum", "pattern", "properties", "required", "additionalProperties",
    "dependentRequired", "items", "oneOf", "anyOf", "$ref",
}
TYPES = {"null", "boolean", "integer", "number", "string", "array", "object"}


class SchemaError(Exception):
    """The schema uses something this validator does not implement, or is malformed."""


def _ptr(parts):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts) if parts else ""


def _is_type(v, t):
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "string":
        return isinstance(v, str)
    if t == "array":
        return isinstance(v, list)
    return isinstance(v, dict)


def _json_type(v):
    for t in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(v, t):
            return t
    return type(v).__name__


def _equal(a, b):
    """JSON equality: 1 and 1.0 are equal, true and 1 are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


class Schema:
    def __init__(self, root, name="schema"):
        self.root = root
        self.name = name
        self.declared = set()  # schema locations of every declared property, for coverage
        self.seen = set()
        if not isinstance(root, dict):
            raise SchemaError(f"{name}: the root is not an object")
        if root.get("$schema") != DIALECT:
            raise SchemaError(f"{name}: $schema must be {DIALECT}")
        self._lint(root, [])

    # ---- the schema itself ----

    def _lint(self, s, loc):
        where = f"{self.name}#{_ptr(loc)}"
        if isinstance(s, bool):
            return
        if not isinstance(s, dict):
            raise SchemaError(f"{where}: a schema must be an object or a boolean")
        for k in s:
            if k not in IMPLEMENTED and k not in ANNOTATIONS:
                raise SchemaError(f"{where}: keyword `{k}` is not implemented by {__file__.rsplit('/', 1)[-1]}")
        for k in ("$schema", "$defs"):
            if loc and k in s:
                raise SchemaError(f"{where}: {k} is only allowed at the root")
        t = s.get("type")
        if t is not None:
            ts = t if isinstance(t, list) else [t]
            if not ts or any(x not in TYPES for x in ts):
                raise SchemaError(f"{where}: bad type {t!r}")
        if "enum" in s and (not isinstance(s["enum"], list) or not s["enum"]):
            raise SchemaError(f"{where}: enum must be a non-empty array")
        if "minimum" in s and not _is_type(s["minimum"], "number"):
            raise SchemaError(f"{where}: minimum must be a number")
        if "pattern" in s:
            try:
                re.compile(s["pattern"])
            except (re.error, TypeError) as e:
                raise SchemaError(f"{where}: bad pattern: {e}")
        if "required" in s and not all(isinstance(x, str) for x in s["required"]):
            raise SchemaError(f"{where}: required must list names")
        if s.get("additionalProperties") is False:
            missing = [r for r in s.get("required", []) if r not in s.get("properties", {})]
            if missing:
                raise SchemaError(f"{where}: required {missing} can never be present (additionalProperties: false)")
        for k, deps in s.get("dependentRequired", {}).items():
            if not isinstance(deps, list) or not all(isinstance(x, str) for x in deps):
                raise SchemaError(f"{where}: dependentRequired/{k} must list names")
        if "$ref" in s:
            self._resolve(s["$ref"], where)
        for name, sub in s.get("$defs", {}).items():
            self._lint(sub, loc + ["$defs", name])
        for name, sub in s.get("properties", {}).items():
            if not isinstance(sub, dict) or not isinstance(sub.get("description"), str) or not sub["description"]:
                raise SchemaError(f"{where}: property `{name}` has no description")
            self.declared.add(_ptr(loc + ["properties", name]))
            self._lint(sub, loc + ["properties", name])
        for k in ("additionalProperties", "items"):
            if k in s:
                self._lint(s[k], loc + [k])
        for k in ("oneOf", "anyOf"):
            if k in s:
                if not isinstance(s[k], list) or not s[k]:
                    raise SchemaError(f"{where}: {k} must be a non-empty array")
                for i, sub in enumerate(s[k]):
                    self._lint(sub, loc + [k, i])
        for k in ("examples", "default"):
            if k not in s:
                continue
            values = s[k] if k == "examples" else [s[k]]
            if k == "examples" and not isinstance(values, list):
                raise SchemaError(f"{where}: examples must be an array")
            for v in values:
                errs = self._validate(v, s, loc, [], set())
                if errs:
                    raise SchemaError(f"{where}: its {k} value {json.dumps(v)} is invalid: {errs[0]}")

    def _resolve(self, ref, where):
        m = re.fullmatch(r"#/\$defs/([^/~]+)", ref) if isinstance(ref, str) else None
        if not m or m.group(1) not in self.root.get("$defs", {}):
            raise SchemaError(f"{where}: $ref {ref!r}: only #/$defs/NAME of a definition is supported")
        return self.root["$defs"][m.group(1)], ["$defs", m.group(1)]

    # ---- instances ----

    def validate(self, instance):
        """The list of errors ("at /pointer: what"); records the properties seen."""
        seen = set()
        errs = self._validate(instance, self.root, [], [], seen)
        if not errs:
            self.seen |= seen
        return errs

    def unseen(self):
        return sorted(self.declared - self.seen)

    def _validate(self, v, s, loc, path, seen):
        if s is True:
            return []
        if s is False:
            return [f"at {_ptr(path) or '/'}: nothing is allowed here"]
        errs = []
        at = f"at {_ptr(path) or '/'}"
        if "$ref" in s:
            target, tloc = self._resolve(s["$ref"], self.name)
            errs += self._validate(v, target, tloc, path, seen)
        if "type" in s:
            ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(_is_type(v, t) for t in ts):
                return errs + [f"{at}: expected {' or '.join(ts)}, got {_json_type(v)}"]
        if "enum" in s and not any(_equal(v, e) for e in s["enum"]):
            errs.append(f"{at}: {json.dumps(v)} is not one of {json.dumps(s['enum'])}")
        if "const" in s and not _equal(v, s["const"]):
            errs.append(f"{at}: expected {json.dumps(s['const'])}, got {json.dumps(v)}")
        if "minimum" in s and _is_type(v, "number") and v < s["minimum"]:
            errs.append(f"{at}: {v} is less than the minimum {s['minimum']}")
        if "pattern" in s and isinstance(v, str) and not re.search(s["pattern"], v):
            errs.append(f"{at}: {json.dumps(v)} does not match {s['pattern']!r}")
        if isinstance(v, dict):
            props = s.get("properties", {})
            for r in s.get("required", []):
                if r not in v:
                    errs.append(f"{at}: required property `{r}` is missing")
            for k, deps in s.get("dependentRequired", {}).items():
                if k in v:
                    for d in deps:
                        if d not in v:
                            errs.append(f"{at}: `{k}` requires `{d}`, which is missing")
            for k, x in v.items():
                if k in props:
                    seen.add(_ptr(loc + ["properties", k]))
                    errs += self._validate(x, props[k], loc + ["properties", k], path + [k], seen)
                elif "additionalProperties" in s:
                    ap = s["additionalProperties"]
                    if ap is False:
                        errs.append(f"{at}: property `{k}` is not allowed")
                    else:
                        errs += self._validate(x, ap, loc + ["additionalProperties"], path + [k], seen)
        if isinstance(v, list) and "items" in s:
            for i, x in enumerate(v):
                errs += self._validate(x, s["items"], loc + ["items"], path + [i], seen)
        for k in ("oneOf", "anyOf"):
            if k not in s:
                continue
            ok, why = [], []
            for i, sub in enumerate(s[k]):
                branch = set()
                e = self._validate(v, sub, loc + [k, i], path, branch)
                if e:
                    why.append(f"[{i}] {e[0]}")
                else:
                    ok.append(branch)
            if not ok:
                errs.append(f"{at}: matches none of {k}: " + "; ".join(why))
            elif k == "oneOf" and len(ok) > 1:
                errs.append(f"{at}: matches {len(ok)} of oneOf, not exactly one")
            else:
                seen |= ok[0]
        return errs


def load_schema(path):
    with open(path, encoding="utf-8") as f:
        return Schema(json.load(f), path)


def load_instance(path, toml_table=None):
    """A file's JSON value, or the table `toml_table` (dotted) of its TOML."""
    if toml_table is None:
        if path == "-":
            return json.load(sys.stdin)
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    import tomllib

    with open(path, "rb") as f:
        doc = tomllib.load(f)
    for part in toml_table.split("."):
        doc = doc.get(part, {}) if isinstance(doc, dict) else {}
    return doc


def main(argv):
    args = argv[1:]
    toml_table, coverage = None, False
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--toml" and args:
            toml_table = args.pop(0)
        elif opt == "--coverage":
            coverage = True
        else:
            print(f"unknown option {opt}", file=sys.stderr)
            return 2
    if len(args) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        schema = load_schema(args[0])
    except (OSError, ValueError, SchemaError) as e:
        print(f"refused schema: {e}", file=sys.stderr)
        return 2
    rc = 0
    for path in args[1:]:
        try:
            inst = load_instance(path, toml_table)
        except (OSError, ValueError) as e:  # tomllib.TOMLDecodeError is a ValueError
            print(f"{path}: not readable: {e}")
            return 3
        errs = schema.validate(inst)
        for e in errs:
            print(f"{path}: {e}")
        if errs:
            rc = 1
    if coverage and rc == 0:
        for p in schema.unseen():
            print(f"{args[0]}: property {p} appears in none of the instances")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
