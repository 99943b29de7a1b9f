#!/usr/bin/env python3
"""bench.py - re-diagnosis latency of `trainlint server` while typing in a large file.

usage: bench.py TRAINLINT [--lines N] [--edits FILE] [--rounds N] [--jobs N] [--debounce MS]
                [--pin CPU] [--workdir DIR] [--extra DIR] [--json FILE] [--record]

Builds a workspace: a copy of examples/ (and of --extra DIR, for a large project) plus `big.py`, a file of about N lines (default 5000)
made of renamed copies of examples/train.py (step loops, DataLoaders, findings all along).
Starts `TRAINLINT server -j N --verbose` (pinned to one CPU with taskset when --pin is given),
opens big.py, then replays the recorded edits (bench/lsp/edits.json: one-character insertions
and deletions as an editor sends them, UTF-16 positions relative to a line of the file's middle
third) `--rounds` times, and measures for each edit:
  push: didChange sent -> publishDiagnostics for that version received (includes the debounce)
  pull: didChange + textDocument/diagnostic sent together -> the diagnostic report received
and, from the server's --verbose log, the time of each analysis (engine + diagnostics).
Prints medians, 90th percentiles and maxima in milliseconds.

--record makes a new recording instead: Neovim (0.7+) runs bench/lsp/record.lua, which types
into big.py through the editor while its LSP client talks to the server through `tee`; the
didChange notifications it sent are written to --edits.
"""
import argparse
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def uri(p):
    from urllib.parse import quote
    return "file://" + quote(p, safe="/")


def make_workspace(workdir, lines, extra=None):
    ws = os.path.join(workdir, "workspace")
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "examples"), ws)
    if extra:  # a large workspace: the server loads and analyses every file of it
        shutil.copytree(extra, os.path.join(ws, "extra"))
    src = open(os.path.join(ROOT, "examples", "train.py"), encoding="utf-8").read()
    parts, n, i = [], 0, 0
    while n < lines:
        part = re.sub(r"\bdef (\w+)", lambda m: "def %s_%d" % (m.group(1), i), src)
        part = re.sub(r"\bclass (\w+)", lambda m: "class %s%d" % (m.group(1), i), part)
        parts.append(part)
        n += part.count("\n")
        i += 1
    text = "".join(parts)
    path = os.path.join(ws, "big.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return ws, path, text


class Server:
    def __init__(self, cmd, cwd, stderr):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=cwd)
        self.buf = b""
        self.next_id = 0

    def send(self, *msgs):
        data = b""
        for m in msgs:
            body = json.dumps(m, ensure_ascii=False).encode("utf-8")
            data += b"Content-Length: %d\r\n\r\n" % len(body) + body
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        return {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}

    def read(self, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            m = re.match(rb"Content-Length: (\d+)\r\n\r\n", self.buf)
            if m and len(self.buf) >= m.end() + int(m.group(1)):
                n = int(m.group(1))
                body, self.buf = self.buf[m.end():m.end() + n], self.buf[m.end() + n:]
                msg = json.loads(body)
                if "method" in msg and "id" in msg:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                return msg
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise RuntimeError("no message from the server within %ss" % timeout)
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                raise RuntimeError("the server exited")
            self.buf += chunk

    def wait_for(self, pred, timeout=60):
        while True:
            m = self.read(timeout)
            if pred(m):
                return m


def cpu_ms(pid):
    """User + system CPU time of a process so far (ms), from /proc; None where there is none."""
    try:
        fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1e3 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def summary(name, values):
    return "%-38s median %7.2f ms   p90 %7.2f ms   max %7.2f ms   (n=%d)" % (
        name, statistics.median(values), pct(values, 0.9), max(values), len(values))


ANCHOR = "            optimizer.step()"


def record(a, workdir, path, text):
    lines = text.split("\n")
    base = [i for i, l in enumerate(lines) if l == ANCHOR and i >= len(lines) // 3][0]
    log = os.path.join(workdir, "client.log")
    env = dict(os.environ, TL_BIN=os.path.abspath(a.trainlint), TL_FILE=path, TL_ANCHOR=str(base), TL_LOG=log,
               XDG_CACHE_HOME=os.path.join(workdir, "cache"), XDG_STATE_HOME=os.path.join(workdir, "state"))
    subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c",
                    "luafile " + os.path.join(HERE, "record.lua")], env=env, stdin=subprocess.DEVNULL, timeout=300,
                   check=True)
    data, edits = open(log, "rb").read(), []
    while data:
        m = re.match(rb"Content-Length: (\d+)\r\n\r\n", data)
        n = int(m.group(1))
        msg, data = json.loads(data[m.end():m.end() + n]), data[m.end() + n:]
        if msg.get("method") != "textDocument/didChange":
            continue
        for c in msg["params"]["contentChanges"]:
            r = c["range"]
            edits.append({"range": [r["start"]["line"] - base, r["start"]["character"], r["end"]["line"] - base,
                                    r["end"]["character"]], "text": c["text"]})
    version = subprocess.run(["nvim", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    about = ("didChange edits recorded from %s's LSP client (bench/lsp/record.lua): a new line after the anchor, "
             "`grad_norm = loss.item()  # größe 🚀` typed one character at a time, backspaced away, the line "
             "deleted, then a `0` of `step % 100` deleted and typed again. range = [start line, start character, "
             "end line, end character], lines relative to the anchor line, characters in UTF-16 units." % version)
    out = json.dumps({"about": about, "anchor": ANCHOR, "edits": edits}, ensure_ascii=False)
    with open(a.edits, "w", encoding="utf-8") as f:
        f.write(out.replace('{"range"', '\n  {"range"') + "\n")
    print("recorded %d edits into %s" % (len(edits), a.edits))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trainlint")
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--edits", default=os.path.join(HERE, "edits.json"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--debounce", type=int, default=None)
    ap.add_argument("--pin", default=None, help="CPU to pin the server to (taskset -c)")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--extra", default=None, help="a directory copied into the workspace (a large project)")
    ap.add_argument("--json", default=None, help="also write the results as JSON to this file")
    ap.add_argument("--record", action="store_true", help="record new edits with Neovim (see above)")
    a = ap.parse_args()

    workdir = a.workdir or tempfile.mkdtemp(prefix="tl-lsp-bench-")
    ws, path, text = make_workspace(workdir, a.lines, a.extra)
    nlines = text.count("\n")
    if a.record:
        return record(a, workdir, path, text)
    rec = json.load(open(a.edits, encoding="utf-8"))
    # the recorded edits are relative to one line: put it in the middle of the file, on a line
    # inside a step loop of the copy of train.py there (the recording's anchor text)
    lines = text.split("\n")
    anchor = rec["anchor"]
    mid = [i for i, l in enumerate(lines) if l == anchor and i >= nlines // 3]
    if not mid:
        sys.exit("bench.py: anchor line %r not found in the middle third of big.py" % anchor)
    base_line = mid[0]

    cmd = [os.path.abspath(a.trainlint), "server", "-j", str(a.jobs), "--verbose"]
    if a.debounce is not None:
        cmd += ["--debounce", str(a.debounce)]
    if a.pin is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(a.pin)] + cmd
    errpath = os.path.join(workdir, "server.stderr")
    err = open(errpath, "wb")
    s = Server(cmd, ws, err)
    doc = uri(path)
    s.send(s.request("initialize", {"rootUri": uri(ws), "capabilities": {
        "textDocument": {"publishDiagnostics": {"relatedInformation": True}}}}))
    s.wait_for(lambda m: m.get("id") == 1)
    s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    t0 = time.monotonic()
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": doc, "languageId": "python", "version": 1, "text": text}}})
    first = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == doc)
    open_ms = (time.monotonic() - t0) * 1e3
    ndiag = len(first["params"]["diagnostics"])

    version = 1
    push, pull, counts = [], [], []
    load0, cpu0 = loadavg(), cpu_ms(s.p.pid)
    for rnd in range(a.rounds):
        for mode in ("push", "pull"):
            for e in rec["edits"]:
                version += 1
                r = e["range"]
                change = {"range": {"start": {"line": base_line + r[0], "character": r[1]},
                                    "end": {"line": base_line + r[2], "character": r[3]}}, "text": e["text"]}
                didchange = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": doc, "version": version}, "contentChanges": [change]}}
                if mode == "push":
                    t = time.monotonic()
                    s.send(didchange)
                    m = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                   and m["params"]["uri"] == doc and m["params"].get("version") == version)
                    push.append((time.monotonic() - t) * 1e3)
                    counts.append(len(m["params"]["diagnostics"]))
                else:
                    req = s.request("textDocument/diagnostic", {"textDocument": {"uri": doc}})
                    t = time.monotonic()
                    s.send(didchange, req)
                    s.wait_for(lambda m: m.get("id") == req["id"])
                    pull.append((time.monotonic() - t) * 1e3)
    cpu1, load1 = cpu_ms(s.p.pid), loadavg()
    s.send(s.request("shutdown", None))
    s.wait_for(lambda m: m.get("id") == s.next_id)
    s.send({"jsonrpc": "2.0", "method": "exit"})
    rc = s.p.wait(30)
    err.close()
    runs = [float(x) for x in re.findall(r"analysis \d+: .*?, ([0-9.]+) ms \(engine", open(errpath).read())]
    engine = [float(x) for x in re.findall(r"\(engine ([0-9.]+) ms\)", open(errpath).read())]

    cpu = "?"
    for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace") if os.path.exists("/proc/cpuinfo") else []:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    print("trainlint server latency: %s (%d lines, %d bytes, %d diagnostics), %d recorded edits x %d rounds"
          % (os.path.relpath(path, workdir), nlines, len(text.encode("utf-8")), ndiag, len(rec["edits"]), a.rounds))
    print("machine: %s, %d CPUs online; server: -j %d%s" % (cpu, os.cpu_count() or 0, a.jobs,
                                                           ", pinned to CPU %s" % a.pin if a.pin is not None else ""))
    print("open (first analysis of big.py, workspace already loaded): %.1f ms" % open_ms)
    print(summary("edit -> publishDiagnostics (push)", push))
    print(summary("edit -> pull report (no debounce)", pull))
    if runs:
        print(summary("analysis in the server (per edit)", runs[1:]))
        print(summary("  of which tl_analysis_run", engine[1:]))
    nruns = max(1, len(runs) - 1)
    if cpu0 is not None and cpu1 is not None:
        print("server CPU time (user+system) per analysis: %.2f ms (%.0f ms over %d analyses; insensitive to "
              "waiting for a CPU, unlike the wall times above)" % ((cpu1 - cpu0) / nruns, cpu1 - cpu0, nruns))
    print("load average (1 min) at the start / end of the replay: %s / %s" % (load0, load1))
    print("diagnostics per publish: %d..%d; server exit status %d" % (min(counts), max(counts), rc))
    if a.json:
        json.dump({"lines": nlines, "push_ms": push, "pull_ms": pull, "analysis_ms": runs[1:],
                   "engine_ms": engine[1:], "cpu": cpu, "jobs": a.jobs,
                   "server_cpu_ms_per_analysis": (cpu1 - cpu0) / nruns if cpu0 is not None and cpu1 is not None else None,
                   "loadavg": [load0, load1]}, open(a.json, "w"), indent=1)
    if not a.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
