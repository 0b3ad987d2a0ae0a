#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The seed table from the figures bench/seed-guest.sh wrote.

  seed-table.py RAW_CSV OUTDIR COMMIT KERNEL

RAW_CSV holds "half,setup,metric,value" lines (value "fail" for a
measurement that did not happen; metric "skipped" for a setup that could
not be measured, the value saying why). Writes to OUTDIR:
  seed.csv  half,setup,metric,value,ratio: each figure with its ratio to the
            "host" setup (no firewall) of the same half, which was measured
            in the same boot;
  seed.md   the table of ratios in Markdown, with the figures, and the
            issue's targets against them;
  seed.dat, seed.png  the ratios as gnuplot data and their plot (when
            gnuplot is installed);
  scaling.csv, scaling.md, scaling.dat, scaling.png  the scaling half, when
            there is one: 64-byte UDP with N rules, N live flows, or N
            nftables rules in a chain, and what a packet costs beyond no
            firewall (scaling.md is also appended to seed.md);
  afwd-rss.csv  afwd's memory under floods of new flows (scaling half).
Exits 1 when a figure is missing or failed, so that a broken row is not
mistaken for a measured one.
"""
import csv
import os
import shutil
import subprocess
import sys

SETUPS = {
    "host": "Host (no firewall)",
    "allowed-10": "Allowed: afw, 10 rules",
    "allowed-100k": "Allowed: afw, 100k rules",
    "allowed-1m": "Allowed: afw, 1M rules",
    "allowed": "Allowed: afw, a kernel rule",
    "analyzed": "Analyzed: afwd `default allow`, then the kernel",
    "analyzed-port": "Analyzed: afwd by the port, the module taught",
    "transfer": "Transfer: afwd `default inspect`",
    "nft-set": "nftables, 100k rules in a set",
    "nft-chain": "nftables, 10k rules in a chain",
    "nfqueue": "kernel selftest nf-queue client, per packet",
    "opensnitch": "OpenSnitch, default allow",
    "host-again": "Host again (drift)",
}
# metric: (column title, unit, higher is better)
METRICS = {
    "throughput": [
        ("tcp1_gbps", "iperf3 1 stream", "Gbit/s", True),
        ("tcp4_gbps", "iperf3 4 streams", "Gbit/s", True),
        ("udp64_pps", "64-byte UDP", "pkt/s", True),
        ("cpu_busy_pct", "CPU busy, UDP at 200 Mbit/s", "%", False),
        ("ping_min_ms", "ping min", "ms", False),
        ("ping_avg_ms", "ping avg", "ms", False),
        ("ping_max_ms", "ping max", "ms", False),
    ],
    "latency": [
        ("conn_per_s", "new TCP connections", "conn/s", True),
        ("conn_p50_us", "connection p50", "us", False),
        ("conn_p99_us", "connection p99", "us", False),
        ("tls_per_s", "TLS handshakes", "hs/s", True),
        ("tls_p50_us", "TLS handshake p50", "us", False),
        ("tls_p99_us", "TLS handshake p99", "us", False),
        ("page_load_ms", "page load (Chromium)", "ms", False),
    ],
}
# The targets: (half, setup, metric, bound, at least?, what)
TARGETS = [
    ("throughput", "allowed-100k", "tcp1_gbps", 0.98, True, "Allowed, 100k rules"),
    ("throughput", "allowed-10", "udp64_pps", 0.97, True, "64-byte UDP"),
    ("throughput", "analyzed", "tcp1_gbps", 0.97, True, "Analyzed"),
    ("throughput", "transfer", "tcp1_gbps", 0.95, True, "Transfer"),
    ("throughput", "allowed-10", "ping_avg_ms", 1.10, False, "ping avg, Allowed"),
    ("latency", "analyzed", "conn_per_s", 0.8, True, "new connections through afwd"),
    ("latency", "analyzed", "conn_p50_us", 1.3, False, "their p50"),
    ("latency", "analyzed-port", "conn_per_s", 0.8, True, "new connections, afwd by the port"),
    ("latency", "analyzed-port", "conn_p50_us", 1.3, False, "their p50"),
    ("latency", "analyzed", "tls_p50_us", 1.05, False, "TLS handshake p50, Analyzed"),
    ("latency", "analyzed", "page_load_ms", 1.10, False, "page load, Analyzed"),
]


def num(v):
    try:
        return float(v)
    except ValueError:
        return None


def fmt(v):
    if v is None:
        return "fail"
    if v >= 1000:
        return "{:,.0f}".format(v)
    if v >= 100:
        return "{:.1f}".format(v)
    return "{:.3f}".format(v)


def scaling(fig, skipped, order, outdir, commit, kernel):
    """The scaling half: scaling.csv, scaling.md and scaling.png; the count
    of figures missing."""
    if not order:
        return 0
    bad = 0
    host = fig.get(("scaling", "host", "udp64_pps"))
    floods = [setup for setup in order if setup.startswith("afwd-")]
    order = [setup for setup in order if setup not in floods]
    rows = []
    for setup in order:
        if ("scaling", setup) in skipped:
            rows.append((setup, None, None, None, skipped[("scaling", setup)]))
            continue
        pps = fig.get(("scaling", setup, "udp64_pps"))
        if not pps:
            pps = None
            bad += 1
        extra = None if pps is None or not host else 1e9 / pps - 1e9 / host
        rows.append((setup, pps, extra, fig.get(("scaling", setup, "bytes_per_flow")), None))
    with open(os.path.join(outdir, "scaling.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["setup", "udp64_pps", "ratio", "ns_per_packet_over_host", "bytes_per_flow"])
        for setup, pps, extra, bpf, why in rows:
            if why is None:
                w.writerow([setup, "" if pps is None else pps,
                            "" if pps is None or not host else "{:.4f}".format(pps / host),
                            "" if extra is None else "{:.1f}".format(extra),
                            "" if bpf is None else "{:.0f}".format(bpf)])
    md = ["**Scaling** (-icount shift=0,sleep=off: a guest nanosecond is an instruction)", "",
          "| setup | 64-byte UDP (pkt/s) | ratio | ns a packet over Host | bytes a flow, all in |",
          "| --- | --- | --- | --- | --- |"]
    for setup, pps, extra, bpf, why in rows:
        if why is not None:
            md.append("| {} | not measured: {} | | | |".format(setup, why))
            continue
        md.append("| {} | {} | {} | {} | {} |".format(
            setup, fmt(pps), "" if pps is None or not host else "{:.3f}".format(pps / host),
            "" if extra is None else "{:.0f}".format(extra),
            "" if bpf is None else "{:.0f}".format(bpf)))
    if floods:
        md += ["", "**afwd's memory** under a flood of new flows (UDP, each from a port of"
               " its own, queued to afwd, allowed and installed)", "",
               "| flows sent | read by afwd | RSS idle | RSS peak | bytes a flow at the peak |",
               "| --- | --- | --- | --- | --- |"]
        with open(os.path.join(outdir, "afwd-rss.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["flows_sent", "flows_read", "rss_idle_kb", "rss_peak_kb",
                        "bytes_per_flow"])
            for setup in floods:
                sent = setup[len("afwd-"):]
                if ("scaling", setup) in skipped:
                    md.append("| {:,} | not measured: {} | | | |".format(
                        int(sent), skipped[("scaling", setup)]))
                    continue
                v = [fig.get(("scaling", setup, m)) for m in
                     ("afwd_flows_read", "afwd_rss_idle_kb", "afwd_rss_peak_kb",
                      "afwd_bytes_per_flow")]
                bad += sum(x is None for x in v)
                w.writerow([sent] + ["" if x is None else "{:.0f}".format(x) for x in v])
                md.append("| {:,} | {} | {} | {} | {} |".format(
                    int(sent), "fail" if v[0] is None else "{:,.0f}".format(v[0]),
                    *("fail" if x is None else "{:.1f} MB".format(x / 1024) for x in v[1:3]),
                    "fail" if v[3] is None else "{:,.0f}".format(v[3])))
    with open(os.path.join(outdir, "scaling.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # One line a kind: the count against the instructions a packet costs
    # beyond no firewall's.
    dat = os.path.join(outdir, "scaling.dat")
    with open(dat, "w") as f:
        for kind in ("rules", "flows", "nft-chain"):
            f.write("# {}\n".format(kind))
            for setup, pps, extra, _, why in rows:
                if why is None and extra is not None and setup.startswith(kind + "-"):
                    f.write("{} {:.1f}\n".format(setup[len(kind) + 1:], max(extra, 1)))
            f.write("\n\n")
    if shutil.which("gnuplot"):
        script = """
set terminal pngcairo size 1000,600 font ",11"
set output "{png}"
set title "What a forwarded 64-byte packet costs beyond no firewall ({kernel}, commit {commit})"
set logscale xy
set xlabel "rules, or live flows"
set ylabel "guest instructions a packet (-icount)"
set grid
set key left top
plot "{dat}" index 0 using 1:2 with linespoints lw 2 title "afw, rules (the flow cached)", \\
     "{dat}" index 1 using 1:2 with linespoints lw 2 title "afw, live flows", \\
     "{dat}" index 2 using 1:2 with linespoints lw 2 title "nftables, a linear chain"
""".format(png=os.path.join(outdir, "scaling.png"), dat=dat, kernel=kernel, commit=commit)
        if subprocess.run(["gnuplot"], input=script, text=True).returncode:
            print("seed-table: gnuplot failed on the scaling plot", file=sys.stderr)
            bad += 1
    return bad


def main():
    raw, outdir, commit, kernel = sys.argv[1:5]
    # seed.sh says which commit each half was measured at when they differ.
    commit = commit.replace(",", ", ")
    fig = {}
    skipped = {}
    order = {"throughput": [], "latency": [], "scaling": []}
    with open(raw) as f:
        for row in csv.reader(f):
            if len(row) < 4 or row[0] not in order:
                continue
            half, setup, metric = row[0], row[1], row[2]
            value = ",".join(row[3:])
            if metric == "skipped":
                skipped[(half, setup)] = value
                if setup not in order[half] and setup != "all":
                    order[half].append(setup)
                continue
            if setup not in order[half]:
                order[half].append(setup)
            fig[(half, setup, metric)] = num(value)

    bad = 0
    ratios = {}
    with open(os.path.join(outdir, "seed.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["half", "setup", "metric", "value", "ratio"])
        for half, metrics in METRICS.items():
            for setup in order[half]:
                if (half, setup) in skipped:
                    continue
                for metric, _, _, _ in metrics:
                    v = fig.get((half, setup, metric))
                    b = fig.get((half, "host", metric))
                    r = v / b if v is not None and b else None
                    # A page load is measured for some setups only.
                    if v is None and (metric != "page_load_ms" or
                                      (half, setup, metric) in fig):
                        bad += 1
                    ratios[(half, setup, metric)] = r
                    w.writerow([half, setup, metric, "" if v is None else v,
                                "" if r is None else "{:.4f}".format(r)])

    bad += scaling(fig, skipped, order["scaling"], outdir, commit, kernel)

    md = ["<!-- written by bench/seed.sh; do not edit -->",
          "Commit {}, Debian {} kernel, one vCPU. Each cell is the figure, then its"
          " ratio to Host in the same boot (for times, lower is better).".format(commit, kernel),
          ""]
    for half, metrics in METRICS.items():
        if not order[half]:
            continue
        md.append("**{}** ({})".format(
            half.capitalize(),
            "-icount shift=0,sleep=off" if half == "throughput" else "-icount shift=0"))
        md.append("")
        md.append("| setup | " + " | ".join("{} ({})".format(t, u) for _, t, u, _ in metrics) + " |")
        md.append("| --- |" + " --- |" * len(metrics))
        for setup in order[half]:
            name = SETUPS.get(setup, setup)
            if (half, setup) in skipped:
                md.append("| {} | not measured: {} |".format(name, skipped[(half, setup)]) +
                          " |" * (len(metrics) - 1))
                continue
            cells = []
            for metric, _, _, _ in metrics:
                v = fig.get((half, setup, metric))
                r = ratios.get((half, setup, metric))
                if metric == "page_load_ms" and (half, setup, metric) not in fig:
                    cells.append("")
                    continue
                cells.append(fmt(v) if r is None else "{} ({:.3f})".format(fmt(v), r))
            md.append("| {} | ".format(name) + " | ".join(cells) + " |")
        md.append("")
    md.append("Targets (issue 13):")
    md.append("")
    for half, setup, metric, bound, least, what in TARGETS:
        r = ratios.get((half, setup, metric))
        if r is None:
            md.append("- {}: not measured".format(what))
            continue
        met = r >= bound if least else r <= bound
        md.append("- {} {} {:.2f}: {:.3f}, {}".format(
            what, ">=" if least else "<=", bound, r, "met" if met else "**not met**"))
    if order["scaling"]:
        with open(os.path.join(outdir, "scaling.md")) as f:
            md.append("")
            md.append(f.read().rstrip("\n"))
    with open(os.path.join(outdir, "seed.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    # The plot: each setup's ratios, higher-is-better metrics as they are,
    # times inverted (Host's time over the setup's), so that taller is
    # better everywhere and 1 is no firewall.
    cols = [("throughput", "tcp1_gbps", "iperf3 1 stream"),
            ("throughput", "udp64_pps", "64-byte UDP"),
            ("throughput", "ping_avg_ms", "ping (inverse)"),
            ("latency", "conn_per_s", "new connections"),
            ("latency", "tls_p50_us", "TLS p50 (inverse)"),
            ("latency", "page_load_ms", "page load (inverse)")]
    setups = [s for s in SETUPS if s not in ("host", "host-again") and
              any((h, s, m) in ratios for h, m, _ in cols)]
    dat = os.path.join(outdir, "seed.dat")
    with open(dat, "w") as f:
        f.write("setup\t" + "\t".join('"{}"'.format(t) for _, _, t in cols) + "\n")
        for s in setups:
            vals = []
            for h, m, _ in cols:
                r = ratios.get((h, s, m))
                if r and m.endswith(("_ms", "_us")):
                    r = 1 / r
                vals.append("{:.4f}".format(r) if r else "NaN")
            f.write('"{}"\t'.format(s) + "\t".join(vals) + "\n")
    if shutil.which("gnuplot"):
        script = """
set terminal pngcairo size 1400,700 font ",11"
set output "{png}"
set title "afw against no firewall, same boot ({kernel}, commit {commit}): higher is better, 1 = no firewall"
set style data histograms
set style histogram clustered gap 2
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:1.2]
set ytics 0.1
set grid ytics
set key outside right top
set xtics rotate by -30 scale 0
set datafile missing "NaN"
plot for [i=2:{n}] "{dat}" using i:xtic(1) title columnheader(i), 1 with lines lc rgb "black" dt 2 notitle
""".format(png=os.path.join(outdir, "seed.png"), dat=dat, n=len(cols) + 1,
           kernel=kernel, commit=commit)
        p = subprocess.run(["gnuplot"], input=script, text=True)
        if p.returncode:
            print("seed-table: gnuplot failed", file=sys.stderr)
            bad += 1
    else:
        print("seed-table: no gnuplot (scripts/install-deps --bench); no plot", file=sys.stderr)
    if bad:
        print("seed-table: {} figures missing or failed".format(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
