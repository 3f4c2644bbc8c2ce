"""Compares two scripts/arch_probe.py results (x86_64 and aarch64) and prints a verdict: the
same labels (and "visible") for every card of every `companion recognize --json` line, the
confidences within 0.005, and the scripted live game's events identical, in order. Exits 1 on
a mismatch (each one named), 0 when they agree.

    python scripts/arch_compare.py x86_64.json aarch64.json [--tolerance 0.005]
                                   [--cost-model benchmarks/results/pi_cost_model.json]

With --cost-model it also writes the Pi cost model: for each stage of the live reading (quiet
frame, frame with a change, event) and of `recognize`, the time here, the time under emulation
and their ratio, and the expected Pi 4 and Pi 5 times, scaled by sysbench's single-thread score
(measured here in the same run; published for the Pis), OpenCV on one thread:

    estimate  = time here                      x  sysbench here / sysbench on the Pi
    upper     = time here, 128-bit vectors only x  sysbench here / sysbench on the Pi

The upper figure comes from a third probe (--narrow) run here with OpenCV's AVX switched off
(OPENCV_CPU_DISABLE, as benchmarks/pi_budget.py does): a Pi's NEON vectors are 128 bits wide.
The time under emulation is not a Pi's time (qemu emulates NEON vector code far more slowly
than scalar code); its ratio to the native time says which stages lean on vector code.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TOLERANCE = 0.005

#: Published single-thread sysbench scores (`sysbench cpu --threads=1 run`, its default prime
#: limit 10000, 64-bit Raspberry Pi OS, no overclock), events per second.
PUBLISHED = {
    "pi4": {"board": "Raspberry Pi 4 (Cortex-A72, 1.8 GHz)", "sysbench_events_per_s": 812.0},
    "pi5": {"board": "Raspberry Pi 5 (Cortex-A76, 2.4 GHz)", "sysbench_events_per_s": 1847.0},
}
SOURCES = [
    "https://zbotic.in/raspberry-pi-5-benchmarks-real-performance-numbers-vs-pi-4/ "
    "(sysbench CPU single thread: Pi 4 812, Pi 5 1847 events/s)",
    "https://github.com/geerlingguy/sbc-reviews/issues/21 (Geekbench 6: Pi 5 748 single-core; "
    "a cross-check only)",
]


def _cards_key(card: dict) -> tuple:
    x, y = card.get("center", (0.0, 0.0))
    return (card["label"], round(x), round(y))


def compare(a: dict, b: dict, tolerance: float = TOLERANCE) -> list[str]:
    """Every difference between two probes that matters: [] when they agree."""
    problems: list[str] = []
    ra, rb = a.get("recognize", {}), b.get("recognize", {})
    for name in sorted(set(ra) | set(rb)):
        if name not in ra or name not in rb:
            problems.append(f"recognize {name}: only in {'the first' if name in ra else 'the second'}")
            continue
        ia = {img["image"]: img for img in ra[name]["images"]}
        ib = {img["image"]: img for img in rb[name]["images"]}
        if set(ia) != set(ib):
            problems.append(f"recognize {name}: images differ ({sorted(ia)} vs {sorted(ib)})")
        for image in sorted(set(ia) & set(ib)):
            ca = sorted(ia[image]["cards"], key=_cards_key)
            cb = sorted(ib[image]["cards"], key=_cards_key)
            la, lb = [c["label"] for c in ca], [c["label"] for c in cb]
            if la != lb:
                problems.append(f"recognize {name} {image}: labels differ: {la} vs {lb}")
                continue
            for x, y in zip(ca, cb):
                if x.get("visible") != y.get("visible"):
                    problems.append(f"recognize {name} {image} {x['label']}: visible "
                                    f"{x.get('visible')} vs {y.get('visible')}")
                diff = abs(x["confidence"] - y["confidence"])
                if diff > tolerance + 1e-12:
                    problems.append(f"recognize {name} {image} {x['label']}: confidence "
                                    f"{x['confidence']} vs {y['confidence']} (off by {diff:.4f}, "
                                    f"more than {tolerance})")
    ga, gb = a.get("game"), b.get("game")
    if ga is None or gb is None:
        problems.append("game: missing from one probe")
    else:
        if ga.get("script") != gb.get("script"):
            problems.append(f"game: different scripts ({ga.get('script')} vs {gb.get('script')})")
        ea, eb = ga["events"], gb["events"]
        for i, (x, y) in enumerate(zip(ea, eb)):
            if x != y:
                problems.append(f"game: event {i} differs: {x} vs {y}")
                break
        if len(ea) != len(eb):
            problems.append(f"game: {len(ea)} events vs {len(eb)}")
    return problems


def _stages(probe: dict) -> dict[str, float | None]:
    g = probe["game"]["stages_ms"]
    whole = sorted(img["ms"] for img in probe["recognize"]["whole-only"]["images"])
    two = [img["ms"] for img in probe["recognize"]["two-passes"]["images"]]
    return {
        "quiet frame": g["quiet"],
        "change frame": g["change"],
        "event": g["event"],
        "recognize --whole-only (a photo, median)": whole[len(whole) // 2] if whole else None,
        "recognize, both passes (flip-dark.jpg)": two[0] if two else None,
    }


def cost_model(native: dict, emulated: dict, narrow: dict | None = None, command: str = "") -> dict:
    """The Pi cost model from a native (x86_64) probe, an emulated (aarch64) one and, for the
    upper figures, a native one limited to 128-bit vectors."""
    here = native.get("sysbench_events_per_s")
    sn, se = _stages(native), _stages(emulated)
    sw = _stages(narrow) if narrow is not None else {}
    stages = {}
    for name, ms in sn.items():
        e, w = se.get(name), sw.get(name)
        row = {"x86_64_ms": ms, "x86_64_128bit_ms": w, "emulated_ms": e,
               "emulation_ratio": round(e / ms, 1) if ms and e else None}
        for pi, fig in PUBLISHED.items():
            score = fig["sysbench_events_per_s"]
            row[f"{pi}_ms"] = round(ms * here / score, 1) if ms and here else None
            row[f"{pi}_ms_upper"] = round(max(ms, w) * here / score, 1) if ms and w and here else None
        stages[name] = row
    # the event's latency: the camera's wait for the table to settle (frames, the same
    # everywhere) plus the work of the frame that publishes it
    latency = native["game"].get("event_latency_s_median")
    event_ms = sn["event"]
    wait = max(0.0, latency - event_ms / 1000.0) if latency is not None and event_ms else None
    latencies = {}
    if wait is not None:
        for pi in PUBLISHED:
            for key in (f"{pi}_ms", f"{pi}_ms_upper"):
                ms = stages["event"][key]
                latencies[key.replace("_ms", "")] = round(wait + ms / 1000.0, 3) if ms is not None else None

    def machine(probe):
        return {k: probe.get(k) for k in ("machine", "python", "numpy", "opencv", "opencv_threads",
                                          "opencv_cpu_disable", "sysbench_events_per_s")}

    return {
        "benchmark": "pi_cost_model",
        "command": command,
        "native": machine(native),
        "native_128bit": machine(narrow) if narrow is not None else None,
        "emulated": machine(emulated),
        "published": PUBLISHED,
        "sources": SOURCES,
        "game": native["game"]["script"],
        "stages": stages,
        "event_latency_s": {"x86_64": latency, "camera_wait_s": round(wait, 3) if wait is not None else None,
                            **latencies},
        "assumptions": [
            "one core: OpenCV on one thread (OPENCV_FOR_THREADS_NUM=1), as the reader and the "
            "referee run on one; a Pi's other three cores are spare",
            "estimate = time here x sysbench here / sysbench on the Pi (the same work per unit "
            "of single-thread score on both architectures)",
            "upper = the same with OpenCV's AVX switched off here (128-bit vectors, as NEON)",
            "sysbench's prime loop is scalar integer division, relatively strong on the Pi's "
            "cores: vector-heavy stages may fare worse than the estimate, hence the upper figure",
            "this machine's sysbench is the best of three runs; the stage times are medians, "
            "taken while other programs shared its two cores (they inflate both figures)",
            "the Pis cooled, not throttled, at their stock clocks (Pi 4: 1.8 GHz; a 1.5 GHz one "
            "is about a sixth slower)",
            "the event's latency: the camera's wait for the table to settle (frames at 30 per "
            "second, the same on every machine) plus the Pi's time for the event's frame",
            "the time under emulation is not a Pi's: qemu runs NEON vector code far more slowly "
            "than scalar code",
        ],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("native", help="the x86_64 probe (scripts/arch_probe.py --out)")
    ap.add_argument("emulated", help="the aarch64 probe")
    ap.add_argument("--tolerance", type=float, default=TOLERANCE)
    ap.add_argument("--cost-model", help="also write the Pi cost model (JSON) here")
    ap.add_argument("--narrow", help="a native probe with OpenCV's AVX off (the upper figures)")
    args = ap.parse_args(argv)
    try:
        a = json.loads(Path(args.native).read_text())
        b = json.loads(Path(args.emulated).read_text())
    except (OSError, ValueError) as exc:
        print(f"arch-compare: cannot read the probes: {exc}", file=sys.stderr)
        return 2
    problems = compare(a, b, args.tolerance)
    cards = sum(len(img["cards"]) for r in a.get("recognize", {}).values() for img in r["images"])
    events = len(a.get("game", {}).get("events", []))
    worst = 0.0
    for name, r in a.get("recognize", {}).items():
        other = {img["image"]: img for img in b.get("recognize", {}).get(name, {}).get("images", [])}
        for img in r["images"]:
            ob = sorted(other.get(img["image"], {}).get("cards", []), key=_cards_key)
            for x, y in zip(sorted(img["cards"], key=_cards_key), ob):
                if x["label"] == y["label"]:
                    worst = max(worst, abs(x["confidence"] - y["confidence"]))
    if args.cost_model:
        narrow = json.loads(Path(args.narrow).read_text()) if args.narrow else None
        model = cost_model(a, b, narrow, command="sudo make arm64-check (scripts/arm64-check.sh: "
                                         "scripts/arch_probe.py on both, scripts/arch_compare.py)")
        Path(args.cost_model).parent.mkdir(parents=True, exist_ok=True)
        Path(args.cost_model).write_text(json.dumps(model, indent=1) + "\n")
        print(f"    cost model written to {args.cost_model}")
        for name, row in model["stages"].items():
            print(f"    {name:41} x86_64 {row['x86_64_ms']} ms, emulated {row['emulated_ms']} ms "
                  f"(x{row['emulation_ratio']}); Pi 4 ~{row['pi4_ms']} ms (<= {row['pi4_ms_upper']}),"
                  f" Pi 5 ~{row['pi5_ms']} ms (<= {row['pi5_ms_upper']})")
    if problems:
        print(f"MISMATCH: {a.get('machine')} and {b.get('machine')} differ in {len(problems)} place(s):")
        for p in problems:
            print(f"  - {p}")
        return 1
    print(f"SAME: {a.get('machine')} and {b.get('machine')} agree: {cards} cards' labels identical, "
          f"confidences within {args.tolerance} (largest difference {worst:.4f}); "
          f"{events} game events identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
