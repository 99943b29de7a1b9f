#!/usr/bin/env bash
# ci_templates.sh - the GitHub Action (action.yml) and the GitLab CI template
# (ci/trainlint.gitlab-ci.yml), run step by step as their runners would: the action's `run` steps
# with its inputs, GITHUB_ACTION_PATH, RUNNER_TEMP and GITHUB_PATH (building the revision named by
# `version` from a clone), then the upload step's wiring checked; the template's script lines with
# its variables. Both build offline (the build's grammar tarballs, an npm that fails) and must
# report the findings of examples/ (SARIF, GitHub annotations, a Code Quality report).
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
python3 -c 'import yaml' 2>/dev/null || { echo "FAIL: PyYAML is missing (scripts/setup.sh --tests installs python3-yaml)"; echo "0 passed, 1 failed"; exit 1; }
build=$(cd "$(dirname "$bin")" && pwd)
[ -d "$build/grammars" ] || build=$(cd "$src" && pwd)/build
mkdir -p "$tmp/tarballs" "$tmp/nonet" "$tmp/runner" "$tmp/ws"
find "$build/grammars" -name '*.tgz' -exec cp {} "$tmp/tarballs/" \;
printf '#!/bin/sh\necho "npm: no network here" >&2\nexit 1\n' > "$tmp/nonet/npm" && chmod +x "$tmp/nonet/npm"
export PATH="$tmp/nonet:$PATH" TRAINLINT_GRAMMAR_DIR="$tmp/tarballs"
cp -r "$src/examples/." "$tmp/ws/"
want=$("$bin" check --exit-zero --format concise "$src/examples" 2>&1 | grep -c ' TL[0-9]')

# --- the GitHub Action ---
git clone -q "$src" "$tmp/action" 2> "$tmp/clone.err" && ok || bad "clone: $(cat "$tmp/clone.err")"
branch=$(git -C "$src" rev-parse --abbrev-ref HEAD)
# run.py STEP-INDEX INPUT=VALUE...: prints the step's shell script with its env, inputs resolved
cat > "$tmp/step.py" <<'PY'
import re, shlex, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
step = doc["runs"]["steps"][int(sys.argv[2])]
inputs = {k: str(v.get("default", "")) for k, v in doc["inputs"].items()}
inputs.update(a.split("=", 1) for a in sys.argv[3:])
sub = lambda s: re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], str(s))
assert step.get("shell") == "bash", step
for k, v in (step.get("env") or {}).items():
    print("export %s=%s" % (k, shlex.quote(sub(v))))
assert "${{" not in sub(step["run"]), "an expression the runner would have to evaluate in the script"
print(sub(step["run"]))
PY
gh_run() { # STEP INPUTS...: runs a step as the runner does (bash -e, GITHUB_PATH entries on PATH)
  local s=$1; shift
  python3 "$tmp/step.py" "$src/action.yml" "$s" "$@" > "$tmp/step$s.sh" || return 99
  ( cd "$tmp/ws" && PATH="$(tac "$tmp/github_path" 2>/dev/null | tr '\n' ':')$PATH" GITHUB_ACTION_PATH="$tmp/action" \
      RUNNER_TEMP="$tmp/runner" GITHUB_PATH="$tmp/github_path" bash -e "$tmp/step$s.sh" )
}
gh_run 0 "version=$branch" > "$tmp/gh0.out" 2>&1 && [ -x "$tmp/runner/trainlint/bin/trainlint" ] &&
  grep -qx "$tmp/runner/trainlint/bin" "$tmp/github_path" && ok || bad "action: install step: $(tail -20 "$tmp/gh0.out")"
gh_run 1 > "$tmp/gh1.out" 2>&1; rc=$?
[ "$rc" = 1 ] && [ "$(grep -c '^::warning file=' "$tmp/gh1.out")" -ge 1 ] && ok || bad "action: check step: exit $rc: $(tail -5 "$tmp/gh1.out")"
python3 - "$tmp/ws/trainlint.sarif" "$want" <<'PY' && ok || bad "action: SARIF report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and len(d["runs"][0]["results"]) == int(sys.argv[2]), len(d["runs"][0]["results"])
PY
gh_run 1 fail-on-findings=false sarif-file=out.sarif > "$tmp/gh1b.out" 2>&1 && [ -s "$tmp/ws/out.sarif" ] && ok ||
  bad "action: fail-on-findings=false: $(tail -5 "$tmp/gh1b.out")"
python3 - "$src/action.yml" <<'PY' && ok || bad "action: upload step"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
up = doc["runs"]["steps"][2]
assert doc["runs"]["using"] == "composite"
assert up["uses"].startswith("github/codeql-action/upload-sarif@"), up
assert up["with"]["sarif_file"] == "${{ inputs.sarif-file }}" and "inputs.upload-sarif" in up["if"], up
assert doc["outputs"]["sarif-file"]["value"] == "${{ inputs.sarif-file }}"
PY

# --- the GitLab CI template ---
python3 - "$src/ci/trainlint.gitlab-ci.yml" > "$tmp/gl.sh" <<'PY' && ok || bad "gitlab: template"
import shlex, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["trainlint"]
assert job["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
for k, v in job["variables"].items():  # the test's own values win, as CI/CD variables do
    print('export %s="${%s-%s}"' % (k, k, v.replace('"', '\\"')))
for line in job["script"]:
    print(line)
PY
( cd "$tmp/ws" && rm -f gl-code-quality-report.json && TRAINLINT_DIR="$src" TRAINLINT_PREFIX="$tmp/glprefix" \
    TRAINLINT_BUILD_DIR="$tmp/glbuild" bash -e "$tmp/gl.sh" ) > "$tmp/gl.out" 2>&1; rc=$?
# the last line fails the job on findings, after the report is written
[ "$rc" = 1 ] && grep -q ' TL101 ' "$tmp/gl.out" && ok || bad "gitlab: script: exit $rc: $(tail -20 "$tmp/gl.out")"
python3 - "$tmp/ws/gl-code-quality-report.json" "$want" <<'PY' && ok || bad "gitlab: Code Quality report"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == int(sys.argv[2]) and all(i["location"]["path"] for i in d), d[:1]
PY
finish
