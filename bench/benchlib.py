"""benchlib.py - claims, verdicts, results files, the text table and the SVG chart of bench/run (stdlib only)."""
import datetime
import json
import math
import os
import re
from xml.sax.saxutils import escape

RESULTS_SCHEMA = "trainlint-bench-results/1"
CONFIRMED, REFUTED, NOT_MEASURABLE = "confirmed", "refuted", "not measurable here"
# A timing whose spread straddles the claim is neither confirmed nor refuted; a claim that needs more
# GPUs than the run had may carry a paper estimate from what one GPU measured.
INCONCLUSIVE, ESTIMATED = "inconclusive", "estimated"
VERDICTS = (CONFIRMED, REFUTED, INCONCLUSIVE, ESTIMATED, NOT_MEASURABLE)
MIN_REPS = 5  # timed repetitions (after warm-up) each variant of a timed claim needs for a verdict
NO_DEVICE = "no CUDA device"


# --- loading --------------------------------------------------------------------------------------

def load_claims(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    ids = [c["id"] for c in doc["claims"]]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError("duplicate claim ids in %s: %s" % (path, ", ".join(dup)))
    return doc


def variant(bench, name):
    for v in bench.get("variants", []):
        if v.get("name") == name:
            return v
    return None


def gpu_count(env):
    return int(env.get("gpu_count") or 0)


# --- verdicts -------------------------------------------------------------------------------------

def _fmt_ratio(x):
    return "%.3g×" % x


def _fmt_bytes(n):
    return "%.3g GB" % (n / 1e9)


def _in_range(x, lo, hi, tol, two_sided, base=0.0):
    """(ok, where): where is 'below', 'within' or 'above' the claimed [lo, hi]. The tolerance
    widens the claimed effect (x - base): for a speed-up base is 1, so a claimed 3 % (1.03x) is
    not swallowed by a tolerance meant for noise."""
    e, elo, ehi = x - base, lo - base, hi - base
    if e < elo * (1 - tol):
        return False, "below"
    if e > ehi * (1 + tol):
        return (not two_sided), "above"
    return True, "within"


def _separated(anti, fix):
    """True when the fix's 10-90 % range lies wholly below the anti-pattern's."""
    return fix.get("p90", fix["max"]) < anti.get("p10", anti["min"])


def ratio_spread(anti, fix):
    """(lowest, highest) anti / fix ratio the repetitions allow. Where both variants kept their
    samples from interleaved rounds (the same count, `samples` in round order), the lowest and
    highest of the rounds' own ratios: a drift that slows a whole round cancels. Otherwise the
    slowest repetition of the fix against the fastest of the anti-pattern, and the other way."""
    a, f = anti.get("samples"), fix.get("samples")
    if a and f and len(a) == len(f) and all(x > 0 for x in f):
        ratios = [x / y for x, y in zip(a, f)]
        med = anti["median"] / fix["median"] if fix["median"] > 0 else math.inf
        return min(min(ratios), med), max(max(ratios), med)
    lo = anti["min"] / fix["max"] if fix["max"] > 0 else math.inf
    hi = anti["max"] / fix["min"] if fix["min"] > 0 else math.inf
    return lo, hi


def _too_few_reps(anti, fix):
    n = min(anti.get("reps", 0), fix.get("reps", 0))
    return n if n < MIN_REPS else None


def estimate(test, bench):
    """A paper estimate of an all-reduce claim that needs more GPUs than the run had, from what a
    one-GPU run of its benchmark recorded: the gradient bytes one all-reduce moves (G), the
    micro-step's time (T) and its backward's (T_b), the accumulation micro-steps (A). On `ranks`
    GPUs a ring all-reduce moves G x 2(n-1)/n bytes over each link, t = that / bandwidth, for each
    link of `test["estimate"]["links"]` ([name, GB/s per direction]). The anti-pattern all-reduces
    on every micro-step, the fix once per optimizer step, so the step's time ratio is
    (A T + A c) / (A T + c), c the all-reduce time left exposed: from c = max(0, t - T_b) (DDP
    overlaps the all-reduce with the backward wholly) to c = t (not at all). None when the test has
    no estimate or the benchmark recorded no inputs for one."""
    spec = test.get("estimate")
    if not spec or not bench or bench.get("status") != "ok":
        return None
    p = bench.get("params", {})
    try:
        G, T, Tb = float(p["grad_bytes"]), float(p["micro_step_ms"]), float(p["backward_ms"])
        A = int(p["accumulation_steps"])
    except (KeyError, TypeError, ValueError):
        return None
    if G <= 0 or T <= 0 or A < 2:
        return None
    n = int(spec.get("ranks", 2))
    parts, ranges = [], []
    for name, gbs in spec["links"]:
        t = G * 2 * (n - 1) / n / (float(gbs) * 1e9) * 1e3
        lo_c, hi_c = max(0.0, t - Tb), t
        lo = (A * T + A * lo_c) / (A * T + lo_c)
        hi = (A * T + A * hi_c) / (A * T + hi_c)
        ranges.append({"link": name, "gb_per_s": gbs, "allreduce_ms": t, "ratio": [lo, hi]})
        parts.append("%s–%s over %s (%g GB/s)" % ("%.3g" % lo, _fmt_ratio(hi), name, gbs))
    measured = "for %d GPUs: %s; from %.3g MB of gradients, a %.3g ms micro-step and a %.3g ms " \
               "backward measured on one GPU" % (n, ", ".join(parts), G / 1e6, T, Tb)
    why = ("a paper estimate, not a measurement: the ring all-reduce's time at each link's nominal "
           "bandwidth, from hidden behind the backward to not overlapped at all")
    return {"measured": measured, "why": why, "ranges": ranges}


def _range_text(lo, hi, unit=""):
    return ("%g%s" % (lo, unit)) if lo == hi else ("%g–%g%s" % (lo, hi, unit))


def _not_measurable(why):
    return {"verdict": NOT_MEASURABLE, "why": why}


def evaluate(claim, benches, env, default_tolerance=0.05):
    """The verdict on one claim. benches maps bench id -> result line; env has gpu_count.
    Returns {"verdict", "why", "measured", "value", "plot"}: value is the number compared with the
    claim; plot is {"ratio", "band"} for the chart (ratio = anti / fix) or None."""
    out = {"measured": "", "value": None, "plot": None}
    t = claim["test"]
    kind = t["type"]
    if kind == "none":
        out.update(_not_measurable(t.get("why", "no benchmark for this claim")))
        return out
    if gpu_count(env) < 1:
        out.update(_not_measurable(NO_DEVICE))
        return out
    need = t.get("requires_gpus", 1)
    if gpu_count(env) < need:
        why = "needs %s GPUs (found %d)" % ("two" if need == 2 else need, gpu_count(env))
        est = estimate(t, benches.get(t.get("bench")))
        if est:
            out.update(verdict=ESTIMATED, why="%s: %s" % (why, est["why"]), measured=est["measured"],
                       value=None, estimate=est["ranges"])
        else:
            out.update(_not_measurable(why))
        return out
    b = benches.get(t["bench"])
    if b is None:
        out.update(_not_measurable("benchmark %s did not run" % t["bench"]))
        return out
    status = b.get("status")
    if status != "ok":
        reason = b.get("reason") or status
        if status == "error":
            reason = "benchmark failed: %s" % (b.get("detail") or b.get("reason") or "?")
        out.update(_not_measurable(reason))
        return out
    anti, fix = variant(b, t["anti"]), variant(b, t["fix"])
    missing = [n for n, v in ((t["anti"], anti), (t["fix"], fix)) if v is None]
    if missing:
        errors = "; ".join("%s: %s" % (k, v) for k, v in sorted(b.get("params", {}).items())
                           if "error" in k)
        out.update(_not_measurable("variant %s not measured%s" % (
            " and ".join(repr(m) for m in missing), " (%s)" % errors if errors else "")))
        return out

    tol = t.get("tolerance", default_tolerance)
    unit = b.get("unit", "")
    time_ratio = anti["median"] / fix["median"] if fix["median"] > 0 else math.inf
    lo, hi = (t.get("range") or [None, None])
    two_sided = bool(t.get("two_sided"))

    few = _too_few_reps(anti, fix) if kind in ("speedup", "direction") else None
    rlo, rhi = ratio_spread(anti, fix)
    if kind in ("speedup", "direction", "removes_sync"):
        out["spread"] = [rlo if math.isfinite(rlo) else None, rhi if math.isfinite(rhi) else None]
    timing = "%s [%s–%s] (%.4g → %.4g %s)" % (_fmt_ratio(time_ratio), "%.3g" % rlo, "%.3g" % rhi,
                                            anti["median"], fix["median"], unit)

    if kind in ("speedup", "count_ratio"):
        if kind == "speedup":
            value, measured = time_ratio, timing
        else:
            m = t["metric"]
            a, f = anti.get(m), fix.get(m)
            if a is None or f is None or f <= 0:
                out.update(_not_measurable("%s not recorded" % m))
                return out
            value = a / f
            measured = "%s (%s %.4g → %.4g)" % (_fmt_ratio(value), m, a, f)
        claimed = _range_text(lo, hi, "×")
        plot = {"ratio": value, "band": [lo, hi]}
        if few:
            out.update(verdict=INCONCLUSIVE, why="%d timed repetitions, a verdict needs %d" % (few, MIN_REPS),
                       measured=measured, value=value, plot=plot)
            return out
        ok, where = _in_range(value, lo, hi, tol, two_sided, base=1.0 if kind == "speedup" else 0.0)
        if kind == "speedup":
            # a verdict only when the whole min–max spread of the ratio falls on one side of the claim
            ok_lo, where_lo = _in_range(rlo, lo, hi, tol, two_sided, base=1.0)
            ok_hi, where_hi = _in_range(rhi, lo, hi, tol, two_sided, base=1.0)
            if ok_lo != ok_hi or (not ok_lo and where_lo != where_hi):
                out.update(verdict=INCONCLUSIVE, why="the spread %s–%s straddles the claimed %s"
                           % ("%.3g" % rlo, _fmt_ratio(rhi), claimed), measured=measured, value=value, plot=plot)
                return out
        if ok:
            why = "within the claimed %s" % claimed if where == "within" else "larger than the claimed %s" % claimed
        elif where == "above":
            why = "larger than the claimed %s" % claimed
        elif value <= 1:
            why = "the fix is not faster" if kind == "speedup" else "the fix does not reduce it"
        else:
            why = "smaller than the claimed %s" % claimed
        out.update(verdict=CONFIRMED if ok else REFUTED, why=why, measured=measured, value=value, plot=plot)
        return out

    if kind == "direction":
        least = 1 + tol
        if few:
            verdict, why = INCONCLUSIVE, "%d timed repetitions, a verdict needs %d" % (few, MIN_REPS)
        elif rlo >= least:
            verdict, why = CONFIRMED, "the fix is faster by %g %% or more across the whole spread" % (tol * 100)
        elif rhi < 1:
            verdict, why = REFUTED, "the fix is slower across the whole spread"
        elif rhi < least:
            verdict, why = REFUTED, "under %g %% across the whole spread" % (tol * 100)
        else:
            verdict, why = INCONCLUSIVE, "the spread %s–%s straddles %s" % ("%.3g" % rlo, _fmt_ratio(rhi),
                                                                            _fmt_ratio(least))
        out.update(verdict=verdict, why=why, measured=timing, value=time_ratio,
                   plot={"ratio": time_ratio, "band": None})
        return out

    if kind == "removes_sync":
        m = t.get("metric", "syncs_per_step")
        a, f = anti.get(m), fix.get(m)
        if a is None or f is None:
            out.update(_not_measurable("sync counts not recorded (torch.cuda.set_sync_debug_mode)"))
            return out
        measured = "syncs/step %.3g → %.3g; time %s" % (a, f, timing)
        if f > 0:
            verdict, why = REFUTED, "the fix still syncs (%.3g per step)" % f
        elif a <= 0:
            verdict, why = REFUTED, "the anti-pattern does not sync either"
        else:
            verdict, why = CONFIRMED, "the sync is gone"
        out.update(verdict=verdict, why=why, measured=measured, value=f,
                   plot={"ratio": time_ratio, "band": None})
        return out

    if kind in ("memory_reduction", "memory_saving_bytes"):
        m = t.get("metric", "peak_mem_bytes")
        a, f = anti.get(m), fix.get(m)
        if not a or f is None:
            out.update(_not_measurable("%s not recorded" % m))
            return out
        if kind == "memory_reduction":
            value = 1 - f / a
            measured = "−%.3g %% (%s → %s)" % (value * 100, _fmt_bytes(a), _fmt_bytes(f))
            claimed = _range_text(lo * 100, hi * 100, " %")
        else:
            value = a - f
            measured = "%s less (%s → %s)" % (_fmt_bytes(value), _fmt_bytes(a), _fmt_bytes(f))
            claimed = _range_text(lo / 1e9, hi / 1e9, " GB")
        ok, where = _in_range(value, lo, hi, tol, two_sided)
        why = {"within": "within the claimed %s" % claimed, "above": "larger than the claimed %s" % claimed,
               "below": "smaller than the claimed %s" % claimed}[where]
        out.update(verdict=CONFIRMED if ok else REFUTED, why=why, measured=measured, value=value,
                   plot={"ratio": a / f if f else math.inf, "band": None, "memory": True})
        return out

    if kind == "metric_difference":
        m, least = t["metric"], t["min"]
        a, f = anti.get(m), fix.get(m)
        if a is None or f is None:
            out.update(_not_measurable("%s not recorded" % m))
            return out
        value = a - f
        measured = "%s %.4g → %.4g (%+.4g)" % (m, a, f, value)
        if value >= least:
            verdict, why = CONFIRMED, "the anti-pattern's %s exceeds the fix's by %.4g or more" % (m, least)
        else:
            verdict, why = REFUTED, "the difference in %s is under %.4g" % (m, least)
        out.update(verdict=verdict, why=why, measured=measured, value=value, plot=None)
        return out

    raise ValueError("claim %s: unknown test type %r" % (claim["id"], kind))


def evaluate_all(claims_doc, benches, env):
    tol = claims_doc.get("tolerance", 0.05)
    rows = []
    for c in claims_doc["claims"]:
        e = evaluate(c, benches, env, tol)
        row = {k: c.get(k) for k in ("id", "source", "rule", "rule_name", "claim", "claimed")}
        row["bench"] = c["test"].get("bench")
        row.update(e)
        rows.append(row)
    return rows


def summary(rows):
    s = {v: 0 for v in VERDICTS}
    for r in rows:
        s[r["verdict"]] += 1
    return s


def summary_text(s):
    """'26 confirmed, 10 refuted, 3 not measurable here', with the inconclusive and estimated
    claims counted between where there are any."""
    return ", ".join("%d %s" % (s.get(v, 0), v) for v in VERDICTS
                     if v in (CONFIRMED, REFUTED, NOT_MEASURABLE) or s.get(v))


# --- results files --------------------------------------------------------------------------------

def slug(text):
    s = re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")
    return s or "unknown-gpu"


def results_basename(env, date):
    return "%s-%s" % (slug(env.get("gpu_name")), date)


def build_results(env, benches, rows, date=None, created=None, synthetic=False, quick=False):
    date = date or datetime.date.today().isoformat()
    created = created or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    def finite(v):  # JSON has no Infinity/NaN (a fix that measured 0 gives an infinite ratio)
        return None if isinstance(v, float) and not math.isfinite(v) else v

    clean = [{k: finite(v) for k, v in r.items() if k != "plot"} for r in rows]
    return {"schema": RESULTS_SCHEMA, "synthetic": bool(synthetic), "date": date, "created": created,
            "quick": bool(quick), "environment": env, "benchmarks": benches, "claims": clean,
            "summary": summary(rows)}


def write_results(doc, rows, directory):
    """Writes <gpu-slug>-<date>.json and .svg into directory (never over an existing file: a
    -2, -3, ... suffix is added). Returns (json_path, svg_path)."""
    os.makedirs(directory, exist_ok=True)
    base = results_basename(doc["environment"], doc["date"])
    name, n = base, 1
    while os.path.exists(os.path.join(directory, name + ".json")):
        n += 1
        name = "%s-%d" % (base, n)
    jpath = os.path.join(directory, name + ".json")
    spath = os.path.join(directory, name + ".svg")
    with open(jpath, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1, allow_nan=False)
        f.write("\n")
    title = "trainlint bench: %s, %s%s" % (doc["environment"].get("gpu_name") or "?", doc["date"],
                                          " (SYNTHETIC, not a measurement)" if doc.get("synthetic") else "")
    with open(spath, "w", encoding="utf-8") as f:
        f.write(render_svg(rows, title))
    return jpath, spath


# --- text table -----------------------------------------------------------------------------------

def _cell(text, width):
    text = str(text if text is not None else "")
    return text if len(text) <= width else text[: width - 1] + "…"


CLAIMS_TABLE_BEGIN = "<!-- claims table: generated from claims.json by `bench/run --claims-table`; do not edit -->"
CLAIMS_TABLE_END = "<!-- end of claims table -->"
_CHECK_WORDS = {"speedup": "speed-up", "direction": "faster", "removes_sync": "syncs per step",
                "memory_reduction": "peak memory", "memory_saving_bytes": "peak memory",
                "metric_difference": "difference in"}


def claims_markdown(claims_doc):
    """The Markdown table of every claim (bench/README.md holds it between the two markers)."""
    out = [CLAIMS_TABLE_BEGIN,
           "| claim | from | rule | claimed | checked with (anti-pattern → fix) |",
           "| --- | --- | --- | --- | --- |"]
    for c in claims_doc["claims"]:
        t = c["test"]
        rule = ("%s `%s`" % (c["rule"], c["rule_name"])) if c.get("rule") else "`%s`" % c["rule_name"]
        if t["type"] == "none":
            how = "not measured: %s" % t.get("why", "")
        else:
            word = _CHECK_WORDS.get(t["type"]) or "`%s`" % t.get("metric", t["type"])
            how = "`%s` %s: `%s` → `%s`" % (t["bench"], word, t["anti"], t["fix"])
            if t.get("requires_gpus"):
                how += " (%d GPUs)" % t["requires_gpus"]
        out.append("| %s | %s | %s | %s | %s |" % (c["id"], c["source"], rule, c["claimed"], how))
    out.append(CLAIMS_TABLE_END)
    return "\n".join(out) + "\n"


SEVERITY_TABLE_BEGIN = ("<!-- severity table: generated from the rules and the newest results file of each card by "
                        "`bench/run --severity-table`; do not edit -->")
SEVERITY_TABLE_END = "<!-- end of severity table -->"
STEP_COST_FLOOR = 0.02  # a rule whose step cost stays under 2 % everywhere measured is no warning


def newest_results_files(directory):
    """The newest results file of each card in `directory` ({card: path}), by the date in the name."""
    out = {}
    for name in sorted(os.listdir(directory)):
        m = re.match(r"(.+)-(\d{4}-\d{2}-\d{2})\.json$", name)
        if m and (m.group(1) not in out or m.group(2) > out[m.group(1)][0]):
            out[m.group(1)] = (m.group(2), os.path.join(directory, name))
    return {card: path for card, (_, path) in sorted(out.items())}


def rule_severities(rules_dir):
    """{code: (severity, on by default)} from the rules' front matter. A rule that names an engine
    check instead of a query (`check:`, TL001's unused suppressions) is about trainlint's own
    comments, not about a training step: it has no cost to measure and no row."""
    out = {}
    for name in sorted(os.listdir(rules_dir)):
        if not re.match(r"TL\d+-.*\.md$", name):
            continue
        with open(os.path.join(rules_dir, name), encoding="utf-8") as f:
            head = f.read().split("\n---", 1)[0]
        code = re.search(r"^code: *(\S+)", head, re.M)
        sev = re.search(r"^severity: *(\S+)", head, re.M)
        off = re.search(r"^default: *off", head, re.M)
        if code and sev and not re.search(r"^check:", head, re.M):
            out[code.group(1)] = (sev.group(1), not off)
    return out


def step_costs(claims_doc, results_docs):
    """{rule: [(card, claim id, time ratio, (low, high) of its spread or None)]}: the claims measured
    as a time ratio of a whole step or batch (`speedup`, `direction` on a torch/ benchmark), the
    anti-pattern's time over the fix's, per card. The microbenchmarks (cuda/) isolate one mechanism
    and say nothing of a step's share."""
    tests = {c["id"]: c["test"] for c in claims_doc["claims"]}
    out = {}
    for card, doc in results_docs.items():
        for c in doc.get("claims", []):
            t = tests.get(c["id"], {})
            v = c.get("value")
            if (c.get("rule") and t.get("type") in ("speedup", "direction")
                    and str(t.get("bench", "")).startswith("torch/") and isinstance(v, (int, float))):
                sp = c.get("spread")
                sp = (float(sp[0]), float(sp[1])) if sp and None not in sp else None
                out.setdefault(c["rule"], []).append((card, c["id"], float(v), sp))
    return out


def _by_link(ranges):
    """[(link, [range, ...])] in the order the links first appear."""
    out = {}
    for r in ranges:
        out.setdefault(r["link"], []).append(r)
    return list(out.items())


def severity_markdown(claims_doc, results_docs, severities):
    """The Markdown table of each rule's default severity beside its measured step cost (docs/bench.md)."""
    costs = step_costs(claims_doc, results_docs)
    estimates = {}  # {rule: [range]}: the paper estimates of claims that need more GPUs
    for doc in results_docs.values():
        for c in doc.get("claims", []):
            if c.get("verdict") == ESTIMATED and c.get("rule"):
                estimates.setdefault(c["rule"], []).extend(c.get("estimate") or [])
    cards = sorted(results_docs)
    out = [SEVERITY_TABLE_BEGIN,
           "| rule | default | time measured (anti-pattern ÷ fix, per step or batch; %s) | configurations | "
           "reading |" %
           " and ".join(cards),
           "| --- | --- | --- | --- | --- |"]
    for code in sorted(severities):
        sev, on = severities[code]
        default = sev if on else "%s, off" % sev
        rows = costs.get(code, [])
        if not rows and code in estimates:
            lo = min(r["ratio"][0] for r in estimates[code])
            hi = max(r["ratio"][1] for r in estimates[code])
            out.append("| %s | %s | estimated %s–%s (on paper, two GPUs) | 0 | not measured: %s |"
                       % (code, default, _fmt_ratio(lo), _fmt_ratio(hi),
                          ", ".join("%s–%s over %s" % ("%.3g" % min(r["ratio"][0] for r in rs),
                                                       _fmt_ratio(max(r["ratio"][1] for r in rs)), link)
                                    for link, rs in _by_link(estimates[code]))))
            continue
        if not rows:
            out.append("| %s | %s | not measured on a step | 0 | - |" % (code, default))
            continue
        lo, hi = min(r[2] for r in rows), max(r[2] for r in rows)
        configs = len({r[1] for r in rows})
        rng = _fmt_ratio(lo) if abs(hi - lo) < 0.005 else "%s–%s" % (_fmt_ratio(lo), _fmt_ratio(hi))
        # the spreads decide, not the medians: a cost is established where a whole spread clears 2 %,
        # and ruled out where a whole spread stays under it (a fix measured slower costs nothing)
        established = any(r[3] and r[3][0] - 1.0 >= STEP_COST_FLOOR for r in rows)
        under = all(r[3] and r[3][1] - 1.0 < STEP_COST_FLOOR for r in rows)
        if established:
            reading = "over 2 % across the whole spread in at least one configuration"
        elif under and configs >= 2:
            reading = "under 2 % everywhere measured: no warning by default"
        elif under:
            reading = "under 2 % in the one configuration measured: more sizes needed"
        elif hi - 1.0 >= STEP_COST_FLOOR:
            reading = "not established: medians reach %s, but no spread clears 2 %%" % _fmt_ratio(hi)
        else:
            reading = "not established: medians under 2 %, spreads reach past it"
        out.append("| %s | %s | %s | %d | %s |" % (code, default, rng, configs, reading))
    out.append(SEVERITY_TABLE_END)
    return "\n".join(out) + "\n"


CARDS_TABLE_BEGIN = ("<!-- cards table: generated from the newest results file of each card by "
                     "`bench/run --cards-table`; do not edit -->")
CARDS_TABLE_END = "<!-- end of cards table -->"


def cards_markdown(results_docs):
    """The claims every card measured, side by side: one row per claim, a measured and a verdict
    column per card (bench/README.md). `results_docs` is {card: results document}; the rows follow
    the first card's order, and the last line counts the claims whose verdicts differ."""
    cards = sorted(results_docs)
    by_card = {card: {c["id"]: c for c in doc.get("claims", [])} for card, doc in results_docs.items()}
    common = [c["id"] for c in results_docs[cards[0]].get("claims", [])] if cards else []
    common = [i for i in common if all(i in by_card[card] for card in cards)]

    def esc(x):
        return str(x if x is not None else "").replace("|", "\\|")
    head = ["claim", "rule", "claimed"]
    for card in cards:
        head += ["%s measured" % card, "%s verdict" % card]
    out = [CARDS_TABLE_BEGIN, "| %s |" % " | ".join(head), "|" + " --- |" * len(head)]
    differ = 0
    for cid in common:
        first = by_card[cards[0]][cid]
        row = [cid, first.get("rule") or "", first.get("claimed", "")]
        verdicts = set()
        for card in cards:
            c = by_card[card][cid]
            row += [c.get("measured") or "-", c["verdict"]]
            verdicts.add(c["verdict"])
        differ += len(verdicts) > 1
        out.append("| %s |" % " | ".join(esc(x) for x in row))
    out.append("")
    out.append("%d claims measured on every card; the verdicts differ on %d." % (len(common), differ))
    out.append(CARDS_TABLE_END)
    return "\n".join(out) + "\n"


def render_table(rows):
    """rule → claimed → measured → verdict, one line per claim."""
    head = ["claim", "rule", "claimed", "measured", "verdict"]
    caps = [30, 34, 22, 56]  # the verdict column is never cut
    data = []
    for r in rows:
        rule = " ".join(x for x in (r.get("rule"), r.get("rule_name")) if x)
        verdict = r["verdict"] + (": " + r["why"] if r.get("why") else "")
        data.append([r["id"], rule, r.get("claimed", ""), r.get("measured") or "-", verdict])
    widths = [max([len(head[i])] + [len(_cell(d[i], caps[i])) for d in data]) for i in range(4)]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    lines = [fmt % tuple(head), fmt % tuple(["-" * w for w in widths] + ["-" * 7])]
    for d in data:
        lines.append(fmt % tuple([_cell(d[i], widths[i]) for i in range(4)] + [d[4]]))
    s = summary(rows)
    lines.append("")
    lines.append(summary_text(s))
    return "\n".join(lines) + "\n"


def render_markdown(rows):
    """The verdict table in Markdown (bench/README.md quotes it for each committed run)."""
    def esc(x):
        return str(x if x is not None else "").replace("|", "\\|")
    lines = ["| claim | rule | claimed | measured | verdict |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        rule = " ".join(x for x in (r.get("rule"), r.get("rule_name") and "`%s`" % r["rule_name"]) if x)
        verdict = "**%s**" % r["verdict"] + (": " + r["why"] if r.get("why") else "")
        lines.append("| %s |" % " | ".join(esc(x) for x in (r["id"], rule, r.get("claimed", ""),
                                                              r.get("measured") or "-", verdict)))
    s = summary(rows)
    lines.append("")
    lines.append(summary_text(s))
    return "\n".join(lines) + "\n"


# --- SVG chart ------------------------------------------------------------------------------------

COLORS = {CONFIRMED: "#2e7d32", REFUTED: "#c62828", INCONCLUSIVE: "#ef8f00", ESTIMATED: "#6a1b9a",
          NOT_MEASURABLE: "#9e9e9e"}


def render_svg(rows, title):
    """Horizontal bars, log scale: measured cost of each anti-pattern as anti / fix (time, or peak
    memory where marked), the claimed range as a band, coloured by verdict. Hand-written SVG."""
    plotted = [r for r in rows if r.get("plot") and r["plot"]["ratio"] and math.isfinite(r["plot"]["ratio"])
               and r["plot"]["ratio"] > 0]
    left, right, top, row_h = 260, 80, 70, 22
    width = 1000
    plot_w = width - left - right
    height = top + max(1, len(plotted)) * row_h + 60
    vals = [r["plot"]["ratio"] for r in plotted]
    for r in plotted:
        band = r["plot"].get("band")
        if band:
            vals.extend(x for x in band if x)
    lo = min([0.5] + [v / 1.3 for v in vals])
    hi = max([2.0] + [v * 1.3 for v in vals])
    llo, lhi = math.log10(lo), math.log10(hi)

    def x(v):
        return left + (math.log10(v) - llo) / (lhi - llo) * plot_w

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="12">' % (width, height, width, height),
           '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height),
           '<text x="10" y="22" font-size="15" font-weight="bold">%s</text>' % escape(title),
           '<text x="10" y="42" fill="#555555">measured cost of the anti-pattern = anti / fix '
           '(median time; peak memory where marked), log scale; band = claimed range</text>']
    if not plotted:
        out.append('<text x="10" y="%d">nothing measured</text>' % (top + 10))
    # grid: 1-2-5 ticks
    tick = 10 ** math.floor(llo)
    while tick <= hi:
        for m in (1, 2, 5):
            v = tick * m
            if lo <= v <= hi:
                gx = x(v)
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1"/>'
                           % (gx, top - 8, gx, height - 45, "#000000" if v == 1 else "#e0e0e0"))
                out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555555">%g×</text>'
                           % (gx, height - 30, v))
        tick *= 10
    for i, r in enumerate(plotted):
        y = top + i * row_h
        p = r["plot"]
        label = " ".join(x for x in (r["id"], r.get("rule"), "(memory)" if p.get("memory") else None) if x)
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + 14, escape(label)))
        band = p.get("band")
        if band and band[0]:
            b0, b1 = x(band[0]), x(band[1] or band[0])
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#1565c0" fill-opacity="0.18" '
                       'stroke="#1565c0" stroke-opacity="0.6"/>' % (b0 - 1.5, y + 1, max(b1 - b0, 0) + 3, row_h - 2))
        x1, x0 = x(p["ratio"]), x(1)
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>'
                   % (min(x0, x1), y + 5, max(abs(x1 - x0), 2), row_h - 10, COLORS[r["verdict"]],
                      escape("%s: %s (%s)" % (r["id"], r.get("measured", ""), r["verdict"]))))
        out.append('<text x="%.1f" y="%d">%s</text>' % (max(x0, x1) + 4, y + 14, escape("%.3g×" % p["ratio"])))
    ly = height - 12
    for i, (name, color) in enumerate(COLORS.items()):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (10 + i * 150, ly - 9, color))
        out.append('<text x="%d" y="%d">%s</text>' % (25 + i * 150, ly, escape(name)))
    out.append("</svg>")
    return "\n".join(out) + "\n"
