"""The chart (time against corpus size, refcheck and the parse floor) and the Markdown table
of a results document."""

from __future__ import annotations

TARGETS = {
    "ratio_to_floor": ("single-process total / parse floor", 1.3, "<="),
    "speedup_j2": ("2-core speedup (-j1 / -j2)", 1.8, ">="),
    "peak_rss_mb_j1": ("peak memory per worker (MB)", 300, "<"),
}


def draw(doc: dict, path: str) -> bool:
    """Writes the PNG; False (and a note) when matplotlib is missing (pip install -e .[bench])."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart: matplotlib not installed (pip install -e '.[bench]'): no PNG written")
        return False
    sizes = sorted(doc["sizes"], key=lambda s: s["lines"])
    x = [s["lines"] / 1000 for s in sizes]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    ax.plot(x, [s["j1_seconds"] for s in sizes], "o-", label="refcheck -j 1 --no-cache")
    ax.plot(x, [s["j2_seconds"] for s in sizes], "s-", label="refcheck -j 2 --no-cache")
    ax.plot(x, [s["floor_seconds"] for s in sizes], "^--", label="libclang parse floor (1 process)")
    ax.plot(x, [s["warm_seconds"] for s in sizes], "x:", label="refcheck, unchanged tree (warm cache)")
    for name in ("cppcheck", "clang --analyze"):
        pts = [(s["lines"] / 1000, s["tools"][name]["seconds"]) for s in sizes
               if "seconds" in s["tools"].get(name, {})]
        if pts:
            ax.plot(*zip(*pts), ".-", alpha=0.6, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("corpus size (thousands of preprocessed lines)")
    ax.set_ylabel("wall time (s), median")
    ax.set_title(f"refcheck vs parse floor ({doc['machine']['cpus']} cores, loaded machine)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def table(doc: dict) -> str:
    rows = ["| size | units | functions | floor (s) | -j1 (s) | ratio | parse / cfg / analysis / report (s) "
            "| -j2 (s) | speedup | cold (s) | warm (s) | 1 changed (s) | its parse (s) | ms/KLOC | peak MB/worker |",
            "|" + "---|" * 15]
    for s in doc["sizes"]:
        st = s["j1_stages"]
        rows.append(
            f"| {s['size']} ({s['lines'] / 1000:.0f} KLOC) | {s['units']} | {s['functions']} "
            f"| {s['floor_seconds']:.2f} | {s['j1_seconds']:.2f} | {s['ratio_to_floor']:.1f}x "
            f"| {st['parse']:.2f} / {st['cfg']:.2f} / {st['analysis']:.2f} / {st['report']:.2f} "
            f"| {s['j2_seconds']:.2f} | {s['speedup_j2']:.2f}x | {s['cold_seconds']:.2f} "
            f"| {s['warm_seconds']:.2f} | {s['changed_seconds']:.2f} | {s['changed_unit_parse_seconds']:.2f} "
            f"| {s['ms_per_kloc_j1']:.0f} | {s['peak_rss_mb_j1']:.0f} (-j2: {s['peak_rss_mb_j2']:.0f}) |")
    rows += ["", "| size | tool | time (s) | planted bugs found | false positives (locations) | notes |",
             "|---|---|---|---|---|---|"]
    for s in doc["sizes"]:
        for name, t in s["tools"].items():
            if "skipped" in t:
                rows.append(f"| {s['size']} | {name} | - | - | - | {t['skipped']} |")
                continue
            note = t.get("version", "")
            if t.get("tool_errors"):
                note += f"{t['tool_errors']} tool errors"
            rows.append(f"| {s['size']} | {name} | {t['seconds']:.2f} | {t['found']}/{t['planted']} "
                        f"| {t['false_positives']} | {note} |")
    rt = doc.get("runtime")
    if rt and "warm_seconds" in rt:
        rows += ["", f"runtime/TH: cold {rt['cold_seconds']:.2f} s, unchanged tree (warm) "
                     f"{rt['warm_seconds']:.2f} s, --no-cache {rt['nocache_seconds']:.2f} s"]
    if doc.get("worst_case"):
        rows += ["", "| shape | n | cfg + analysis (s) | bound reached |", "|---|---|---|---|"]
        rows += [f"| {w['shape']} | {w['size']} | {w['seconds']:.3f} | {'yes' if w['bounded'] else 'no'} |"
                 for w in doc["worst_case"]]
    return "\n".join(rows)
