"""metamorphic_refactor.py - refactorings of a whole project that keep its meaning, for metamorphic.py.

Each refactoring takes a project directory, rewrites its Python files in place and returns where
every original line went: {(old path, old line): (new path, new line)}, paths relative to the
project. Lines it did not move are left out (they stay where they were).

  rename  consistent renames: every name the project binds (functions, classes, parameters,
          variables) gets a suffix, everywhere it is used, unless the name may be seen from
          outside the project's own bindings (an attribute, a keyword argument, an imported
          name, a method, a name inside a string or f-string, a builtin)
  move    every top-level function whose free names are imports, builtins or other moved
          functions goes to a new sibling module `<stem>_moved.py`, with the file's imports; the
          function's place takes `from <stem>_moved import name`
  wrap    the body of a `for` loop inside a function goes to a new top-level function, called from
          the loop with the function's locals it reads; only bodies that leave the loop by falling
          through (no break, continue, return, yield, await) and bind no name the rest of the
          function uses

A file that does not parse, or a construct a refactoring cannot move safely, is left as it is.
"""
import ast
import builtins
import io
import os
import tokenize

BUILTINS = set(dir(builtins))


def python_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "snapshots")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(d, name), root)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", newline="") as fh:
        return fh.read()


def write(root, rel, text):
    with open(os.path.join(root, rel), "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def parse(text):
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def tagged(rel, text):
    """The file as a list of [line text with its end, (rel, line number)]."""
    return [[line, (rel, i + 1)] for i, line in enumerate(text.splitlines(True))]


def moves(rel_to_lines):
    """{(old path, old line): (new path, new line)} for the lines whose place changed."""
    out = {}
    for rel, lines in rel_to_lines.items():
        for i, (_, tag) in enumerate(lines):
            if tag is not None and tag != (rel, i + 1):
                out[tag] = (rel, i + 1)
    return out


def newline_of(text):
    return "\r\n" if "\r\n" in text else "\n"


# ---- rename --------------------------------------------------------------------------------------


def parents(tree):
    up = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            up[child] = node
    return up


def rename(root, suffix="_r"):
    files = {rel: read(root, rel) for rel in python_files(root)}
    trees = {rel: parse(text) for rel, text in files.items()}
    bound, seen_outside = set(), set(BUILTINS) | {"self", "cls"}
    for rel in files:  # module and package names
        seen_outside.update(x for x in os.path.splitext(rel)[0].split(os.sep))
    for rel, tree in trees.items():
        if tree is None:
            continue
        up = parents(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                (seen_outside if isinstance(up.get(node), ast.ClassDef) else bound).add(node.name)
                a = node.args
                for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                    if arg is not None:
                        bound.add(arg.arg)
            elif isinstance(node, ast.Lambda):
                for arg in node.args.args:
                    bound.add(arg.arg)
            elif isinstance(node, ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.Attribute):
                seen_outside.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                seen_outside.add(node.arg)
            elif isinstance(node, ast.alias):
                seen_outside.add((node.asname or node.name).split(".")[0])
                seen_outside.update(node.name.split("."))
            elif isinstance(node, ast.ImportFrom) and node.module:
                seen_outside.update(node.module.split("."))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                seen_outside.update(w for w in node.value.replace(".", " ").split() if w.isidentifier())
            elif isinstance(node, ast.JoinedStr):
                seen_outside.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                pass
    names = {n for n in bound - seen_outside if not n.startswith("__") and n != "_"}
    out = {}
    for rel, text in files.items():
        if trees[rel] is None:
            continue
        new = rename_tokens(text, names, suffix)
        if new != text:
            write(root, rel, new)
    return out  # renames move no line


def rename_tokens(text, names, suffix):
    lines = text.splitlines(True)
    edits = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    prev = None
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in names and not (prev is not None and prev.string == "."):
            edits.append(tok.end)
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    for row, col in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + suffix + line[col:]
    return "".join(lines)


# ---- move ----------------------------------------------------------------------------------------


def bound_name(n):
    """The name one node binds (a store or del, a def or class, an except target, an import), or None."""
    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
        return n.id
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return n.name
    if isinstance(n, ast.ExceptHandler) and n.name:
        return n.name
    if isinstance(n, ast.alias):
        return (n.asname or n.name).split(".")[0]
    return None


def bound_in(node):
    """Every name a function binds anywhere inside it (an over-approximation of its locals)."""
    out = {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)}
    out |= {bound_name(n) for n in ast.walk(node) if n is not node} - {None}
    return out


def loads_in(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def move(root):
    layout = {}
    for rel in list(python_files(root)):
        text = read(root, rel)
        tree = parse(text)
        stem = os.path.splitext(os.path.basename(rel))[0]
        if tree is None or "." in stem or stem.endswith("_moved"):
            continue
        target = os.path.join(os.path.dirname(rel), stem + "_moved.py")
        if os.path.exists(os.path.join(root, target)):
            continue
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        imported = set()
        for n in imports:
            for a in n.names:
                imported.add((a.asname or a.name).split(".")[0])
        funcs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        names = {f.name for f in funcs}
        defined_twice = {f.name for f in funcs if sum(g.name == f.name for g in funcs) > 1}
        movable = []
        for f in funcs:
            if f.name in defined_twice or f.name.startswith("__"):
                continue
            if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(f)):
                continue
            free = loads_in(f) - bound_in(f)
            if any(x.startswith("__") for x in free):
                continue
            if free <= imported | BUILTINS | names:
                movable.append(f)
        # a moved function may call only functions that move with it
        while True:
            moving = {f.name for f in movable}
            keep = [f for f in movable if (loads_in(f) - bound_in(f)) & (names - moving) == set()]
            if len(keep) == len(movable):
                break
            movable = keep
        if not movable:
            continue
        nl = newline_of(text)
        lines = tagged(rel, text)
        package = os.path.exists(os.path.join(root, os.path.dirname(rel), "__init__.py"))
        module = ("." if package else "") + stem + "_moved"
        header = []
        for n in imports:
            for i in range(n.lineno, n.end_lineno + 1):
                header.append([lines[i - 1][0].rstrip("\r\n") + nl, None])
        new_module = header
        spans = []
        for f in movable:
            s, e = first_line(f), f.end_lineno
            new_module.append([nl, None])
            new_module += [[lines[i - 1][0] if lines[i - 1][0].endswith("\n") else lines[i - 1][0] + nl,
                            lines[i - 1][1]] for i in range(s, e + 1)]
            spans.append((s, e, f.name))
        for s, e, name in sorted(spans, reverse=True):
            lines[s - 1:e] = [["from %s import %s%s" % (module, name, nl), None]]
        layout[rel] = lines
        layout[target] = new_module
    for rel, lines in layout.items():
        write(root, rel, "".join(t for t, _ in lines))
    return moves(layout)


# ---- wrap ----------------------------------------------------------------------------------------


class Scopes(ast.NodeVisitor):
    """The `for` statements inside functions, each with the chain of functions around it."""

    def __init__(self):
        self.stack, self.loops = [], []

    def visit_FunctionDef(self, node):
        self.stack.append(node)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        saved, self.stack = self.stack, []
        self.generic_visit(node)
        self.stack = saved

    def visit_For(self, node):
        if self.stack:
            self.loops.append((node, list(self.stack)))
        self.generic_visit(node)


def own_nodes(stmts):
    """The nodes of statements, not entering nested functions, lambdas, classes or comprehensions."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
                                  ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                todo.append(c)


def leaves_loop(body):
    """Whether a statement of the body leaves the loop other than by falling through."""
    def walk(nodes, in_inner_loop):
        for n in nodes:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
                return True
            if isinstance(n, (ast.Break, ast.Continue)) and not in_inner_loop:
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super":
                return True
            inner = in_inner_loop or isinstance(n, (ast.For, ast.While, ast.AsyncFor))
            if walk(list(ast.iter_child_nodes(n)), inner):
                return True
        return False
    return walk(body, False)


def stored(stmts):
    return {bound_name(n) for n in own_nodes(stmts)} - {None}


def wrap(root):
    layout = {}
    for rel in python_files(root):
        text = read(root, rel)
        tree = parse(text)
        if tree is None:
            continue
        scopes = Scopes()
        scopes.visit(tree)
        lines = text.splitlines(True)
        nl = newline_of(text)
        taken, helpers, calls = [], [], {}
        for loop, funcs in scopes.loops:
            s, e = loop.body[0].lineno, loop.body[-1].end_lineno
            if loop.orelse or s == loop.lineno or any(a <= loop.lineno <= b for a, b in taken):
                continue
            if leaves_loop(loop.body):
                continue
            indent = lines[s - 1][:len(lines[s - 1]) - len(lines[s - 1].lstrip())]
            body = lines[s - 1:e]
            if any(x.strip() and not x.startswith(indent) for x in body) or "\t" in indent:
                continue
            inner = funcs[-1]
            # the names of the functions around the loop: their parameters and what they bind
            local = set()
            for f in funcs:
                local |= bound_in(f) - {f.name}
            rest_nodes = [n for n in ast.walk(inner) if n is not inner]
            in_body = set()
            for st in loop.body:
                in_body.update(ast.walk(st))
            targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            in_target = set(ast.walk(loop.target))
            outside = set()
            for n in rest_nodes:
                if n in in_body or n in in_target:
                    continue
                if isinstance(n, ast.Name):
                    outside.add(n.id)
                elif isinstance(n, ast.arg):
                    outside.add(n.arg)
            for f in funcs[:-1]:
                outside |= {n.id for n in ast.walk(f) if isinstance(n, ast.Name) and n not in in_body}
            binds = stored(loop.body)
            if binds & outside:
                continue
            reads = set()
            for st in loop.body:
                reads |= {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            params = sorted((reads & local) - (binds - targets))
            name = "_loop_body_%d" % (len(helpers) + 1)
            taken.append((s, e))
            calls[(s, e)] = "%s%s(%s)%s" % (indent, name, ", ".join(params), nl)
            helper = [[nl, None], ["def %s(%s):%s" % (name, ", ".join(params), nl), None]]
            for i in range(s, e + 1):
                x = lines[i - 1]
                x = x if x.endswith("\n") else x + nl
                helper.append(["    " + x[len(indent):] if x.strip() else x, (rel, i)])
            helpers.append(helper)
        if not helpers:
            continue
        out = tagged(rel, text)
        if out and not out[-1][0].endswith("\n"):
            out[-1][0] += nl
        for (s, e), call in sorted(calls.items(), reverse=True):
            out[s - 1:e] = [[call, None]]
        for h in helpers:
            out += h
        layout[rel] = out
    for rel, lines in layout.items():
        write(root, rel, "".join(t for t, _ in lines))
    return moves(layout)


REFACTORINGS = [("rename", rename), ("move", move), ("wrap", wrap)]
