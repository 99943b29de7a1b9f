#!/usr/bin/env python3
"""drive.py - runs scripted LSP sessions against `trainlint server` and checks its answers.

usage: drive.py TRAINLINT SESSION...

A session file holds one directive per line (a line starting with whitespace continues the one
before it, so JSON can span lines; `#` starts a comment line):

  project DIR            copy tests/lsp/DIR to a fresh temporary directory: $ROOT, $ROOTURI
  start [ARG...]         start `TRAINLINT server ARG...` (done implicitly by the first send)
  send JSON              send one message (after substitutions, see below)
  send-together [JSON, ...]  send several messages in one write (the server reads them at once)
  raw PYTHON-STRING      send these bytes as they are (a Python string literal: "Content-..\\r\\n")
  open FILE [LANG]       textDocument/didOpen of $ROOT/FILE with its contents (version 1)
  write FILE PYTHON-EXPR write a file of the project on disk (the expression may use `root`)
  expect JSON            wait for the next message that answers request `id`, or has `method`
                         (and, for publishDiagnostics, the same params.uri); it must match JSON
  expect-within MS JSON  the same, arriving within MS milliseconds
  apply ID N FILE VERSION   apply the edit of code action N of the answer to request ID to FILE
                         on disk (as a client does) and send its new text as didChange VERSION
  check PYTHON-EXPR      the expression (which may use `root`) is true
  nothing METHOD MS      no message with METHOD arrives within MS milliseconds (nor has one
                         arrived unmatched)
  log REGEX              the server's standard error so far matches REGEX (re.search)
  exit CODE              close stdin if still open, wait for the server to exit with CODE

Substitutions: $ROOTURI, $ROOT, $URI(file), $TEXT(file) (a JSON string of the file's contents).
Matching: objects match when every expected key matches ("$ABSENT": the key must be missing);
arrays must have the same length and match element-wise; "$ANY" matches any value; a string
"$RE:pattern" is a regular expression (re.search). Other values must be equal.
Unmatched messages are kept, in order, for later `expect`s. Requests from the server
(workspace/diagnostic/refresh, client/registerCapability) are answered with a null result.
The server's stderr must not show sanitizer reports.
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = float(os.environ.get("TL_LSP_TIMEOUT", "20"))


class Failure(Exception):
    pass


def path_to_uri(p):
    from urllib.parse import quote
    return "file://" + quote(p, safe="/")


class Server:
    def __init__(self, binary, args, cwd, stderr_path):
        self.err = open(stderr_path, "wb")
        self.p = subprocess.Popen([binary, "server"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, cwd=cwd)
        self.buf = b""
        self.backlog = []
        self.log = []

    def send_bytes(self, data):
        self.log.append("> " + data.decode("utf-8", "replace")[:300])
        self.p.stdin.write(data)
        self.p.stdin.flush()

    @staticmethod
    def frame(msg):
        body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    def send(self, msg):
        self.send_bytes(self.frame(msg))

    def _read_message(self, deadline):
        while True:
            m = re.match(rb"Content-Length: (\d+)\r\n\r\n", self.buf)
            if m:
                n = int(m.group(1))
                if len(self.buf) >= m.end() + n:
                    body = self.buf[m.end():m.end() + n]
                    self.buf = self.buf[m.end() + n:]
                    msg = json.loads(body)
                    self.log.append("< " + body.decode("utf-8", "replace")[:300])
                    if "method" in msg and "id" in msg:  # a request from the server
                        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                    return msg
            elif len(self.buf) > 64 and not self.buf.startswith(b"Content-Length"):
                raise Failure("bad frame from the server: %r" % self.buf[:80])
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buf += chunk

    def next_matching(self, key, timeout):
        for i, m in enumerate(self.backlog):
            if key(m):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m is None:
                return None
            if key(m):
                return m
            self.backlog.append(m)


def match(want, got, where="$"):
    if want == "$ANY":
        return
    if isinstance(want, str) and want.startswith("$RE:"):
        if not isinstance(got, str) or not re.search(want[4:], got):
            raise Failure("%s: %r does not match /%s/" % (where, got, want[4:]))
        return
    if isinstance(want, dict):
        if not isinstance(got, dict):
            raise Failure("%s: want an object, got %r" % (where, got))
        for k, v in want.items():
            if v == "$ABSENT":
                if k in got:
                    raise Failure("%s.%s: should be absent, got %r" % (where, k, got[k]))
                continue
            if k not in got:
                raise Failure("%s.%s: missing (have %s)" % (where, k, sorted(got)))
            match(v, got[k], "%s.%s" % (where, k))
        return
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            raise Failure("%s: want %d elements, got %s" % (where, len(want), json.dumps(got)[:600]))
        for i, (w, g) in enumerate(zip(want, got)):
            match(w, g, "%s[%d]" % (where, i))
        return
    if want != got:
        raise Failure("%s: want %r, got %r" % (where, want, got))


def utf16_offset(text, line, character):
    """The str index of an LSP position (UTF-16 character) in text."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    if line >= len(starts):
        return len(text)
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    body = text[starts[line]:end].rstrip("\r\n")
    units = body.encode("utf-16-le")[:2 * character]
    return starts[line] + len(units.decode("utf-16-le", "ignore"))


def apply_edits(text, edits):
    """Applies LSP TextEdits (all relative to the original text) the way a client does."""
    spans = []
    for i, e in enumerate(edits):
        r = e["range"]
        a = utf16_offset(text, r["start"]["line"], r["start"]["character"])
        b = utf16_offset(text, r["end"]["line"], r["end"]["character"])
        spans.append((a, i, b, e["newText"]))
    for a, _, b, new in sorted(spans, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def directives(path):
    out = []
    for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and out:
            out[-1][1] += "\n" + line.rstrip("\n")
            continue
        out.append([lineno, line.rstrip("\n")])
    return out


def run_session(binary, session, workdir):
    name = os.path.basename(session)
    root = None
    server = None
    stderr_path = os.path.join(workdir, name + ".stderr")

    def subst(text):
        if root is None:
            return text
        text = re.sub(r"\$URI\(([^)]*)\)", lambda m: path_to_uri(os.path.join(root, m.group(1))), text)
        text = re.sub(r"\$TEXT\(([^)]*)\)",
                      lambda m: json.dumps(open(os.path.join(root, m.group(1)), encoding="utf-8").read()), text)
        return text.replace("$ROOTURI", path_to_uri(root)).replace("$ROOT", root)

    responses = {}

    def ensure_started(args=()):
        nonlocal server
        if server is None:
            server = Server(binary, list(args), root or workdir, stderr_path)
        return server

    try:
        for lineno, text in directives(session):
            cmd, _, arg = text.partition(" ")
            arg = arg.strip()
            where = "%s:%d" % (name, lineno)
            try:
                if cmd == "project":
                    root = os.path.join(workdir, name + ".project")
                    shutil.copytree(os.path.join(HERE, arg), root)
                elif cmd == "start":
                    ensure_started(arg.split() if arg else [])
                elif cmd == "send":
                    ensure_started().send(json.loads(subst(arg)))
                elif cmd == "send-together":
                    ensure_started().send_bytes(b"".join(Server.frame(m) for m in json.loads(subst(arg))))
                elif cmd == "raw":
                    ensure_started().send_bytes(eval(arg).encode("utf-8"))
                elif cmd == "open":
                    parts = arg.split()
                    rel, lang = parts[0], parts[1] if len(parts) > 1 else "python"
                    ensure_started().send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                        "textDocument": {"uri": path_to_uri(os.path.join(root, rel)), "languageId": lang,
                                         "version": 1,
                                         "text": open(os.path.join(root, rel), encoding="utf-8").read()}}})
                elif cmd == "write":
                    rel, _, lit = arg.partition(" ")
                    content = eval(lit)  # may read the file first
                    with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                        f.write(content)
                elif cmd in ("expect", "expect-within"):
                    timeout = TIMEOUT
                    if cmd == "expect-within":
                        ms, _, arg = arg.partition(" ")
                        timeout = int(ms) / 1000.0
                    want = json.loads(subst(arg))
                    s = ensure_started()
                    if "method" in want:
                        uri = want.get("params", {}).get("uri") if isinstance(want.get("params"), dict) else None
                        key = lambda m: m.get("method") == want["method"] and (uri is None or m.get("params", {}).get("uri") == uri)
                    else:
                        key = lambda m: "method" not in m and m.get("id") == want.get("id")
                    got = s.next_matching(key, timeout)
                    if got is None:
                        raise Failure("no message for %s within %gs" % (json.dumps(want)[:200], timeout))
                    if "method" not in got:
                        responses[json.dumps(got.get("id"))] = got
                    try:
                        match(want, got)
                    except Failure as e:
                        raise Failure("%s\n  got: %s" % (e, json.dumps(got, ensure_ascii=False)[:2000]))
                elif cmd == "apply":
                    rid, index, rel, version = arg.split()
                    resp = responses.get(json.dumps(json.loads(rid)))
                    if resp is None:
                        raise Failure("no response %s to apply" % rid)
                    edit = resp["result"][int(index)]["edit"]
                    uri = path_to_uri(os.path.join(root, rel))
                    if "documentChanges" in edit:
                        edits = [e for dc in edit["documentChanges"] if dc["textDocument"]["uri"] == uri for e in dc["edits"]]
                    else:
                        edits = edit["changes"][uri]
                    path = os.path.join(root, rel)
                    text = apply_edits(open(path, encoding="utf-8").read(), edits)
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                    ensure_started().send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                        "textDocument": {"uri": uri, "version": int(version)}, "contentChanges": [{"text": text}]}})
                elif cmd == "check":
                    if not eval(arg):
                        raise Failure("check failed: %s" % arg)
                elif cmd == "nothing":
                    method, ms = arg.split()
                    s = ensure_started()
                    got = s.next_matching(lambda m: m.get("method") == method, int(ms) / 1000.0)
                    if got is not None:
                        raise Failure("unexpected %s: %s" % (method, json.dumps(got)[:600]))
                elif cmd == "log":
                    ensure_started().err.flush()
                    with open(stderr_path, encoding="utf-8", errors="replace") as f:
                        if not re.search(arg, f.read()):
                            raise Failure("the server's standard error does not match %r" % arg)
                elif cmd == "exit":
                    s = ensure_started()
                    try:
                        s.p.stdin.close()
                    except BrokenPipeError:
                        pass
                    try:
                        rc = s.p.wait(TIMEOUT)
                    except subprocess.TimeoutExpired:
                        s.p.kill()
                        raise Failure("the server did not exit")
                    if rc != int(arg):
                        raise Failure("exit code %d, want %s" % (rc, arg))
                else:
                    raise Failure("unknown directive %r" % cmd)
            except Failure as e:
                raise Failure("%s: %s" % (where, e))
        if server and server.p.poll() is None:
            raise Failure("%s: the session ended but the server is still running (add `exit`)" % name)
    except Failure as e:
        if server:
            if server.p.poll() is None:
                server.p.kill()
                server.p.wait()
            print("---- last messages of %s:" % name)
            for l in server.log[-12:]:
                print("   ", l)
        print("FAIL", e)
        return False
    finally:
        if server:
            server.err.close()
    err = open(stderr_path, encoding="utf-8", errors="replace").read()
    if re.search(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|WARNING: ThreadSanitizer", err):
        print("FAIL %s: sanitizer report:\n%s" % (name, err[-3000:]))
        return False
    print("ok  ", name)
    return True


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    workdir = tempfile.mkdtemp(prefix="tl-lsp-")
    passed = failed = 0
    for s in sys.argv[2:]:
        if run_session(binary, s, workdir):
            passed += 1
        else:
            failed += 1
    ok = failed == 0
    print("%d passed, %d failed" % (passed, failed))
    if ok:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print("(work files kept in %s)" % workdir)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
