#!/usr/bin/env python3
"""schema_checks.py - the checks of tests/schemas.sh on docs/schema/*.schema.json that need more
than one validation: each prints `FAIL: ...` per failed check and exits 1 when one failed.

Usage:
  schema_checks.py validator SCHEMA_DIR
      jsonschema_subset.py refuses schemas outside its subset and finds what each keyword forbids.
  schema_checks.py findings SCHEMA REPORT.json...
      the reports use what the schema allows (both fix applicabilities, notebook cells, errors),
      and documents made wrong from them (an extra field, a wrong type, a missing field...) fail.
  schema_checks.py config TRAINLINT SRC TMPDIR
      config.schema.json's keys are those src/app/config/tl_config.c accepts and those
      docs/config.md's example sets; each key's `examples` are accepted by trainlint; and the schema
      and trainlint agree (valid or not) on wrong values, on the docs' example, and on the
      configurations the test scripts and language-server sessions write. The tables trainlint
      is known to accept silently where the schema refuses them are listed at the end of config();
      one that trainlint starts refusing fails until it is taken off the list. Needs Python 3.11
      or later (tomllib).
"""

import copy
import json
import os
import re
import subprocess
import sys

tomllib = None  # imported by config(): Python 3.11 or later

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jsonschema_subset as js  # noqa: E402

failed = 0
checks = 0


def check(cond, what):
    global failed, checks
    checks += 1
    if not cond:
        failed += 1
        print(f"FAIL: {what}")
    return cond


def done():
    print(f"{checks - failed} of {checks} checks passed")
    return 1 if failed else 0


# ---- the validator itself ----

def validator(schema_dir):
    base = {"$schema": js.DIALECT}

    def refused(extra, why):
        try:
            js.Schema({**base, **extra}, why)
        except js.SchemaError as e:
            return str(e)
        return None

    # keywords outside the subset are refused, not ignored
    for kw, val in [("maxLength", 3), ("format", "uri"), ("patternProperties", {}), ("propertyNames", {}),
                    ("if", {}), ("allOf", [{}]), ("not", {}), ("uniqueItems", True), ("$id", "x"),
                    ("prefixItems", [{}]), ("unevaluatedProperties", False)]:
        msg = refused({"properties": {"a": {"description": "a", kw: val}}}, kw)
        check(msg and "not implemented" in msg, f"keyword {kw} in a subschema was not refused: {msg}")
    check(refused({"type": "object", "maximum": 3}, "root") is not None, "keyword at the root not refused")
    check(refused({"$ref": "#/$defs/nope"}, "ref") is not None, "$ref to a missing definition not refused")
    check(refused({"$ref": "other.json#/x", "$defs": {"x": {}}}, "ref") is not None, "a remote $ref not refused")
    check(refused({"properties": {"a": {"type": "string"}}}, "desc") is not None,
          "a property without a description not refused")
    check(refused({"properties": {"a": {"description": "a", "type": "string", "examples": [1]}}}, "ex")
          is not None, "an example its own schema rejects not refused")
    check(refused({"properties": {"a": {"description": "a", "$defs": {}}}}, "defs") is not None,
          "$defs below the root not refused")
    try:
        js.Schema({"$schema": "http://json-schema.org/draft-07/schema#"}, "dialect")
        check(False, "a draft-07 schema was not refused")
    except js.SchemaError:
        check(True, "")
    # what each keyword forbids
    s = js.Schema({
        **base,
        "type": "object", "additionalProperties": False, "required": ["n"],
        "dependentRequired": {"a": ["b"]},
        "properties": {
            "n": {"description": "n", "type": "integer", "minimum": 1},
            "s": {"description": "s", "type": "string", "pattern": "^x+$"},
            "e": {"description": "e", "enum": ["p", 1]},
            "c": {"description": "c", "const": True},
            "l": {"description": "l", "type": "array", "items": {"$ref": "#/$defs/t"}},
            "o": {"description": "o", "oneOf": [{"type": "integer"}, {"type": "number"}]},
            "y": {"description": "y", "anyOf": [{"type": "null"}, {"type": "string"}]},
            "m": {"description": "m", "type": "object", "additionalProperties": {"type": "string"}},
            "a": {"description": "a"}, "b": {"description": "b"},
        },
        "$defs": {"t": {"type": ["string", "null"]}},
    }, "keywords")
    good = {"n": 1, "s": "xx", "e": 1, "c": True, "l": ["a", None], "o": 1.5, "y": None, "m": {"k": "v"},
            "a": 0, "b": 0}
    check(s.validate(good) == [], f"a valid document was refused: {s.validate(good)}")
    for change, expect in [
        ({"n": "1"}, "expected integer"), ({"n": True}, "expected integer"), ({"n": 0}, "less than the minimum"),
        ({"n": 1.5}, "expected integer"), ({"s": "xy"}, "does not match"), ({"e": "q"}, "is not one of"),
        ({"e": True}, "is not one of"), ({"c": 1}, "expected true"), ({"l": ["a", 2]}, "at /l/1: expected"),
        ({"o": 1}, "matches 2 of oneOf"), ({"o": "1"}, "matches none of oneOf"), ({"y": 1}, "matches none of anyOf"),
        ({"m": {"k": 1}}, "at /m/k: expected string"), ({"z": 1}, "property `z` is not allowed"),
        ({"b": None, "a": None, "n": None}, "expected integer"),
    ]:
        errs = s.validate({**good, **change})
        check(any(expect in e for e in errs), f"{change}: expected an error with {expect!r}, got {errs}")
    for drop, expect in [("n", "required property `n`"), ("b", "`a` requires `b`")]:
        d = dict(good)
        del d[drop]
        errs = s.validate(d)
        check(any(expect in e for e in errs), f"without {drop}: expected {expect!r}, got {errs}")
    # the project's schemas are within the subset
    for name in ("findings.schema.json", "config.schema.json"):
        try:
            js.load_schema(os.path.join(schema_dir, name))
            check(True, "")
        except js.SchemaError as e:
            check(False, f"{name} refused: {e}")
    return done()


# ---- findings.schema.json ----

def findings(schema_path, reports):
    schema = js.load_schema(schema_path)
    docs = [json.load(open(p, encoding="utf-8")) for p in reports]
    fs = [f for d in docs for f in d.get("findings", [])]
    es = [e for d in docs for e in d.get("errors", [])]
    check(len(fs) >= 100, f"only {len(fs)} findings in the reports")
    apps = {f["fix"]["applicability"] for f in fs if f.get("fix")}
    check(apps == {"safe", "unsafe"}, f"fix applicabilities seen: {apps}")
    check(any(f.get("fix") and "cell" in f for f in fs), "no notebook finding with a fix")
    check(any(any("cell" in h for h in f["hot_path"]) for f in fs), "no hot-chain step in a notebook")
    check({"error", "warning"} <= {e["level"] for e in es}, f"error levels seen: {({e['level'] for e in es})}")
    check(any("cell" in e for e in es), "no error in a notebook cell")
    check({"error", "warning", "info"} == {f["severity"] for f in fs}, f"severities: {({f['severity'] for f in fs})}")
    check(any(d.get("rules") for d in docs), "no --statistics report")

    report = next(d for d in docs if any(f.get("fix") and "cell" in f for f in d.get("findings", [])))
    check(schema.validate(report) == [], "the report chosen for mutations is invalid")
    i = next(k for k, f in enumerate(report["findings"]) if f.get("fix") and "cell" in f and f["hot_path"])
    stats = next(d for d in docs if d.get("rules"))

    def mutate(doc, fn):
        d = copy.deepcopy(doc)
        fn(d)
        return d

    def f(fn):
        return lambda d: fn(d["findings"][i])

    cases = [
        ("an extra top-level field", lambda d: d.update(extra=1), "property `extra` is not allowed"),
        ("an extra finding field", f(lambda x: x.update(url="u")), "property `url` is not allowed"),
        ("an extra hot-chain field", f(lambda x: x["hot_path"][0].update(kind="x")), "property `kind` is not allowed"),
        ("an extra fix field", f(lambda x: x["fix"].update(diff="")), "property `diff` is not allowed"),
        ("an extra edit field", f(lambda x: x["fix"]["edits"][0].update(line=1)), "property `line` is not allowed"),
        ("a line as a string", f(lambda x: x.update(line=str(x["line"]))), "expected integer"),
        ("a column as a float", f(lambda x: x.update(column=x["column"] + 0.5)), "expected integer"),
        ("line 0 in a finding", f(lambda x: x.update(line=0)), "less than the minimum"),
        ("a negative byte offset", f(lambda x: x["fix"]["edits"][0].update(start_byte=-1)), "less than the minimum"),
        ("a missing fingerprint", f(lambda x: x.pop("fingerprint")), "required property `fingerprint`"),
        ("a missing fix", f(lambda x: x.pop("fix")), "required property `fix`"),
        ("a cell without end_cell", f(lambda x: x.pop("end_cell")), "`cell` requires `end_cell`"),
        ("an unknown severity", f(lambda x: x.update(severity="fatal")), "is not one of"),
        ("an unknown applicability", f(lambda x: x["fix"].update(applicability="maybe")), "matches none of oneOf"),
        ("a fix as a string", f(lambda x: x.update(fix="none")), "matches none of oneOf"),
        ("a short fingerprint", f(lambda x: x.update(fingerprint="abc")), "does not match"),
        ("hot_path as an object", f(lambda x: x.update(hot_path={})), "expected array"),
        ("schema_version 2", lambda d: d.update(schema_version=2), "expected 1"),
        ("another tool", lambda d: d.update(tool="ruff"), "expected \"trainlint\""),
        ("an error with an unknown level",
         lambda d: d["errors"].append({"level": "fatal", "path": "a", "line": 0, "column": 0, "message": "m"}),
         "is not one of"),
        ("an error without a message",
         lambda d: d["errors"].append({"level": "error", "path": "a", "line": 0, "column": 0}),
         "required property `message`"),
    ]
    for what, fn, expect in cases:
        errs = schema.validate(mutate(report, fn))
        check(any(expect in e for e in errs), f"{what}: expected an error with {expect!r}, got {errs[:3]}")
    for what, fn, expect in [
        ("statistics with an extra field", lambda d: d.update(extra=1), "property `extra` is not allowed"),
        ("a count as a string", lambda d: d["rules"][0].update(count="1"), "expected integer"),
        ("statistics mixed into a report", lambda d: d.update(findings=[]), "property `findings` is not allowed"),
    ]:
        errs = schema.validate(mutate(stats, fn))
        check(any(expect in e for e in errs), f"{what}: expected an error with {expect!r}, got {errs[:3]}")
    return done()


# ---- config.schema.json ----

def _toml(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(x)}" for k, x in v.items()) + " }"


def _source_keys(src):
    """The keys tl_config__pair accepts: the names it compares `key` with."""
    text = open(os.path.join(src, "src/app/config/tl_config.c"), encoding="utf-8").read()
    m = re.search(r"\nstatic void tl_config__pair\(.*?\n}\n", text, re.S)
    if not m:
        return None
    return {k.rstrip(".") for k in re.findall(r'strn?cmp\(key, "([^"]+)"', m.group(0))}


def _doc_blocks(path):
    text = open(path, encoding="utf-8").read()
    return [b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if "tool.trainlint" in b]


def _test_configs(src):
    """The pyproject.toml texts that the test scripts write whole (printf '...' and cat > ... <<'TOML')."""
    out = []
    tests = os.path.join(src, "tests")
    for name in sorted(os.listdir(tests)):
        if not name.endswith(".sh") or name == "schemas.sh":
            continue
        text = open(os.path.join(tests, name), encoding="utf-8").read()
        for s in re.findall(r"(?:printf|dup) '([^']*tool\.trainlint[^']*)'", text):
            out.append((f"tests/{name}: {s[:50]}", s.replace("\\n", "\n")))
        for s in re.findall(r"cat > [^\n]*<<'TOML'\n(.*?\n)TOML\n", text, re.S):
            out.append((f"tests/{name}: heredoc", s))
    sessions = os.path.join(tests, "lsp", "sessions")
    for name in sorted(os.listdir(sessions)):
        text = open(os.path.join(sessions, name), encoding="utf-8").read()
        for s in re.findall(r"^write pyproject\.toml '([^']*)'", text, re.M):
            out.append((f"tests/lsp/sessions/{name}: {s[:50]}", s.replace("\\n", "\n")))
    for root, _, files in os.walk(tests):
        for fn in files:
            if fn == "pyproject.toml":
                p = os.path.join(root, fn)
                out.append((os.path.relpath(p, src), open(p, encoding="utf-8").read()))
    return out


def config(binary, src, tmp):
    global tomllib
    try:
        import tomllib
    except ImportError:
        check(False, f"reading TOML needs Python 3.11 or later (tomllib); this is {sys.version.split()[0]}")
        return done()
    binary = os.path.abspath(binary)
    schema_path = os.path.join(src, "docs/schema/config.schema.json")
    schema = js.load_schema(schema_path)
    props = schema.root["properties"]
    keys = set(props)

    # the keys: the C code's, the schema's, the docs'
    skeys = _source_keys(src)
    check(skeys is not None and "select" in skeys, f"keys not found in tl_config.c: {skeys}")
    skeys = skeys or set()
    check(skeys == keys, f"tl_config.c accepts {sorted(skeys - keys)} that the schema lacks; "
          f"the schema has {sorted(keys - skeys)} that tl_config.c does not accept")
    blocks = _doc_blocks(os.path.join(src, "docs/config.md"))
    check(len(blocks) >= 1, "no ```toml block with [tool.trainlint] in docs/config.md")
    for b in blocks:
        table = tomllib.loads(b).get("tool", {}).get("trainlint", {})
        check(schema.validate(table) == [], f"docs/config.md's example is invalid: {schema.validate(table)}")
    documented = {k for b in blocks for k in tomllib.loads(b).get("tool", {}).get("trainlint", {})}
    check(documented == keys, f"docs/config.md's example lacks {sorted(keys - documented)}, "
          f"has {sorted(documented - keys)} the schema lacks")

    proj = os.path.join(tmp, "cfg")
    os.makedirs(proj, exist_ok=True)
    open(os.path.join(proj, "empty.py"), "w").close()

    def trainlint(text):
        """(accepted, stderr) of trainlint with this pyproject.toml."""
        with open(os.path.join(proj, "pyproject.toml"), "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([binary, "check", "--format", "concise", "."], cwd=proj, capture_output=True, text=True)
        if r.returncode not in (0, 2) or (r.returncode == 2) != ("pyproject.toml:" in r.stderr):
            check(False, f"trainlint exited {r.returncode} on {text!r}: {r.stderr.strip()}")
        return r.returncode == 0, r.stderr.strip()

    def verdict(text):
        """(valid, why) by the schema; a TOML error is invalid."""
        try:
            table = tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError as e:
            return False, f"TOML: {e}"
        table = table.get("trainlint", {}) if isinstance(table, dict) else {}
        errs = schema.validate(table)
        return not errs, "; ".join(errs)

    def agree(text, what, expect=None):
        valid, why = verdict(text)
        accepted, err = trainlint(text)
        # a well-formed code that names no rule only trainlint can tell
        only_codes = err and all("no rule has the code" in ln for ln in err.splitlines() if "error:" in ln)
        if expect is not None:
            check(valid == expect, f"{what}: the schema says {'valid' if valid else 'invalid: ' + why}")
        check(valid == accepted or (valid and only_codes),
              f"{what}: the schema says {'valid' if valid else 'invalid (' + why + ')'}, trainlint "
              f"{'accepts it' if accepted else 'refuses it: ' + err}")
        return valid, accepted

    # every key: its examples are accepted, as a key and (tables) as a table; wrong types are not
    for k, p in props.items():
        check(p.get("examples"), f"`{k}` has no examples")
        for ex in p.get("examples", []):
            agree(f"[tool.trainlint]\n{k} = {_toml(ex)}\n", f"{k} = {_toml(ex)}", True)
            if isinstance(ex, dict):
                body = "".join(f"{json.dumps(a)} = {_toml(b)}\n" for a, b in ex.items())
                agree(f"[tool.trainlint.{k}]\n{body}", f"[tool.trainlint.{k}] {ex}", True)
        is_table = p.get("type") == "object"
        for bad in ([1, "x", True, ["TL101"]] if is_table else [1, "TL101", {"a": "b"}, [1], [True]]):
            agree(f"[tool.trainlint]\n{k} = {_toml(bad)}\n", f"{k} = {_toml(bad)}", False)
        if is_table:
            agree(f"[tool.trainlint.{k}]\n\"x\" = 1\n", f"[tool.trainlint.{k}] x = 1", False)
    for text, what in [
        ('[tool.trainlint]\nselct = ["TL1"]\n', "an unknown key"),
        ('[tool.trainlint]\nselect = ["TL1-01"]\n', "a malformed code"),
        ('[tool.trainlint]\nselect = [""]\n', "an empty code"),
        ('[tool.trainlint]\nframeworks = ["jax"]\n', "an unknown framework"),
        ('[tool.trainlint]\nseverity = { TL101 = "fatal" }\n', "an unknown severity"),
        ('[tool.trainlint]\nper-file-ignores = { "a.py" = "TL101" }\n', "per-file-ignores with a string"),
    ]:
        agree(text, what, False)
    for text, what in [
        ('[tool.trainlint]\nselect = ["tl101", "ALL", "all"]\nextend-select = []\n', "lower-case codes and ALL"),
        ('[tool.trainlint]\nseverity.TL101 = "info"\nper-file-ignores."a.py" = ["TL1"]\n', "dotted keys"),
        ('[project]\nname = "x"\n', "no [tool.trainlint]"),
        ('[tool.trainlint]\nselect = ["TL999"]\n', "a code that names no rule"),
    ]:
        agree(text, what, True)

    # the configurations of docs/config.md and of the tests: the schema agrees with trainlint
    corpus = [(f"docs/config.md block {i + 1}", b) for i, b in enumerate(blocks)] + _test_configs(src)
    check(len(corpus) >= 15, f"only {len(corpus)} configurations found in docs/config.md and tests/")
    for what, text in corpus:
        agree(text, what)

    # What trainlint once accepted in silence and now refuses, as the schema (and TOML's reading of
    # them) does; and the inline table both read as the table.
    for text, what in [
        ("[tool.trainlint.extra]\n", "an empty unknown sub-table"),
        ("[[tool.trainlint]]\nselect = 1\n", "[tool.trainlint] as an array of tables"),
        ("[[tool.trainlint.severity]]\nTL101 = 1\n", "an array of tables below [tool.trainlint]"),
        ("[tool]\ntrainlint = { select = 1 }\n", "[tool.trainlint] as an inline table of a wrong type"),
    ]:
        agree(text, what, False)
    agree('[tool]\ntrainlint = { select = ["TL1"] }\n', "[tool.trainlint] as an inline table", True)
    return done()


def main(argv):
    if len(argv) >= 3 and argv[1] == "validator":
        return validator(argv[2])
    if len(argv) >= 4 and argv[1] == "findings":
        return findings(argv[2], argv[3:])
    if len(argv) == 5 and argv[1] == "config":
        return config(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
