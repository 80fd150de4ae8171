"""Reads a report's CSVs as an analyst would and checks they are tidy.

usage: check.py MATRIX_DIR REPORT_DIR

Expected counts come from the matrix directory itself (matrix.json's cells,
each cell's timeseries/HOST-os.csv), not from orch: results.csv one row per
run, hosts.csv one per run x host, configurations.csv one per configuration,
tables.csv's Runs table one row per run.
With pandas installed the same is checked through pandas; else through the
csv module. Prints what it checked; exits 1 on a mismatch.
"""
import csv
import glob
import json
import os
import sys

matrix, report = sys.argv[1], sys.argv[2]
cells = [c for c in json.load(open(os.path.join(matrix, "matrix.json")))["cells"] if c.get("state") != "skipped"]
want_runs = sorted(c["id"] for c in cells)
want_hosts = sorted(
    (c["id"], os.path.basename(p)[: -len("-os.csv")])
    for c in cells
    for p in glob.glob(os.path.join(matrix, c.get("dir") or os.path.join("cells", c["id"]), "timeseries", "*-os.csv"))
)
want_labels = sorted({c["label"] for c in cells})
if not want_runs:
    sys.exit("no cells in %s: nothing to check" % matrix)
failed = []


def expect(what, got, want):
    if got != want:
        failed.append(what)
        print("FAIL %s: %r, want %r" % (what, got, want))
    else:
        print("ok %s: %s" % (what, len(want) if isinstance(want, list) and len(want) > 1 else want))


def rows(name):
    with open(os.path.join(report, name), newline="") as f:
        return list(csv.DictReader(f))


results, hosts, confs = rows("results.csv"), rows("hosts.csv"), rows("configurations.csv")
expect("results.csv one row per run", sorted(r["run"] for r in results), want_runs)
expect("hosts.csv one row per run x host", sorted((r["run"], r["host"]) for r in hosts), want_hosts)
expect("configurations.csv one row per configuration", sorted(r["label"] for r in confs), want_labels)
for c in confs:
    n = sum(1 for r in results if r["label"] == c["label"] and r["in_statistics"] == "true")
    expect("%s: label_n equals its runs in the statistics" % c["label"], [c["label_n"]], [str(n)])
    if c["is_baseline"] == "true":
        expect("%s: the baseline's ratio" % c["label"], [c["ratio_vs_baseline"]], ["1"])
    for r in results:
        if r["label"] == c["label"]:
            same = [k for k in c if r.get(k) != c[k]]
            expect("%s: %s repeats its configuration's columns" % (c["label"], r["run"]), same, [])

# tables.csv: the report's tables cell by cell; its Runs table has a row
# per run and its Configurations table one per configuration.
cells_csv = rows("tables.csv")
expect("tables.csv runs rows", sorted({r["row_label"] for r in cells_csv if r["section"] == "runs"}), want_runs)
expect("tables.csv configurations rows", sorted({r["row_label"] for r in cells_csv if r["section"] == "configurations"}), want_labels)

try:
    import pandas as pd
except ImportError:
    print("pandas not installed: checked with the csv module")
else:
    res = pd.read_csv(os.path.join(report, "results.csv"))
    hst = pd.read_csv(os.path.join(report, "hosts.csv"))
    cfg = pd.read_csv(os.path.join(report, "configurations.csv"))
    expect("pandas: results.csv groupby(run).size() all 1", sorted(res.groupby("run").size().to_dict().items()), [(r, 1) for r in want_runs])
    expect("pandas: hosts.csv rows", [len(hst)], [len(want_hosts)])
    expect("pandas: configurations.csv rows", [len(cfg)], [len(want_labels)])
    tab = pd.read_csv(os.path.join(report, "tables.csv"), dtype=str, keep_default_na=False)
    runs = tab[tab.section == "runs"].pivot(index="row_label", columns="column", values="cell")
    expect("pandas: tables.csv's Runs table pivots to one row per run", sorted(runs.index), want_runs)
sys.exit(1 if failed else 0)
