#!/usr/bin/env python3
"""metamorphic.py - findings must not change under rewrites that keep a program's meaning.

Usage: metamorphic.py TRAINLINT SRC [PROJECT...]

For each project (default: every fixtures/TL*/ directory, fixtures/model/*/, fixtures/projects/*/ and
examples/), the project is copied to a temporary directory, trainlint runs over it (`check --select
ALL --format json`), then each rewrite below is applied to every Python file of the copy and
trainlint runs again. The findings, as (file, line, code, severity), must be the same, with the
lines moved by what the rewrite inserted. A rewrite that does not apply to a file (no `import
torch` line to alias) leaves that file as it is.

The rewrites:
  blank-line  a blank line before the first line
  comment     a comment line before the first line
  docstring   a module docstring before the first line (the file's own docstring, if any, follows)
  bom         a UTF-8 byte order mark
  crlf        CRLF line endings
  tabs        indentation by tabs (files whose indentation is in steps of 4 spaces)
  alias       `import torch` as `import torch as T`, and `torch.` as `T.` in the code
  parens      the right-hand side of a one-line assignment in parentheses (`x = (f(y))`, as black
              writes long ones)
  shebang     a `#!` line and a coding line before the first line
  lone-cr     lone CR line endings (old Mac files; Python reads them)
  form-feed   a form feed before each top-level statement that starts a line (as some editors
              put between sections)
  indent-2, indent-8  indentation by steps of 2 or 8 spaces (files indented in steps of 4)
  trailing-space  two spaces at the end of every line that ends a statement, or holds no code
  black-wrap  a call on one line whose arguments are names and constants, its arguments moved
              to a line of their own and its closing parenthesis to the next (`f(\n    a, b\n)`),
              as black wraps long calls
  comments    a comment line after every statement (after `break`, between two statements,
              after a block's header), indented as the statement that follows
  unrelated   an unrelated function appended to every file
  sibling     a sibling directory with modules named as the project's (`zz_sibling/train.py`),
              whose own findings are not compared
  rename      consistent renames of what the project binds (metamorphic_refactor.py)
  move        top-level functions moved to a sibling module and imported back
  wrap        a loop body moved to a new function called from the loop

The last three rewrite the project as a whole and say where each line went, so a finding follows its
line into another file.

A project, a rewrite and the rule codes listed in metamorphic-known.txt (beside this script) are known
to differ: the project's findings of exactly those codes differ under that rewrite, reported as
"known", not failed. A finding of another code that differs fails, and so does a listed code that
no longer differs (the list must shrink). Prints one line per project and rewrite that differs, with the findings that came and
went, and "N passed, N known, N failed"; exits 1 on any failure.
"""
import concurrent.futures
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize

import metamorphic_refactor


def shift_one(text):
    return 1


def no_shift(text):
    return 0


def rw_blank(text):
    return "\n" + text


def rw_comment(text):
    return "# a comment before everything\n" + text


def rw_docstring(text):
    return '"""A module docstring."""\n' + text


def rw_bom(text):
    return "\ufeff" + text


def rw_crlf(text):
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def rw_alias(text):
    if not re.search(r"^import torch$", text, re.M):
        return text
    text = re.sub(r"^import torch$", "import torch as T", text, flags=re.M)
    # `torch.` in code, not in comments or strings (a line-level approximation: only lines
    # without quotes or `#`)
    out = []
    for line in text.split("\n"):
        if re.match(r"\s*(import|from)\s", line):
            out.append(line)  # `import torch.nn as nn` names the module, not the alias
        elif "#" in line or '"' in line or "'" in line:
            if re.search(r"\btorch\.", line):
                return None  # cannot rewrite this file safely
            out.append(line)
        else:
            out.append(re.sub(r"(?<![\w.])torch\.", "T.", line))
    return "\n".join(out)


ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s=\s(.+?)\s*$")


def rw_parens(text):
    out = []
    depth = 0
    for line in text.split("\n"):
        m = ASSIGN.match(line)
        code = line.split("#", 1)[0]
        if (depth == 0 and m and "#" not in line and '"""' not in line and "'''" not in line
                and not m.group(3).endswith((":", "\\", ",")) and balanced(m.group(3))
                and not m.group(3).startswith(("yield", "lambda", "await"))
                and not enclosed(m.group(3)) and not chained(m.group(3))):
            out.append("%s%s = (%s)" % (m.group(1), m.group(2), m.group(3)))
        else:
            out.append(line)
        depth += code.count("(") + code.count("[") + code.count("{")
        depth -= code.count(")") + code.count("]") + code.count("}")
        depth = max(depth, 0)
    return "\n".join(out)


def shift_two(text):
    return 2


def rw_shebang(text):
    return "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + text


def rw_lone_cr(text):
    return None if "\r" in text else text.replace("\n", "\r")


def tokens(text):
    """The file's tokens, or None when it does not tokenize (or is not LF-only)."""
    if "\r" in text or "\f" in text:
        return None
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def statement_starts(toks):
    """The first token of each logical line (a statement, or a block's header)."""
    starts, fresh = [], True
    for t in toks:
        if t.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
            continue
        if t.type == tokenize.NEWLINE:
            fresh = True
            continue
        if fresh and t.type != tokenize.ENDMARKER:
            starts.append(t)
        fresh = False
    return starts


def rw_form_feed(text):
    toks = tokens(text)
    if toks is None:
        return None
    top = {t.start[0] for t in statement_starts(toks) if t.start[1] == 0}
    lines = text.split("\n")
    return "\n".join("\f" + l if i + 1 in top else l for i, l in enumerate(lines))


def rw_indent(level):
    """Indentation by `level` for each step of 4 spaces (files indented in such steps only)."""
    def rewrite(text):
        out = []
        for line in text.split("\n"):
            stripped = line.lstrip(" ")
            n = len(line) - len(stripped)
            if stripped and n % 4:
                return text  # indentation not in steps of 4: leave the file as it is
            out.append(level * (n // 4) + stripped if stripped else line)
        return "\n".join(out)
    return rewrite


def rw_trailing_space(text):
    toks = tokens(text)
    if toks is None:
        return None
    ends = {t.start[0] for t in toks if t.type in (tokenize.NEWLINE, tokenize.NL)}
    lines = text.split("\n")
    return "\n".join(l + "  " if i + 1 in ends and not l.endswith("\\") else l for i, l in enumerate(lines))


def insert_lines(text, after):
    """`text` with after[n] (lines) inserted after line n; and where each old line went."""
    lines, out, where = text.split("\n"), [], {}
    for i, line in enumerate(lines, 1):
        where[i] = len(out) + 1
        out.append(line)
        out.extend(after.get(i, []))
    return "\n".join(out), where


def rw_comments(text):
    toks = tokens(text)
    if toks is None:
        return None
    lines = text.split("\n")
    starts = sorted(t.start for t in statement_starts(toks))
    after = {}
    for t in toks:
        if t.type == tokenize.NEWLINE and t.start[0] <= len(lines):
            # indented as the statement that follows (as people write them), else as this one
            nxt = next((st for st in starts if st[0] > t.start[0]), None)
            line = lines[t.start[0] - 1]
            indent = " " * nxt[1] if nxt else line[:len(line) - len(line.lstrip())]
            after[t.start[0]] = [indent + "# a note between statements"]
    return insert_lines(text, after)


SIMPLE_ARGS = re.compile(r"^\s*(?:[A-Za-z_]\w*=)?(?:[A-Za-z_]\w*|-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\")"
                         r"(?:\s*,\s*(?:[A-Za-z_]\w*=)?(?:[A-Za-z_]\w*|-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\"))*\s*$")
CALL_LINE = re.compile(r"^(\s*)(\S.*?[\w\])]\()(.*)\)$")


def rw_black_wrap(text):
    toks = tokens(text)
    if toks is None:
        return None
    # lines that hold a whole statement: a NEWLINE token on the line where the statement starts
    single = set()
    for t in statement_starts(toks):
        single.add(t.start[0])
    ends = {t.start[0] for t in toks if t.type == tokenize.NEWLINE}
    lines, out, where, same = text.split("\n"), [], {}, {}
    for i, line in enumerate(lines, 1):
        where[i] = len(out) + 1
        m = CALL_LINE.match(line)
        if (i in single and i in ends and m and "#" not in line and SIMPLE_ARGS.match(m.group(3))
                and m.group(2).count("(") == 1 and not line.lstrip().startswith(("def ", "class ", "@", "return", "assert"))):
            # a finding at an argument moves with it: its line counts as the call's
            same[len(out) + 2] = same[len(out) + 3] = len(out) + 1
            out += [m.group(1) + m.group(2), m.group(1) + "    " + m.group(3).strip(), m.group(1) + ")"]
        else:
            out.append(line)
    return "\n".join(out), where, same


def rw_unrelated(text):
    return text + ("\n" if text and not text.endswith("\n") else "") + \
        "\n\ndef _metamorphic_unrelated(a, b):\n    return a + b\n"


SIBLING = "zz_sibling"


def rw_sibling(root):
    """A sibling directory with modules named as the project's, defining other things."""
    paths = list(python_files(root))
    os.makedirs(os.path.join(root, SIBLING))
    for path in paths:
        name = os.path.basename(path)
        target = os.path.join(root, SIBLING, name)
        if not os.path.exists(target):
            with open(target, "w", encoding="utf-8") as fh:
                fh.write("def helper(x):\n    return x\n\n\nclass Thing:\n    pass\n")
    return {}


def enclosed(expr):
    """Is expr one parenthesised expression already (black does not add a second pair)?"""
    if not expr.startswith("("):
        return False
    d = 0
    for i, ch in enumerate(expr):
        d += ch in "([{"
        d -= ch in ")]}"
        if d == 0:
            return i == len(expr) - 1
    return False


def chained(expr):
    """Does expr hold an `=` of its own outside brackets (`a = b = c` matched as `a = (b = c)`)?"""
    d = 0
    for i, ch in enumerate(expr):
        d += ch in "([{"
        d -= ch in ")]}"
        if (d == 0 and ch == "=" and expr[i - 1:i] not in ("=", "!", "<", ">")
                and expr[i + 1:i + 2] != "="):
            return True
    return False


def balanced(expr):
    d = 0
    for ch in expr:
        d += ch in "([{"
        d -= ch in ")]}"
        if d < 0:
            return False
    return d == 0 and expr.count('"') % 2 == 0 and expr.count("'") % 2 == 0


REWRITES = [
    ("blank-line", rw_blank, shift_one),
    ("comment", rw_comment, shift_one),
    ("docstring", rw_docstring, shift_one),
    ("bom", rw_bom, no_shift),
    ("crlf", rw_crlf, no_shift),
    ("tabs", rw_indent("\t"), no_shift),
    ("alias", rw_alias, no_shift),
    ("parens", rw_parens, no_shift),
    ("shebang", rw_shebang, shift_two),
    ("lone-cr", rw_lone_cr, no_shift),
    ("form-feed", rw_form_feed, no_shift),
    ("indent-2", rw_indent("  "), no_shift),
    ("indent-8", rw_indent(" " * 8), no_shift),
    ("trailing-space", rw_trailing_space, no_shift),
    ("black-wrap", rw_black_wrap, no_shift),
    ("comments", rw_comments, no_shift),
    ("unrelated", rw_unrelated, no_shift),
    ("sibling", rw_sibling, None),
] + [(name, refactor, None) for name, refactor in metamorphic_refactor.REFACTORINGS]


def findings(trainlint, root):
    p = subprocess.run([trainlint, "check", "--select", "ALL", "--format", "json", "--quiet", "--exit-zero",
                        "-j", "1", "."], cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("trainlint failed in %s: %s" % (root, p.stderr.strip()[:400]))
    out = []
    for f in json.loads(p.stdout)["findings"]:
        path = f["path"][2:] if f["path"].startswith("./") else f["path"]
        out.append((path, f["line"], f["code"], f["severity"]))
    return sorted(out)


def python_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "snapshots")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(d, name)


# Rules reported once per project, at the first place that qualifies by path and position (TL601 at
# the first training loop): a rewrite that moves code may move that place, so they count by code and
# severity alone.
ONCE_PER_PROJECT = {"TL601"}


def anchor(finding):
    path, line, code, severity = finding
    return ("*", 0, code, severity) if code in ONCE_PER_PROJECT else finding


def rewrite_files(work, rewrite, shift, canon):
    """A rewrite of each file's text: {(path, line): (path, line)} for the lines it moves; in
    `canon`, the new lines that count as another ((path, line): (path, line)): a call's arguments
    wrapped to the next line count as the call's."""
    moved = {}
    for path in python_files(work):
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
        new = rewrite(text)
        where = same = None
        if isinstance(new, tuple):  # the new text, where each old line went (and lines that count as others)
            new, where, same = new[0], new[1], (new[2] if len(new) > 2 else None)
        if new is None or new == text:
            continue
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(new)
        rel = os.path.relpath(path, work)
        for a, b in (same or {}).items():
            canon[(rel, a)] = (rel, b)
        if where:
            moved.update(((rel, i), (rel, n)) for i, n in where.items() if n != i)
            continue
        n = shift(text)
        if n:
            moved.update(((rel, i), (rel, i + n)) for i in range(1, text.count("\n") + 2))
    return moved


def check(trainlint, project, tmp):
    base = os.path.join(tmp, "base")
    shutil.copytree(project, base)
    want = findings(trainlint, base)
    failures = []
    for name, rewrite, shift in REWRITES:
        work = os.path.join(tmp, name)
        shutil.copytree(project, work)
        canon = {}
        moved = rewrite(work) if shift is None else rewrite_files(work, rewrite, shift, canon)
        expected = sorted(anchor(moved.get((p, line), (p, line)) + (c, s)) for p, line, c, s in want)
        got = sorted(anchor(canon.get((p, line), (p, line)) + (c, s))
                     for p, line, c, s in findings(trainlint, work) if not p.startswith(SIBLING + "/"))
        if got != expected:
            gone = sorted(set(expected) - set(got))
            came = sorted(set(got) - set(expected))
            failures.append((name, gone, came))
        shutil.rmtree(work)
    shutil.rmtree(base)
    return failures


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    trainlint, src = os.path.abspath(argv[1]), argv[2]
    projects = argv[3:]
    if not projects:
        fx = os.path.join(src, "fixtures")
        projects = sorted(os.path.join(fx, d) for d in os.listdir(fx) if d.startswith("TL"))
        for group in ("model", "projects"):
            g = os.path.join(fx, group)
            projects += sorted(os.path.join(g, d) for d in os.listdir(g) if os.path.isdir(os.path.join(g, d)))
        projects.append(os.path.join(src, "examples"))
    known = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "metamorphic-known.txt")) as fh:
        for line in fh:
            words = line.split("#", 1)[0].split()
            if words:
                known[(words[0], words[1])] = set(words[2:])
    def run(project):
        with tempfile.TemporaryDirectory() as tmp:
            return {name: (gone, came) for name, gone, came in check(trainlint, project, tmp)}

    # the projects in parallel (each run is one process); the report in the projects' order
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(run, projects))
    passed = failed = nknown = 0
    for project, differ in zip(projects, results):
        rel = os.path.relpath(project, src)
        for name, _, _ in REWRITES:
            codes = known.get((rel, name))
            if name in differ:
                gone, came = differ[name]
                differing = {f[2] for f in gone + came}
                if codes is not None and differing == codes:
                    nknown += 1
                    print("known: %s under %s: %s (metamorphic-known.txt)" % (rel, name, " ".join(sorted(codes))))
                    continue
                failed += 1
                if codes is None or not differing <= codes:
                    print("FAIL: %s under %s" % (rel, name))
                else:
                    print("FAIL: %s under %s no longer differs in %s: take it off metamorphic-known.txt"
                          % (rel, name, " ".join(sorted(codes - differing))))
                for f in gone:
                    print("  gone: %s:%d %s %s" % f)
                for f in came:
                    print("  came: %s:%d %s %s" % f)
            elif codes is not None:
                failed += 1
                print("FAIL: %s under %s no longer differs: take it off metamorphic-known.txt" % (rel, name))
            else:
                passed += 1
    print("%d passed, %d known, %d failed" % (passed, nknown, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
