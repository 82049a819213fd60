#!/usr/bin/env python3
"""Runs the bots/ benchmarks under several OpenMP runtimes side by side.

Runtimes (columns):
  libomp       the clang-built binary, as it is (links LLVM's libomp.so.5)
  bobbin       the same clang-built binary with LD_PRELOAD=<build>/libbobbin.so
  libgomp      the gcc-built binary, as it is (links GNU libgomp.so.1)
  bobbin-gomp  the same gcc-built binary with LD_PRELOAD=<build>/libbobbin.so

Every repetition runs every benchmark under every runtime before the next
repetition starts (and rotates the runtime order), so a slow phase of the
machine hits all runtimes alike. Each program prints "RESULT name=... k=v ...
verified=yes|no" lines; the table shows, per result and runtime, the median
over the repetitions of one metric (overhead_us where present, else time_s,
or --metric) and the ratio of each Bobbin column to its stock runtime.

A runtime that cannot run a benchmark gets a cell instead of a number:
  failed       non-zero exit or no RESULT line; the footnote quotes the
               runtime's "bobbin: ..." line if it printed one
  wrong        the program ran but its self-check failed (verified=no)
  timeout      killed after --timeout seconds
  unsupported  not attempted: marked with --unsupported, or libbobbin.so does
               not define OpenMP entry points the binary imports (checked with
               nm, so a Bobbin column never silently measures libomp)
  missing      the binary was not built
  n/a          the program ran but does not print that row in this build
               (epcc's kmpc_* rows exist only in its clang build)
A failed, wrong or timed-out (benchmark, runtime) pair is not run again in
later repetitions.

Exit status: 0 when the stock runtimes ran everything (Bobbin cells may show
failures); 1 when a stock runtime failed or a check failed there (with
--strict: any cell other than a number, "unsupported" or "n/a"); 2 on a usage error.
Standard library only, but for --plot FILE, which draws the ratios with
matplotlib (python3-matplotlib); other plots can read the --json file.
"""

import argparse
import csv
import datetime
import fnmatch
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time

RUNTIMES = {
    # name: (binary suffix, preload Bobbin, baseline it is compared with)
    "libomp": ("clang", False, None),
    "bobbin": ("clang", True, "libomp"),
    "libgomp": ("gcc", False, None),
    "bobbin-gomp": ("gcc", True, "libgomp"),
}
DEFAULT_RUNTIMES = ["libomp", "bobbin", "libgomp", "bobbin-gomp"]

# Default suite: (label, program relative to the build dir without the
# -clang/-gcc suffix, arguments per preset). A program that prints one RESULT
# name equal to its own base name gets the label as its row name; a program
# with several names (epcc, depchain) gets one row per name.
EPCC_ARGS = {
    "small": ["--reps", "7", "--target-us", "1000"],
    "medium": ["--reps", "21", "--target-us", "4000"],
    "large": ["--reps", "41", "--target-us", "8000", "--budget-s", "1.5"],
}


def default_suite(preset):
    p = preset
    return [
        ("fib", "bots/fib/fib", [p]),
        ("multiaxpy-bs1k", "bots/multiaxpy/multiaxpy", [p, "1024"]),
        ("multiaxpy-bs8k", "bots/multiaxpy/multiaxpy", [p, "8192"]),
        ("multiaxpy-bs64k", "bots/multiaxpy/multiaxpy", [p, "65536"]),
        ("nqueens", "bots/nqueens/nqueens", [p]),
        ("sort", "bots/sort/sort", [p]),
        ("depchain", "bots/depchain/depchain", [p]),
        ("nested", "bots/nested/nested", [p]),
        ("syncshapes", "bots/syncshapes/syncshapes", [p]),
        ("tilelu", "bots/tilelu/tilelu", [p]),
        ("epcc", "bots/epcc/epcc", EPCC_ARGS[p]),
    ]


OMP_PREFIXES = ("__kmpc_", "__kmp_", "kmp_", "omp_", "ompc_", "GOMP_")


class Cell:
    """What one runtime did with one benchmark over all repetitions."""

    def __init__(self):
        self.status = "ok"      # ok | failed | wrong | timeout | unsupported | missing
        self.note = ""          # footnote text for a non-ok status
        self.samples = {}       # row name -> list of RESULT dicts
        self.seconds = []       # wall time of each run


def parse_result_line(line):
    fields = {}
    for tok in line.split()[1:]:
        if "=" not in tok:
            continue
        k, v = tok.split("=", 1)
        try:
            fields[k] = float(v) if k != "name" else v
        except ValueError:
            fields[k] = v
    return fields


def last_bobbin_line(text):
    """Bobbin's own last word: the one-line reason it aborts (after any warnings)."""
    said = [l.strip() for l in text.splitlines() if l.startswith("bobbin:")]
    return said[-1] if said else None


def describe_exit(rc):
    if rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %d" % rc


def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


class SymbolCheck:
    """Whether libbobbin.so defines every OpenMP entry point a binary imports."""

    def __init__(self, lib, enabled):
        self.lib = lib
        self.enabled = enabled and shutil.which("nm") is not None
        self._defined = None
        self._cache = {}

    @staticmethod
    def _nm(path, undefined):
        flag = "--undefined-only" if undefined else "--defined-only"
        out = subprocess.run(["nm", "-D", flag, path], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        names = set()
        for line in out.stdout.splitlines():
            parts = line.split()
            if not parts:
                continue
            name = parts[-1].split("@")[0]  # drop the symbol version
            if name.startswith(OMP_PREFIXES):
                names.add(name)
        return names

    def missing(self, exe):
        """A list of OpenMP symbols exe needs that Bobbin lacks ([] if fine)."""
        if not self.enabled:
            return []
        if exe not in self._cache:
            if self._defined is None:
                self._defined = self._nm(self.lib, undefined=False) or set()
            wanted = self._nm(exe, undefined=True)
            self._cache[exe] = sorted((wanted or set()) - self._defined)
        return self._cache[exe]


def busy_fraction(seconds=0.5):
    """Fraction of CPU time others used over a short sample (Linux /proc/stat),
    or None. The load average would lag: it still counts a run that just ended."""
    def sample():
        with open("/proc/stat") as fh:
            vals = [int(x) for x in fh.readline().split()[1:]]
        return sum(vals), vals[3] + (vals[4] if len(vals) > 4 else 0)  # total, idle + iowait
    try:
        t0, i0 = sample()
        time.sleep(seconds)
        t1, i1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 1.0 - (i1 - i0) / (t1 - t0) if t1 > t0 else None


def run_once(cmd, env, timeout):
    """Runs cmd; returns (status, stdout, stderr, rc, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        status = "ran"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the benchmark's whole process group
        out, err = proc.communicate()
        status = "timeout"
    return status, out, err, proc.returncode, time.monotonic() - t0


def mpi_launch(ranks, preload):
    """The launcher's words before the program: every rank of a hybrid job
    on this machine, ranks not bound (each runtime places its own threads),
    more ranks than cores allowed; Bobbin preloaded in the ranks only."""
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    if preload:
        cmd += ["env", "LD_PRELOAD=" + preload]
    return cmd


def primary_metric(rows_samples, forced):
    if forced:
        return forced
    for key in ("overhead_us", "time_s"):
        if any(key in s for s in rows_samples):
            return key
    return "time_s"


def higher_better(metric):
    return metric.endswith("_per_s") or metric in ("gflops",)


def paired_ratio(mine, theirs, metric):
    """The median over repetitions of mine / theirs within one repetition, with the
    repetitions mine was at least as good, from two columns' samples; None unless
    both hold a number for every repetition (theirs not 0)."""
    mv = [s.get(metric) for s in mine]
    tv = [s.get(metric) for s in theirs]
    if not mv or len(mv) != len(tv) or not all(isinstance(v, float) for v in mv + tv) or 0 in tv:
        return None
    hb = higher_better(metric)
    wins = sum(1 for m, t in zip(mv, tv) if (m >= t if hb else m <= t))
    return {"ratio": statistics.median(m / t for m, t in zip(mv, tv)), "wins": wins, "n": len(mv)}


def fmt_num(v):
    """Three significant digits, without exponents for the usual ranges."""
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.3g" % v


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    src_root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(
        description="Run the bots/ benchmarks under libomp, Bobbin and libgomp side by side.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Runtimes: " + ", ".join(DEFAULT_RUNTIMES) + ". See tools/bench/README.md.")
    ap.add_argument("--build", default=os.path.join(src_root, "build"),
                    help="Meson build directory (default: <source>/build)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per benchmark and runtime (default 5)")
    ap.add_argument("--threads", type=int, default=None,
                    help="OMP_NUM_THREADS for every run (default: the number of CPUs)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before a run is killed (default 120)")
    ap.add_argument("--preset", choices=["small", "medium", "large"], default="small",
                    help="size preset of the default suite (default small)")
    ap.add_argument("--only", default=None,
                    help="comma-separated benchmark labels to run (globs allowed, e.g. 'fib,multiaxpy*')")
    ap.add_argument("--runtimes", default=",".join(DEFAULT_RUNTIMES),
                    help="comma-separated columns (default: all four)")
    ap.add_argument("--unsupported", default="",
                    help="comma-separated runtimes to show as 'unsupported' without running them")
    ap.add_argument("--no-symbol-check", action="store_true",
                    help="run Bobbin columns even when libbobbin.so lacks entry points the binary imports")
    ap.add_argument("--bench", action="append", default=[], metavar="LABEL=PROGRAM [ARGS]",
                    help="replace the default suite (repeatable); PROGRAM is relative to the build dir "
                         "without the -clang/-gcc suffix, e.g. 'fib35=bots/fib/fib 35'")
    ap.add_argument("--mpi", type=int, default=0, metavar="N",
                    help="run each benchmark under `mpirun -np N` (Open MPI: --oversubscribe --bind-to none, "
                         "as root --allow-run-as-root), LD_PRELOAD set in every rank, not in mpirun")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra environment for every run (repeatable)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=KEY=VALUE[;KEY=VALUE...]",
                    help="one more Bobbin column, 'bobbin[NAME]' (the clang build, preloaded, compared with "
                         "libomp), with this environment on top of --env (repeatable), e.g. "
                         "'tree=BOBBIN_SCHED=tree'; LD_PRELOAD=PATH runs another build of the library "
                         "in that column (a copy named libbobbin.so)")
    ap.add_argument("--best-of", action="append", default=[], metavar="COLUMN=COL1,COL2[,...]",
                    help="after the table, per row: COLUMN against whichever of COL1, COL2, ... has the best median, "
                         "paired (the median of the ratios within one repetition, and the repetitions COLUMN was "
                         "at least as good), e.g. 'bobbin[model]=bobbin,bobbin[w1]' (repeatable)")
    ap.add_argument("--metric", default=None, help="RESULT key to tabulate (default overhead_us, else time_s)")
    ap.add_argument("--csv", default=None, help="write one line per result and runtime to this CSV file")
    ap.add_argument("--json", default=None, help="write every sample and median to this JSON file")
    ap.add_argument("--plot", default=None, metavar="FILE",
                    help="draw the ratios (Bobbin / libomp, Bobbin / libgomp per row) as bar charts into this PNG")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any cell is not a number or 'unsupported'")
    ap.add_argument("--list", action="store_true", help="print the suite and exit")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    args = ap.parse_args(argv)

    build = os.path.abspath(args.build)
    runtimes = [r.strip() for r in args.runtimes.split(",") if r.strip()]
    variant_env = {}  # runtime column -> its extra environment
    for v in args.variant:
        name, _, kvs = v.partition("=")
        pairs = [kv for kv in kvs.split(";") if kv]
        if not name or not pairs or any("=" not in kv for kv in pairs):
            ap.error("--variant wants NAME=KEY=VALUE[;KEY=VALUE...], not '%s'" % v)
        col = "bobbin[%s]" % name
        RUNTIMES[col] = ("clang", True, "libomp")
        variant_env[col] = dict(kv.split("=", 1) for kv in pairs)
        runtimes.append(col)
    best_of = []  # (column, [columns it is compared with])
    for b in args.best_of:
        col, _, others = b.partition("=")
        others = [o.strip() for o in others.split(",") if o.strip()]
        if not col or not others or any(c not in runtimes for c in [col] + others):
            ap.error("--best-of wants COLUMN=COL1,COL2[,...] over the table's columns (%s), not '%s'"
                     % (", ".join(runtimes), b))
        best_of.append((col, others))
    unsupported = {r.strip() for r in args.unsupported.split(",") if r.strip()}
    for r in runtimes + sorted(unsupported):
        if r not in RUNTIMES:
            ap.error("unknown runtime '%s' (known: %s)" % (r, ", ".join(RUNTIMES)))
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.mpi < 0 or (args.mpi and not shutil.which("mpirun")):
        ap.error("--mpi wants a positive rank count and mpirun on PATH (tools/setup installs Open MPI)")
    if args.plot and check_plotting():
        ap.error(check_plotting())

    if args.bench:
        suite = []
        for b in args.bench:
            if "=" not in b:
                ap.error("--bench wants LABEL=PROGRAM [ARGS], not '%s'" % b)
            label, cmd = b.split("=", 1)
            words = cmd.split()
            if not words:
                ap.error("--bench %s: no program" % label)
            suite.append((label, words[0], words[1:]))
    else:
        suite = default_suite(args.preset)
    if args.only:
        pats = [p.strip() for p in args.only.split(",") if p.strip()]
        suite = [b for b in suite if any(fnmatch.fnmatch(b[0], p) for p in pats)]
        if not suite:
            ap.error("--only %s matches no benchmark" % args.only)
    if args.list:
        for label, prog, bargs in suite:
            print("%-18s %s-{clang,gcc} %s" % (label, prog, " ".join(bargs)))
        return 0

    threads = args.threads or os.cpu_count() or 1
    lib = os.path.join(build, "libbobbin.so")
    symcheck = SymbolCheck(lib, not args.no_symbol_check)
    if not args.no_symbol_check and not symcheck.enabled:
        print("run.py: nm not found; Bobbin columns run without the entry-point check", file=sys.stderr)

    base_env = dict(os.environ)
    base_env.pop("LD_PRELOAD", None)
    base_env["OMP_NUM_THREADS"] = str(threads)
    for kv in args.env:
        if "=" not in kv:
            ap.error("--env wants KEY=VALUE, not '%s'" % kv)
        k, v = kv.split("=", 1)
        base_env[k] = v

    # cells[label][runtime] -> Cell; decide up front what cannot run at all.
    cells = {}
    for label, prog, _ in suite:
        cells[label] = {}
        for rt in runtimes:
            c = Cell()
            suffix, preload, _base = RUNTIMES[rt]
            exe = os.path.join(build, "%s-%s" % (prog, suffix))
            if rt in unsupported:
                c.status, c.note = "unsupported", "%s marked unsupported (--unsupported)" % rt
            elif not os.path.exists(exe):
                c.status, c.note = "missing", "not built: %s" % os.path.relpath(exe, build)
            elif preload and not os.path.exists(lib):
                c.status, c.note = "missing", "no %s" % lib
            elif preload:
                lacking = symcheck.missing(exe)
                if lacking:
                    c.status = "unsupported"
                    c.note = "libbobbin.so does not define %d OpenMP entry point%s that %s imports: %s" % (
                        len(lacking), "s" if len(lacking) > 1 else "", os.path.basename(exe),
                        ", ".join(lacking[:4]) + (", ..." if len(lacking) > 4 else ""))
            cells[label][rt] = c

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    log("run.py: %d benchmark(s) x %d runtime(s) x %d rep(s), OMP_NUM_THREADS=%d, build %s" % (
        len(suite), len(runtimes), args.reps, threads, build))
    load_before = os.getloadavg()[0]
    busy_before = busy_fraction()
    # A quarter of the machine busy before we start: the figures will show it.
    noisy = busy_before > 0.25 if busy_before is not None else load_before > 0.5 * (os.cpu_count() or 1)
    noisy_text = ("%.0f%% of the CPU time was used by other programs just before the run" % (100 * busy_before)
                  if busy_before is not None else "load average %.1f on %d CPUs before the run" % (
                      load_before, os.cpu_count() or 1))
    if noisy:
        log("run.py: warning: %s; the figures will be noisy" % noisy_text)
    started = time.monotonic()
    for rep in range(args.reps):
        order = runtimes[rep % len(runtimes):] + runtimes[:rep % len(runtimes)]
        for label, prog, bargs in suite:
            report = []
            for rt in order:
                c = cells[label][rt]
                if c.status != "ok":
                    continue
                suffix, preload, _base = RUNTIMES[rt]
                exe = os.path.join(build, "%s-%s" % (prog, suffix))
                env = dict(base_env)
                env.update(variant_env.get(rt, {}))
                cmd = [exe] + bargs
                # A variant may name another build of the library (an A/B run).
                rt_lib = variant_env.get(rt, {}).get("LD_PRELOAD", lib)
                if args.mpi:
                    env.pop("LD_PRELOAD", None)  # into the ranks, not mpirun
                    cmd = mpi_launch(args.mpi, rt_lib if preload else None) + cmd
                elif preload:
                    env["LD_PRELOAD"] = rt_lib
                status, out, err, rc, secs = run_once(cmd, env, args.timeout)
                c.seconds.append(secs)
                results = [parse_result_line(l) for l in out.splitlines() if l.startswith("RESULT ")]
                for res in results:
                    c.samples.setdefault(res.get("name", label), []).append(res)
                said = last_bobbin_line(err) or last_bobbin_line(out)
                if status == "timeout":
                    c.status, c.note = "timeout", "killed after %.0f s" % args.timeout
                elif any(r.get("verified") != "yes" for r in results):
                    c.status = "wrong"
                    c.note = said or last_line(err) or "verified=no"
                elif rc != 0 or not results:
                    c.status = "failed"
                    why = describe_exit(rc) if rc != 0 else "no RESULT line"
                    c.note = (said + " (" + why + ")") if said else (
                        (last_line(err) + " (" + why + ")") if last_line(err) else why)
                report.append("%s %s" % (rt, "%.2fs" % secs if c.status == "ok" else c.status))
            if report:
                log("  [rep %d/%d] %-16s %s" % (rep + 1, args.reps, label, "  ".join(report)))
    log("run.py: done in %.0f s" % (time.monotonic() - started))

    # ---- rows: one per RESULT name ---------------------------------------------------
    rows = []  # (row name, label)
    for label, prog, _ in suite:
        names = []
        for rt in runtimes:
            for n in cells[label][rt].samples:
                if n not in names:
                    names.append(n)
        base = os.path.basename(prog)
        if not names:
            rows.append((label, label, None))
        for n in names:
            rows.append((label if n == base else n, label, n))

    def stats(c, rname, metric):
        vals = [s[metric] for s in c.samples.get(rname, []) if isinstance(s.get(metric), float)]
        if not vals:
            return None
        return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals),
                "values": vals}

    footnotes = []

    def footnote(text):
        if text not in footnotes:
            footnotes.append(text)
        return footnotes.index(text) + 1

    table = []
    records = []
    for rowname, label, rname in rows:
        all_samples = [s for rt in runtimes for s in cells[label][rt].samples.get(rname, [])]
        metric = primary_metric(all_samples, args.metric)
        line = {"row": rowname, "metric": metric, "cells": {}, "ratios": {}}
        by_rt = {}
        for rt in runtimes:
            c = cells[label][rt]
            st = stats(c, rname, metric) if rname else None
            status = c.status
            if c.status == "ok" and st is None:
                # A row the program printed under another runtime only: the
                # other compiler's build has it (epcc's kmpc_* rows are clang's).
                status = "n/a" if rname and c.samples and rname not in c.samples else "failed"
            rec = {"benchmark": label, "row": rowname, "runtime": rt, "metric": metric,
                   "status": status,
                   "note": c.note, "median": None, "min": None, "max": None, "n": 0, "ratio": None, "paired": None,
                   "samples": c.samples.get(rname, []) if rname else [],
                   "medians": {}}
            if st:
                rec.update(median=st["median"], min=st["min"], max=st["max"], n=st["n"])
                for key in sorted({k for s in rec["samples"] for k, v in s.items() if isinstance(v, float)}):
                    vals = [s[key] for s in rec["samples"] if isinstance(s.get(key), float)]
                    rec["medians"][key] = statistics.median(vals)
            if st:
                text = fmt_num(st["median"])
                if st["n"] > 2 and st["median"]:
                    # Median absolute deviation: one preempted run does not inflate it.
                    mad = statistics.median(abs(v - st["median"]) for v in st["values"])
                    pct = mad / abs(st["median"]) * 100
                    text += " ±%.0f%%" % pct if pct < 100 else " ±>99%"
                if st["n"] < args.reps:
                    text += " (n=%d)" % st["n"]
                if c.status != "ok":  # some rows of the program ran before it failed
                    text += " [%d]" % footnote("under %s: %s" % (rt, c.note) if c.note else rt)
            else:
                status = rec["status"]
                note = c.note or ("no %s in its RESULT line" % metric if status == "failed" else "")
                text = status + (" [%d]" % footnote("under %s: %s" % (rt, note)) if note else "")
            line["cells"][rt] = text
            records.append(rec)
            by_rt[rt] = rec
        # Ratios: each Bobbin column against its stock runtime, as the ratio
        # of the medians and paired: the median over repetitions of the
        # ratio within one repetition, where the two ran seconds apart (the
        # host's slow and quiet phases last longer than that), with how many
        # repetitions Bobbin was at least as good.
        line["paired"] = {}
        for rt in runtimes:
            base = RUNTIMES[rt][2]
            if base is None:
                continue
            mine, theirs = by_rt[rt]["median"], by_rt.get(base, {}).get("median")
            ratio = mine / theirs if (mine is not None and theirs) else None
            by_rt[rt]["ratio"] = ratio
            line["ratios"][rt] = "%.2f" % ratio if ratio is not None else "-"
            paired = paired_ratio(by_rt[rt]["samples"], by_rt.get(base, {}).get("samples", []), metric)
            by_rt[rt]["paired"] = paired
            line["paired"][rt] = ("%.2f %d/%d" % (paired["ratio"], paired["wins"], paired["n"])
                                  if paired else "-")
        table.append(line)

    # ---- the table ------------------------------------------------------------------
    header = ["benchmark", "metric"]
    for rt in runtimes:
        header.append(rt)
        if RUNTIMES[rt][2] is not None:
            header.append("ratio")
            header.append("paired")
    body = []
    for line in table:
        r = [line["row"], line["metric"]]
        for rt in runtimes:
            r.append(line["cells"][rt])
            if RUNTIMES[rt][2] is not None:
                r.append(line["ratios"][rt])
                r.append(line["paired"].get(rt, "-"))
        body.append(r)
    widths = [max(len(str(x[i])) for x in [header] + body) for i in range(len(header))]

    def emit(r):
        print("  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths))))

    print()
    print("OMP_NUM_THREADS=%d, median of %d rep(s) (± median absolute deviation), preset %s" % (
        threads, args.reps, args.preset if not args.bench else "custom"))
    if noisy:
        print("(%s; expect noise)" % noisy_text)
    emit(header)
    emit(["-" * w for w in widths])
    for r in body:
        emit(r)
    if any(RUNTIMES[rt][2] for rt in runtimes):
        print("ratio: the Bobbin column's median / the stock runtime's (bobbin / libomp, bobbin-gomp / libgomp);")
        print("       for time_s and overhead_us, below 1 means Bobbin is faster; for *_per_s, above 1.")
        print("paired: the median over repetitions of that ratio within each repetition (the two runs")
        print("       seconds apart), and in how many repetitions Bobbin was at least as good.")
    for col, others in best_of:
        # Against the column with the best median (one width chosen for the
        # whole row, as a user fixing it would), paired; not against the
        # best of them in each repetition, whose least of several noisy
        # times flatters the fixed side.
        print()
        print("%s against the best of %s (the column with the best median), paired: the median over"
              % (col, ", ".join(others)))
        print("repetitions of the ratio within one, and in how many %s was at least as good:" % col)
        for rowname, label, rname in rows:
            recs = {r["runtime"]: r for r in records if r["row"] == rowname}
            metric = recs[col]["metric"]
            medians = {c: recs[c]["median"] for c in others if recs[c]["median"] is not None}
            if not medians:
                print("  %-24s -" % rowname)
                continue
            best = (max if higher_better(metric) else min)(medians, key=medians.get)
            p = paired_ratio(recs[col]["samples"], recs[best]["samples"], metric)
            if not p:
                print("  %-24s -   (best: %s)" % (rowname, best))
                continue
            print("  %-24s %.3f %d/%d   (best: %s, median %s)" % (rowname, p["ratio"], p["wins"], p["n"],
                                                               best, fmt_num(medians[best])))
    for i, f in enumerate(footnotes, 1):
        print("[%d] %s" % (i, f))

    # ---- files ------------------------------------------------------------------------
    if args.plot:
        plot_ratios(records, runtimes, args.plot, "OMP_NUM_THREADS=%d, median of %d rep(s), preset %s%s" % (
            threads, args.reps, args.preset if not args.bench else "custom", ", noisy host" if noisy else ""))
        print("plot: %s" % args.plot)
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["benchmark", "row", "runtime", "status", "metric", "median", "min", "max", "n",
                        "ratio", "paired_ratio", "paired_wins", "tasks_per_s", "note"])
            for rec in records:
                w.writerow([rec["benchmark"], rec["row"], rec["runtime"], rec["status"], rec["metric"],
                            rec["median"], rec["min"], rec["max"], rec["n"], rec["ratio"],
                            rec["paired"]["ratio"] if rec["paired"] else None,
                            rec["paired"]["wins"] if rec["paired"] else None,
                            rec["medians"].get("tasks_per_s"), rec["note"]])
    if args.json:
        rev = subprocess.run(["git", "-C", src_root, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        meta = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "cpus": os.cpu_count(), "threads": threads, "reps": args.reps,
            "preset": args.preset if not args.bench else None, "build": build, "git": rev or None,
            "loadavg_before": load_before, "loadavg_after": os.getloadavg()[0], "busy_before": busy_before,
            "runtimes": runtimes, "suite": [{"label": l, "program": p, "args": a} for l, p, a in suite],
        }
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "results": records}, fh, indent=1)

    # ---- exit status ------------------------------------------------------------------
    if all(rec["status"] == "missing" for rec in records):
        print("run.py: no benchmark binary found under %s: build first (ninja -C %s)" % (build, build),
              file=sys.stderr)
        return 2
    bad = []
    for rec in records:
        if rec["status"] in ("ok", "unsupported", "missing", "n/a"):
            continue
        stock = RUNTIMES[rec["runtime"]][2] is None
        if stock or args.strict:
            bad.append("%s under %s: %s" % (rec["row"], rec["runtime"], rec["status"]))
    if bad:
        print("run.py: %s" % "; ".join(bad), file=sys.stderr)
        return 1
    return 0

def check_plotting():
    """None if matplotlib can draw here, else why not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        return "--plot needs matplotlib (python3-matplotlib; tools/setup installs it): %s" % e
    return None


def plot_ratios(records, runtimes, path, subtitle):
    """One horizontal bar chart per Bobbin column: for each row, Bobbin's
    median over its stock runtime's, as a cost (time or overhead; a rate
    such as tasks_per_s is inverted), so that below 1 always means Bobbin
    is faster. The paired ratio is the dot; rows without a ratio (a cell
    that failed, or n/a) are named with their status at 0."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = [rt for rt in runtimes if RUNTIMES[rt][2] is not None and RUNTIMES[rt][2] in runtimes]
    if not columns:
        columns = [rt for rt in runtimes if RUNTIMES[rt][2] is not None]
    by = {(r["runtime"], r["row"]): r for r in records}
    rows = []
    for r in records:
        if r["row"] not in rows:
            rows.append(r["row"])
    if not columns or not rows:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, "no Bobbin column to compare", ha="center", va="center")
        ax.axis("off")
        fig.savefig(path)
        plt.close(fig)
        return

    def cost(rec, value):
        if value is None:
            return None
        return (1.0 / value if value else None) if higher_better(rec["metric"]) else value

    fig, axes = plt.subplots(1, len(columns), figsize=(5.5 * len(columns), 0.9 + 0.32 * len(rows)), squeeze=False)
    for ax, rt in zip(axes[0], columns):
        base = RUNTIMES[rt][2]
        ys = list(range(len(rows)))[::-1]
        vals, paired, labels = [], [], []
        for row in rows:
            rec = by.get((rt, row))
            v = cost(rec, rec["ratio"]) if rec else None
            p = cost(rec, rec["paired"]["ratio"]) if rec and rec.get("paired") else None
            vals.append(v)
            paired.append(p)
            labels.append(row if v is not None else "%s (%s)" % (row, rec["status"] if rec else "missing"))
        colours = ["#2a7ab0" if v is not None and v <= 1.0 else "#c0504d" for v in vals]
        ax.barh(ys, [v or 0.0 for v in vals], color=colours, height=0.7)
        px = [(p, y) for p, y in zip(paired, ys) if p is not None]
        if px:
            ax.plot([p for p, _ in px], [y for _, y in px], "o", color="black", markersize=3, label="paired")
        for v, y in zip(vals, ys):
            if v is not None:
                ax.text(v, y, " %.2f" % v, va="center", fontsize=7)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=8)
        top = max([v for v in vals + paired if v is not None] + [1.0])
        ax.set_xlim(0, top * 1.18)
        ax.set_xlabel("%s / %s (below 1: Bobbin faster)" % (rt, base))
        ax.set_title("%s vs %s" % (rt, base), fontsize=10)
        if px:
            ax.legend(loc="lower right", fontsize=7, frameon=False)
    fig.suptitle(subtitle, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
