"""trainlint_build.py - the PEP 517 build backend of pyproject.toml, standard library only.

build_wheel configures a lean CMake build (-DTRAINLINT_TESTS=OFF), builds the trainlint
executable and packs it as a wheel's script, so `pip install` puts it on PATH. build_sdist packs
the files git tracks plus the two pinned grammar tarballs (grammars/dist/), so that the sdist
builds without the network: build_wheel passes grammars/dist/ to -DTRAINLINT_GRAMMAR_DIR when it
is there. The executable links the system's libtree-sitter, libpcre2-8 and libcjson (the Debian
packages of the README), so the wheel is tagged for this platform only (linux_x86_64, not
manylinux): it installs where it was built, or on a machine with the same libraries.
"""
import base64
import glob
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "trainlint"


def _project():
    """name, version, description, requires-python from pyproject.toml's [project] (flat keys)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    out = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), section, re.M)
        out[key] = m.group(1) if m else ""
    return out


def _metadata():
    p = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: MIT\nRequires-Python: %s\n"
            "Description-Content-Type: text/markdown\n\n%s" % (p["name"], p["version"], p["description"],
                                                             p["requires-python"], readme))


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _grammar_dir():
    """Where the pinned grammar tarballs are: grammars/dist/ (an sdist), $TRAINLINT_GRAMMAR_DIR, or None
    (CMake then fetches them)."""
    dist = os.path.join(ROOT, "grammars", "dist")
    if glob.glob(os.path.join(dist, "*.tgz")):
        return dist
    env = os.environ.get("TRAINLINT_GRAMMAR_DIR")
    return env if env and os.path.isdir(env) else None


def _run(cmd):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build_executable(work):
    build, stage = os.path.join(work, "build"), os.path.join(work, "stage")
    cmd = ["cmake", "-S", ROOT, "-B", build, "-DTRAINLINT_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"]
    g = _grammar_dir()
    if g:
        cmd.append("-DTRAINLINT_GRAMMAR_DIR=" + g)
    _run(cmd)
    _run(["cmake", "--build", build, "-j", str(max(1, len(os.sched_getaffinity(0))))])
    _run(["cmake", "--install", build, "--prefix", stage])
    return os.path.join(stage, "bin", NAME)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _add(zf, records, arcname, data, mode=0o644):
    info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
    records.append(_record_line(arcname, data))


# ---- PEP 517 hooks ---------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    tag = "py3-none-" + _platform_tag()
    wheel_name = "%s-%s-%s.whl" % (NAME, p["version"], tag)
    dist_info = "%s-%s.dist-info" % (NAME, p["version"])
    with tempfile.TemporaryDirectory(prefix="trainlint-wheel-") as work:
        exe = _build_executable(work)
        with open(exe, "rb") as f:
            binary = f.read()
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        licence = f.read()
    wheel_meta = "Wheel-Version: 1.0\nGenerator: trainlint_build\nRoot-Is-Purelib: false\nTag: %s\n" % tag
    records = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w") as zf:
        _add(zf, records, "%s-%s.data/scripts/%s" % (NAME, p["version"], NAME), binary, 0o755)
        _add(zf, records, dist_info + "/METADATA", _metadata().encode())
        _add(zf, records, dist_info + "/WHEEL", wheel_meta.encode())
        _add(zf, records, dist_info + "/LICENSE", licence)
        records.append(dist_info + "/RECORD,,")
        _add(zf, [], dist_info + "/RECORD", ("\n".join(records) + "\n").encode())
    return wheel_name


def _tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: every file but the build's
        files = []
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".git"))]
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
        return files


def _grammar_tarballs():
    """The pinned grammar tarballs to ship: grammars/dist/, $TRAINLINT_GRAMMAR_DIR, or a build
    directory's (build*/grammars/), one of each name."""
    found = {}
    dirs = [os.path.join(ROOT, "grammars", "dist"), os.environ.get("TRAINLINT_GRAMMAR_DIR") or ""]
    dirs += sorted(glob.glob(os.path.join(ROOT, "build*", "grammars")))
    for d in dirs:
        for t in glob.glob(os.path.join(d, "**", "*.tgz"), recursive=True) if d else []:
            found.setdefault(os.path.basename(t), t)
    return sorted(found.values())


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = "%s-%s" % (NAME, p["version"])
    tarballs = _grammar_tarballs()
    if len(tarballs) < 2:
        raise RuntimeError("the sdist ships the two pinned grammar tarballs: configure a build first (they are "
                           "fetched into build*/grammars/) or set TRAINLINT_GRAMMAR_DIR")
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for rel in _tracked_files():
            full = os.path.join(ROOT, rel)
            if os.path.isfile(full) and not rel.startswith("grammars/dist/"):
                tf.add(full, arcname=base + "/" + rel, recursive=False)
        for t in tarballs:
            tf.add(t, arcname=base + "/grammars/dist/" + os.path.basename(t))
        data = _metadata().encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(data)
        info.mtime = 1767225600
        tf.addfile(info, io.BytesIO(data))
    return os.path.basename(path)
