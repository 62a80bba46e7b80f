"""profile_svg.py - the pictures of tools/profile_report.py, as SVG written by hand.

  roofline_svg        the GPU model's roofline (DRAM and FP32 ceilings, FP64 too when a
                      kernel computes in double), each kernel a labelled point; kernels
                      with no floating-point work as bars of DRAM bandwidth below it
  access_global_svg   one warp's worst global request: lanes -> the 32-byte sectors
  access_shared_svg   one warp's worst shared request: lanes -> the 32 banks

No dependency: plain strings, every text escaped, so any XML parser reads the result.
"""
import math
from xml.sax.saxutils import escape, quoteattr

FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22"]


def document(width, height, title, body):
    return (f"<?xml version='1.0' encoding='UTF-8'?>\n"
            f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'"
            f" viewBox='0 0 {width} {height}' {FONT} font-size='12'>\n"
            f"<title>{escape(title)}</title>\n"
            f"<rect width='{width}' height='{height}' fill='white'/>\n"
            + "\n".join(body) + "\n</svg>\n")


def text(x, y, content, size=12, anchor="start", colour="#222", extra=""):
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}'"
            f" fill='{colour}'{extra}>{escape(content)}</text>")


def line(x1, y1, x2, y2, colour="#222", width=1.0, extra=""):
    return (f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}'"
            f" stroke='{colour}' stroke-width='{width}'{extra}/>")


def box(x, y, w, h, fill, stroke="#333", extra=""):
    return (f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}'"
            f" fill='{fill}' stroke='{stroke}'{extra}/>")


def caption(lines, x, y):
    return [text(x, y + 16 * i, content, size=12 if i else 13) for i, content in enumerate(lines)]


def number(value):
    """A figure for a label: 3350, 66.9k, 0.25."""
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


# ---- the roofline -------------------------------------------------------------

def decades(low, high):
    return 10.0 ** math.floor(math.log10(low)), 10.0 ** math.ceil(math.log10(high))


def roofline_svg(summaries, gpu):
    on_roof = [s for s in summaries if s["flops"] > 0 and s["estimated_gflops"]]
    off_roof = [s for s in summaries if s not in on_roof]
    bandwidth, fp32 = gpu["dram_gbs"], gpu["fp32_gflops"]
    ceilings = [("FP32", fp32, "none")]
    if any(s["precision"] == "fp64" for s in on_roof):
        ceilings.append(("FP64", gpu["fp64_gflops"], "6,4"))
    ridge = fp32 / bandwidth
    # A kernel that reads nothing from DRAM has no finite intensity: drawn at the right edge.
    finite = [s["arithmetic_intensity"] for s in on_roof if s["arithmetic_intensity"]]
    x_low, x_high = decades(min(finite + [ridge / 100]), max(finite + [ridge * 10]))
    y_values = [s["estimated_gflops"] for s in on_roof]
    y_low, y_high = decades(min(y_values + [fp32 / 1e4, ceilings[-1][1] / 10]),
                            max(y_values + [fp32 * 1.5]))

    left, top, plot_w, plot_h = 80, 60, 600, 380
    width = left + plot_w + 200

    def px(x):
        return left + plot_w * math.log10(x / x_low) / math.log10(x_high / x_low)

    def py(y):
        return top + plot_h * (1 - math.log10(y / y_low) / math.log10(y_high / y_low))

    body = [text(left, 24, f"Roofline of {gpu['name']} ({gpu['full_name']})", size=15),
            text(left, 44, "ESTIMATED by cuemu's model, not measured: each kernel at its FLOPs"
                 " per DRAM byte and its estimated GFLOP/s", size=11, colour="#555"),
            box(left, top, plot_w, plot_h, "none", "#999")]
    exponent = round(math.log10(x_low))
    while 10.0 ** exponent <= x_high * 1.0001:
        x = px(10.0 ** exponent)
        body += [line(x, top, x, top + plot_h, "#ddd"),
                 text(x, top + plot_h + 16, number(10.0 ** exponent), 11, "middle")]
        exponent += 1
    exponent = round(math.log10(y_low))
    while 10.0 ** exponent <= y_high * 1.0001:
        y = py(10.0 ** exponent)
        body += [line(left, y, left + plot_w, y, "#ddd"),
                 text(left - 6, y + 4, number(10.0 ** exponent), 11, "end")]
        exponent += 1
    body += [text(left + plot_w / 2, top + plot_h + 36,
                  "arithmetic intensity (FLOPs per DRAM byte, DRAM bytes modelled)", 12, "middle"),
             text(22, top + plot_h / 2, "estimated GFLOP/s", 12, "middle",
                  extra=f" transform='rotate(-90 22 {top + plot_h / 2:.1f})'")]

    for label, peak, dash in ceilings:
        knee = peak / bandwidth
        start_x = max(x_low, y_low / bandwidth)
        points = [(start_x, start_x * bandwidth), (knee, peak), (x_high, peak)]
        drawn = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        body.append(f"<polyline points='{drawn}' fill='none' stroke='#444' stroke-width='2'"
                    f" stroke-dasharray='{dash}' class='ceiling'/>")
        body.append(text(px(x_high) - 4, py(peak) - 6, f"{label} peak {number(peak)} GFLOP/s",
                         11, "end", "#444"))
    slope_x = max(x_low, y_low / bandwidth) * 3
    body.append(text(px(slope_x) + 4, py(slope_x * bandwidth) - 8,
                     f"DRAM {number(bandwidth)} GB/s", 11, colour="#444"))

    label_ys = []
    for i, s in enumerate(sorted(on_roof, key=lambda s: -s["estimated_gflops"])):
        intensity = s["arithmetic_intensity"] or x_high
        x, y = px(min(intensity, x_high)), py(s["estimated_gflops"])
        colour = COLOURS[i % len(COLOURS)]
        label_y = y + 4
        while any(abs(label_y - taken) < 13 for taken in label_ys):
            label_y += 13
        label_ys.append(label_y)
        body.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='5' fill='{colour}' class='kernel-point'"
                    f" data-kernel={quoteattr(s['kernel'])}><title>{escape(s['kernel'])}:"
                    f" {s['arithmetic_intensity'] or 0:.3g} FLOP/byte,"
                    f" {s['estimated_gflops']:.4g} GFLOP/s (estimated)</title></circle>")
        body.append(text(x + 8, label_y, f"{s['kernel']} ({s['limiter']})", 11, colour=colour))

    height = top + plot_h + 60
    if off_roof:
        body.append(text(left, height, "Kernels with no floating-point work (not on the roofline):"
                         " estimated DRAM bandwidth, % of peak", 12))
        height += 10
        for i, s in enumerate(off_roof):
            share = min(max(s["pct_peak_dram_bw"] or 0.0, 0.0), 100.0)
            y = height + 22 * i
            body += [box(left + 180, y, plot_w - 180, 16, "#f3f3f3", "#bbb"),
                     box(left + 180, y, (plot_w - 180) * share / 100, 16,
                         COLOURS[i % len(COLOURS)], "none",
                         extra=f" class='kernel-bar' data-kernel={quoteattr(s['kernel'])}"),
                     text(left + 174, y + 12, s["kernel"], 11, "end"),
                     text(left + plot_w + 6, y + 12, f"{share:.1f}% ({s['limiter']})", 11)]
        height += 22 * len(off_roof) + 10
    return document(width, height + 10, f"Roofline of {gpu['name']} (estimated)", body)


# ---- one warp's worst request ---------------------------------------------------

LANE_W, LANE_H, LEFT = 24, 24, 40


def lane_row(y, active):
    """32 lane boxes; inactive lanes grey. Returns the SVG and each lane's centre x."""
    out, centres = [text(LEFT - 6, y + 16, "lane", 11, "end")], []
    for lane in range(32):
        x = LEFT + lane * LANE_W
        on = lane in active
        out.append(box(x, y, LANE_W - 2, LANE_H, "#dbe9f6" if on else "#eee",
                       "#333" if on else "#bbb", extra=" class='lane'"))
        out.append(text(x + (LANE_W - 2) / 2, y + 16, str(lane), 10, "middle",
                        "#222" if on else "#aaa"))
        centres.append(x + (LANE_W - 2) / 2)
    return out, centres


def request_header(kernel, kind, access):
    return [text(LEFT, 22, f"{kernel}: worst {kind} {access['op']} at {access['site']}", 14),
            text(LEFT, 40, "one warp's request from cuemu's profile (counters exact;"
                 " no GPU time involved)", 11, colour="#555")]


def touch(lane_x, target_x, target_y, colour):
    """The line from a lane (in the row at y = 60) to what it touched."""
    return line(lane_x, 60 + LANE_H, target_x, target_y, colour, 1.2, extra=" class='touch'")


def ideal_count(distinct_items, bytes_per_lane, unit_bytes):
    """The fewest units (sectors, wavefronts) the same distinct data could take."""
    return max(1, math.ceil(distinct_items * bytes_per_lane / unit_bytes))


def request_picture(kernel, kind, access, body, sample, per_request, ideal, why, bottom):
    """The picture of one request: what is drawn, and its caption below `bottom`."""
    average = (f"average over {access['requests']} requests:"
               f" {access[per_request.replace(' ', '_') + '_per_request']:.2f} {per_request}"
               f" per request; ideal {ideal}")
    body += caption([sample, average, why], LEFT, bottom + 32)
    return document(LEFT + 32 * LANE_W + 80, bottom + 90,
                    f"{kernel}: {kind} access at {access['site']}", body)


def access_global_svg(kernel, access, gpu):
    lanes = sorted(access["lanes"], key=lambda l: l["lane"])
    active = {l["lane"] for l in lanes}
    sectors = sorted({int(l["sector"]) for l in lanes})
    body = request_header(kernel, "global", access)
    row, centres = lane_row(60, active)
    body += row
    # Touched sectors only, in address order; a gap in the numbers leaves a gap in the row.
    slots, slot = {}, 0
    for i, sector in enumerate(sectors):
        if i and sector != sectors[i - 1] + 1:
            slot += 0.3
        slots[sector] = slot
        slot += 1
    sector_w = min(60.0, 32 * LANE_W / max(slot, 1))
    # Narrow boxes (many scattered sectors) are taller and carry their numbers upright.
    upright = sector_w < 8 * len(str(sectors[-1])) + 6 if sectors else False
    sector_y, sector_h = 200, 44 if upright else LANE_H
    body.append(text(LEFT - 6, sector_y + 16, "sector", 11, "end"))
    for sector in sectors:
        x = LEFT + slots[sector] * sector_w
        middle = x + (sector_w - 3) / 2
        body.append(box(x, sector_y, sector_w - 3, sector_h, "#fde3c8", extra=" class='sector'"))
        if upright:
            body.append(text(middle + 4, sector_y + sector_h - 4, str(sector), 10, "start",
                             extra=f" transform='rotate(-90 {middle + 4:.1f} "
                                   f"{sector_y + sector_h - 4:.1f})'"))
        else:
            body.append(text(middle, sector_y + 16, str(sector), 10, "middle"))
    for l in lanes:
        sector = int(l["sector"])
        x = LEFT + slots[sector] * sector_w + (sector_w - 3) / 2
        colour = COLOURS[sectors.index(sector) % len(COLOURS)]
        body.append(touch(centres[l["lane"]], x, sector_y, colour))
    distinct_offsets = {l.get("offset", l["sector"] * 32) for l in lanes}
    return request_picture(
        kernel, "global", access, body,
        f"this request: {len(active)} active lanes x {access['bytes_per_lane']} bytes touch"
        f" {len(sectors)} sectors of 32 bytes (numbered from the request's first sector)",
        "sectors", f"{ideal_count(len(distinct_offsets), access['bytes_per_lane'], 32)}"
        " (the same bytes, contiguous and aligned)",
        "each sector is a separate 32-byte transfer from L2 (and DRAM): more sectors,"
        " more traffic for the same data", sector_y + sector_h)


def access_shared_svg(kernel, access, gpu):
    lanes = sorted(access["lanes"], key=lambda l: l["lane"])
    active = {l["lane"] for l in lanes}
    words_in_bank = {}
    for l in lanes:
        words_in_bank.setdefault(int(l["bank"]), set()).add(l.get("word"))
    body = request_header(kernel, "shared", access)
    row, centres = lane_row(60, active)
    body += row
    bank_y = 200
    body.append(text(LEFT - 6, bank_y + 16, "bank", 11, "end"))
    for bank in range(32):
        x = LEFT + bank * LANE_W
        words = len(words_in_bank.get(bank, ()))
        fill = "#f4b6b6" if words > 1 else ("#d8f0d2" if words else "#f7f7f7")
        body.append(box(x, bank_y, LANE_W - 2, LANE_H, fill, extra=" class='bank'"))
        body.append(text(x + (LANE_W - 2) / 2, bank_y + 16, str(bank), 10, "middle"))
        if words > 1:
            body.append(text(x + (LANE_W - 2) / 2, bank_y + LANE_H + 14, f"x{words}", 10,
                             "middle", "#b00"))
    for l in lanes:
        bank = int(l["bank"])
        colour = "#b00" if len(words_in_bank[bank]) > 1 else "#2a7a2a"
        body.append(touch(centres[l["lane"]], LEFT + bank * LANE_W + (LANE_W - 2) / 2, bank_y,
                          colour))
    deepest = max((len(words) for words in words_in_bank.values()), default=0)
    distinct_words = {w for words in words_in_bank.values() for w in words}
    return request_picture(
        kernel, "shared", access, body,
        f"this request: {len(active)} active lanes x {access['bytes_per_lane']} bytes; the"
        f" busiest bank holds {deepest} different words (one word: a broadcast)",
        "wavefronts", ideal_count(len(distinct_words), access["bytes_per_lane"], 128),
        "a bank serves one 4-byte word per wavefront: red banks (xN) serialise the request",
        bank_y + 32)
