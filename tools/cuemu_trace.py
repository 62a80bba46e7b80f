#!/usr/bin/env python3
"""cuemu_trace.py - read the timeline that CUEMU_TRACE=file.json writes.

  check [--expect-overlap] [--expect-host-wait TEXT] [--expect-category CAT]
        -- PROGRAM [ARGS...]
      Runs PROGRAM with CUEMU_TRACE set to a temporary file, requires it to
      exit 0, and checks the trace: valid JSON in the Chrome trace-event
      format, every row named, each stream's work one piece after another
      (stream order). --expect-overlap: a copy on one stream ran while a
      kernel of another stream ran (in one of up to three runs: a loaded
      machine may serialise the engines). --expect-host-wait TEXT: the host waited
      in a call whose name contains TEXT. --expect-category CAT: some work of
      that category ("host function", "memset", ...) is on a stream's row.
  svg TRACE.json OUT.svg [--title TEXT] [--start-at-row NAME]
      Draws the trace as a picture: one row per stream and one for the host,
      kernels, copies and host waits as bars on a shared time axis.
      --start-at-row: the axis starts where that row's first work starts.
  picture OUT.svg [--title TEXT] [--start-at-row NAME] -- PROGRAM [ARGS...]
      Runs PROGRAM with a trace and draws it. The picture records ARGS and
      what each row holds (the kinds of work in stream order, not the times).
  picture-check OUT.svg -- PROGRAM
      Runs PROGRAM again with the ARGS the picture records and fails when the
      rows no longer hold the same work: the program changed, draw it again.

The test of lesson 17 and the emulator's tests use `check`; lesson 17's
README shows a `picture`, which the test lesson17.timeline-picture keeps in
step with the program through `picture-check`.
"""
import json
import os
import subprocess
import sys
import tempfile

STREAM_ORDER_SLACK_US = 0.01  # times are written rounded to 0.001 us


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def load(path):
    """The trace's events, or a failure that says what is wrong with the file."""
    try:
        with open(path, encoding="utf-8") as f:
            events = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path} is not valid JSON: {e}")
    if not isinstance(events, list):
        fail(f"{path}: a trace-event file is a JSON array")
    for e in events:
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                fail(f"an event without '{key}': {e}")
        if e["ph"] not in ("M", "X", "i"):
            fail(f"an unexpected phase '{e['ph']}': {e}")
        if e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)):
            fail(f"an event without a time stamp: {e}")
        if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            fail(f"a complete event without a duration: {e}")
    return events


def row_names(events):
    return {e["tid"]: e["args"]["name"] for e in events
            if e["ph"] == "M" and e["name"] == "thread_name"}


def spans(events):
    return [e for e in events if e["ph"] == "X"]


def copy_kernel_overlaps(work):
    kernels = [e for e in work if e["cat"] == "kernel"]
    copies = [e for e in work if e["cat"] == "copy"]
    return [(c, k) for c in copies for k in kernels if c["tid"] != k["tid"] and
            c["ts"] < k["ts"] + k["dur"] and k["ts"] < c["ts"] + c["dur"]]


def check(events, expect_overlap, expect_host_wait, expect_category=None):
    names = row_names(events)
    for e in events:
        if e["ph"] != "M" and e["tid"] not in names:
            fail(f"row {e['tid']} has no name: {e}")
    work = [e for e in spans(events) if e["tid"] != 0]
    if not work:
        fail("no device work in the trace")
    by_stream = {}
    for e in work:
        by_stream.setdefault(e["tid"], []).append(e)
    for tid, items in by_stream.items():
        items.sort(key=lambda e: e["ts"])
        for a, b in zip(items, items[1:]):
            if b["ts"] + STREAM_ORDER_SLACK_US < a["ts"] + a["dur"]:
                fail(f"{names[tid]}: '{b['name']}' began before '{a['name']}' ended")
    counts = {}
    for e in work:
        counts[e["cat"]] = counts.get(e["cat"], 0) + 1
    print("trace: " + ", ".join(f"{n} {c}" for c, n in sorted(counts.items())) +
          f" on {len(by_stream)} stream(s)")
    if expect_overlap:
        overlaps = copy_kernel_overlaps(work)
        if not overlaps:
            fail("no copy ran while a kernel of another stream ran")
        c, k = overlaps[0]
        print(f"overlap: {len(overlaps)} (copy, kernel) pairs of different streams, e.g. "
              f"'{c['name']}' on {names[c['tid']]} during '{k['name']}' on {names[k['tid']]}")
    if expect_category and expect_category not in counts:
        fail(f"no '{expect_category}' on any stream")
    if expect_host_wait:
        waits = [e for e in spans(events) if e["tid"] == 0 and expect_host_wait in e["name"]]
        if not waits:
            fail(f"the host never waited in a call named like '{expect_host_wait}'")
        print(f"host waits in '{expect_host_wait}': {len(waits)}")


def run_and_check(args):
    expect_overlap = False
    expect_host_wait = None
    expect_category = None
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--expect-overlap":
            expect_overlap = True
        elif option == "--expect-host-wait" and args:
            expect_host_wait = args.pop(0)
        elif option == "--expect-category" and args:
            expect_category = args.pop(0)
        else:
            fail(f"unknown option {option}")
    if not args or len(args) < 2:
        fail("usage: check [options] -- PROGRAM [ARGS...]")
    program = args[1:]
    # Whether a copy and another stream's kernel overlap depends on the
    # machine's other work (two engine threads need two free cores at once):
    # a loaded machine may run them one after the other, so an overlap is
    # looked for in up to three runs. An emulator that never overlaps fails all three.
    attempts = 3 if expect_overlap else 1
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            result = subprocess.run(program, env=dict(os.environ, CUEMU_TRACE=path),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            print(result.stdout, end="")
            if result.returncode != 0:
                fail(f"{os.path.basename(program[0])} exited with status {result.returncode}")
            events = load(path)
        overlapped = bool(copy_kernel_overlaps([e for e in spans(events) if e["tid"] != 0]))
        if overlapped or attempt == attempts:
            check(events, expect_overlap, expect_host_wait, expect_category)
            break
        print(f"run {attempt}: no copy overlapped another stream's kernel; running again")
    print("PASS: the trace is valid")


# ---- the picture ----------------------------------------------------------------
COLOURS = {"kernel": "#4c78a8", "copy": "#f58518", "memset": "#72b7b2",
           "host function": "#54a24b", "host waits": "#b0b0b0"}


def xml_text(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def rows_summary(events, names, start_at_row):
    """Each stream's work in order, as its categories: what the picture shows
    that does not depend on timing."""
    bars = visible_spans(events, names, start_at_row)
    lines = []
    for tid in sorted({e["tid"] for e in bars if e["tid"] != 0}):
        kinds = [e["cat"] for e in sorted(bars, key=lambda e: e["ts"]) if e["tid"] == tid]
        lines.append(f"{names[tid]}: {' '.join(kinds)}")
    return lines


def visible_spans(events, names, start_at_row):
    bars = spans(events)
    if start_at_row:
        tids = [t for t, n in names.items() if n == start_at_row]
        if not tids:
            fail(f"no row named '{start_at_row}'")
        first = min((e["ts"] for e in bars if e["tid"] == tids[0]), default=None)
        if first is None:
            fail(f"nothing on row '{start_at_row}'")
        # What ends after that point, cut there (a host wait that began before).
        bars = [dict(e, ts=max(e["ts"], first), dur=e["ts"] + e["dur"] - max(e["ts"], first))
                for e in bars if e["ts"] + e["dur"] > first]
    return bars


def svg(trace_path, out_path, title, start_at_row=None, made_by=None):
    events = load(trace_path)
    names = row_names(events)
    bars = visible_spans(events, names, start_at_row)
    if not bars:
        fail("nothing to draw")
    rows = sorted({e["tid"] for e in bars})
    t0 = min(e["ts"] for e in bars)
    t1 = max(e["ts"] + e["dur"] for e in bars)
    label_w, width, row_h, top = 170, 900, 34, 50
    scale = (width - label_w - 20) / max(t1 - t0, 1e-9)
    height = top + row_h * len(rows) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
           f'<title>{xml_text(title)}</title>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<desc>{xml_text(made_by or "drawn by tools/cuemu_trace.py svg")}\n' +
           xml_text("\n".join(rows_summary(events, names, start_at_row))) + '</desc>',
           f'<text x="10" y="24" font-size="15">{xml_text(title)}</text>']
    for r, tid in enumerate(rows):
        y = top + r * row_h
        out.append(f'<text x="10" y="{y + 21}">{xml_text(names.get(tid, str(tid)))}</text>')
        out.append(f'<line x1="{label_w}" y1="{y + row_h - 2}" x2="{width - 10}" '
                   f'y2="{y + row_h - 2}" stroke="#dddddd"/>')
        for e in (e for e in bars if e["tid"] == tid):
            x = label_w + (e["ts"] - t0) * scale
            w = max(e["dur"] * scale, 2.0)  # a short copy stays visible
            colour = COLOURS.get(e.get("cat", ""), "#999999")
            out.append(f'<rect x="{x:.1f}" y="{y + 6}" width="{w:.1f}" height="{row_h - 12}" '
                       f'fill="{colour}"><title>{xml_text(e["name"])}</title></rect>')
    axis_y = top + row_h * len(rows) + 16
    span_ms = (t1 - t0) / 1000.0
    out.append(f'<text x="{label_w}" y="{axis_y}">0 ms</text>')
    out.append(f'<text x="{width - 10}" y="{axis_y}" text-anchor="end">{span_ms:.1f} ms</text>')
    x = label_w
    for cat in ("kernel", "copy", "host waits"):
        out.append(f'<rect x="{x}" y="{axis_y + 14}" width="14" height="14" fill="{COLOURS[cat]}"/>')
        out.append(f'<text x="{x + 20}" y="{axis_y + 26}">{cat}</text>')
        x += 130
    out.append("</svg>")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def options_and_program(args, known):
    """(options dict, program list) from [--opt value ...] -- PROGRAM ARGS."""
    options = {}
    while args and args[0] != "--":
        option = args.pop(0)
        if option not in known or not args:
            fail(f"unknown option or missing value: {option}")
        options[option] = args.pop(0)
    return options, args[1:]


def traced_run(program, tmp):
    path = os.path.join(tmp, "trace.json")
    result = subprocess.run(program, env=dict(os.environ, CUEMU_TRACE=path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(program)} exited with status {result.returncode}: {result.stderr}")
    return path


MADE_BY = "made by: tools/cuemu_trace.py picture"
ARGS_LINE = "program arguments: "


def picture(args):
    out_path = args.pop(0)
    options, program = options_and_program(args, {"--title", "--start-at-row"})
    if not program:
        fail("usage: picture OUT.svg [options] -- PROGRAM [ARGS...]")
    start = options.get("--start-at-row")
    made_by = (f"{MADE_BY} {out_path}" + (f" --start-at-row '{start}'" if start else "") +
               f" -- {os.path.basename(program[0])} ...\n{ARGS_LINE}{json.dumps(program[1:])}")
    with tempfile.TemporaryDirectory() as tmp:
        svg(traced_run(program, tmp), out_path, options.get("--title", "CUEMU_TRACE timeline"),
            start, made_by)


def picture_check(args):
    svg_path = args.pop(0)
    _, program = options_and_program(args, set())
    with open(svg_path, encoding="utf-8") as f:
        text = f.read()
    desc = text[text.index("<desc>") + 6:text.index("</desc>")].replace("&gt;", ">") \
        .replace("&lt;", "<").replace("&amp;", "&").split("\n")
    program_args = json.loads(next(l for l in desc if l.startswith(ARGS_LINE))[len(ARGS_LINE):])
    start = None
    if "--start-at-row '" in desc[0]:
        start = desc[0].split("--start-at-row '")[1].split("'")[0]
    with tempfile.TemporaryDirectory() as tmp:
        events = load(traced_run(program + program_args, tmp))
    now = rows_summary(events, row_names(events), start)
    drawn = desc[2:]
    if now != drawn:
        print("the picture shows:\n  " + "\n  ".join(drawn))
        print("the program does now:\n  " + "\n  ".join(now))
        fail(f"{svg_path} is out of date: draw it again with the command in its <desc>")
    print(f"PASS: {svg_path} shows what the program does ({len(now)} streams)")


def main(argv):
    if len(argv) >= 2 and argv[1] == "check":
        run_and_check(argv[2:])
    elif len(argv) >= 4 and argv[1] == "svg":
        options, _ = options_and_program(argv[4:] + ["--"], {"--title", "--start-at-row"})
        svg(argv[2], argv[3], options.get("--title", "CUEMU_TRACE timeline"),
            options.get("--start-at-row"))
    elif len(argv) >= 3 and argv[1] == "picture":
        picture(argv[2:])
    elif len(argv) >= 3 and argv[1] == "picture-check":
        picture_check(argv[2:])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
