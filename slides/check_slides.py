#!/usr/bin/env python3
"""Checks the lesson decks in slides/ (the ctest slides.check, and CI after rendering).

    check_slides.py [--html DIR] [SLIDES_DIR]

For every deck NN-topic.md in SLIDES_DIR (default: this file's folder):
  - it is a Marp deck (front matter with `marp: true`);
  - every slide has presenter notes: an HTML comment (Marp shows it in the
    presenter view) with a "Say:" line, what to tell the class, and an "Ask:"
    line, a question to put to it. Every slide, not just every deck: a teacher
    who reaches a slide with nothing in the presenter view has to improvise it;
  - every image it shows exists, and every SVG among them is well-formed XML
    with a viewBox (so it scales) and a <title> (read out by screen readers);
  - the decks that DIAGRAMS names show their diagram.
Every SVG in img/ is shown by some deck, and the pictures from img/ that the
lesson READMEs show exist. With --html DIR (what render.sh wrote to
DIR, e.g. build/slides/html), every deck has its HTML there, with one presenter
note per slide and the images beside it. Exit status 1 and one line per problem
on failure.
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

# Where a picture teaches better than words (issue 10): the deck, and the file
# it must show.
DIAGRAMS = {
    "02": "img/async-timeline.svg",      # launch returns, the GPU runs, synchronize waits
    "03": "img/host-device-memory.svg",  # two memories and the copies between them
    "04": "img/grid-of-blocks.svg",      # blocks of threads and the global index
    "05": "img/async-timeline.svg",
    "06": "img/grid-2d.svg",             # a 2D grid of 2D blocks over a matrix
    "08": "img/coalescing.svg",          # coalesced vs strided access
    "09": "img/tile-sliding.svg",        # a tile sliding along A and down B
    "10": "img/dense-layer.svg",         # Y = sigmoid(W X + b)
    "12": "img/reduction-tree.svg",      # a tree of pairs in shared memory, stride by stride
    "13": "img/blelloch-sweeps.svg",     # the up-sweep and down-sweep of a work-efficient scan
    "14": "img/histogram-privatised.svg",  # per-block shared bins merged into global bins
    "15": "img/transpose-banks.svg",     # banks of a 32 x 32 and a 32 x 33 tile
    "16": "img/conv-tile-halo.svg",      # output tile + halo, clamped at the picture's edge
    "17": "img/copy-compute-overlap.svg",  # one stream against three: engines busy at once
    "18": "img/column-major.svg",        # one buffer read row-major and column-major
    "19": "img/register-tile.svg",       # one thread's 8 x 8 outer product
    "20": "img/backward-data-flow.svg",  # the backward pass: buffers and the kernel between them
    "21": "img/ring-all-reduce.svg",     # reduce-scatter then all-gather round a ring of 3 GPUs
    "22": "img/top-k-pipeline.svg",      # transform, sequence, sort_by_key, copy_n; copy_if over a counting iterator
    "23": "img/curand-subsequences.svg",  # one seed: a subsequence per thread, or one shared by all
    "24": "img/wmma-tile-loop.svg",      # one warp per 16 x 16 tile of C, the tiles of A and B sliding along k
    "25": "img/launch-overhead.svg",     # a launch per kernel against one graph launch per step
    "26": "img/ranks-and-all-reduces.svg",  # ranks on 2 nodes, and the three ways to sum the gradients
}

# Marp directives may also sit in HTML comments; those are not notes.
DIRECTIVES = {
    "theme", "style", "headingDivider", "math", "size", "lang", "title", "description",
    "author", "image", "keywords", "url", "marp", "paginate", "header", "footer", "class",
    "backgroundColor", "backgroundImage", "backgroundPosition", "backgroundRepeat",
    "backgroundSize", "color", "transition",
}
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
COMMENT = re.compile(r"<!--(.*?)-->", re.S)
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)[^)]*\)|<img\s[^>]*src=\"([^\"]+)\"")
SVG_NS = "{http://www.w3.org/2000/svg}"


def split_slides(text):
    """The slides of a deck, each as its lines with fenced code blanked out
    (a --- or an HTML comment inside a code block is code, not Markdown)."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        start = lines.index("---", 1) + 1 if "---" in lines[1:] else len(lines)
    slides, current, fence = [], [], None
    for line in lines[start:]:
        opener = FENCE.match(line)
        if fence is None and opener:
            fence = opener.group(1)
            current.append("")
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            current.append("")
            continue
        if line.strip() == "---":
            slides.append(current)
            current = []
        else:
            current.append(line)
    slides.append(current)
    return slides


def is_directive(comment):
    lines = [l.strip() for l in comment.strip().split("\n") if l.strip()]
    return bool(lines) and all(
        re.match(r"^_?(\w+)\s*:", l) and re.match(r"^_?(\w+)", l).group(1) in DIRECTIVES
        for l in lines)


def check_svg(path, problems, where):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as error:
        problems.append(f"{where}: {path.name} is not well-formed XML ({error})")
        return
    if root.tag != SVG_NS + "svg":
        problems.append(f"{where}: {path.name} is not an SVG (root element {root.tag})")
        return
    if "viewBox" not in root.attrib:
        problems.append(f"{where}: {path.name} has no viewBox, so it cannot scale")
    if root.find(SVG_NS + "title") is None:
        problems.append(f"{where}: {path.name} has no <title> describing it")


def check_deck(deck, problems, shown):
    text = deck.read_text(encoding="utf-8")
    if not re.match(r"^---\n(.*\n)*?marp:\s*true\s*\n(.*\n)*?---", text):
        problems.append(f"{deck.name}: no front matter with 'marp: true'")
    slides = split_slides(text)
    images = set()
    for number, lines in enumerate(slides, 1):
        body = "\n".join(lines)
        notes = [c for c in COMMENT.findall(body) if not is_directive(c)]
        note = "\n".join(notes)
        if not notes:
            problems.append(f"{deck.name}: slide {number} has no presenter note (<!-- Say: ... Ask: ... -->)")
        else:
            for word in ("Say:", "Ask:"):
                if word not in note:
                    problems.append(f"{deck.name}: slide {number}'s note has no '{word}' line")
        for match in IMAGE.finditer(COMMENT.sub("", body)):
            images.add(match.group(1) or match.group(2))
    for ref in sorted(images):
        if re.match(r"^[a-z]+:", ref):
            problems.append(f"{deck.name}: {ref}: images must be files in the repository")
            continue
        path = (deck.parent / ref).resolve()
        if not path.is_file():
            problems.append(f"{deck.name}: missing image {ref}")
            continue
        shown.add(path)
        if path.suffix == ".svg":
            check_svg(path, problems, deck.name)
    wanted = DIAGRAMS.get(deck.name[:2])
    if wanted and wanted not in images:
        problems.append(f"{deck.name}: must show {wanted}")
    return len(slides), images


def check_html(html_dir, deck, slide_count, images, problems):
    page = html_dir / (deck.stem + ".html")
    if not page.is_file() or page.stat().st_size == 0:
        problems.append(f"{deck.name}: no HTML at {page}")
        return
    notes = re.findall(r'<div class="bespoke-marp-note" data-index="\d+"', page.read_text(encoding="utf-8"))
    if len(notes) != slide_count:
        problems.append(f"{page.name}: {len(notes)} presenter notes for {slide_count} slides")
    for ref in images:
        if not (html_dir / ref).is_file():
            problems.append(f"{page.name}: {ref} was not copied beside it")


def main(argv):
    html_dir = None
    args = list(argv)
    if "--html" in args:
        at = args.index("--html")
        if at + 1 >= len(args):
            print("check_slides: --html needs a folder", file=sys.stderr)
            return 2
        html_dir = Path(args[at + 1])
        del args[at:at + 2]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    slides_dir = Path(args[0]) if args else Path(__file__).resolve().parent
    decks = sorted(slides_dir.glob("[0-9][0-9]-*.md"))
    if not decks:
        print(f"check_slides: no decks (NN-topic.md) in {slides_dir}", file=sys.stderr)
        return 2
    problems, shown = [], set()
    for deck in decks:
        slide_count, images = check_deck(deck, problems, shown)
        if html_dir is not None:
            check_html(html_dir, deck, slide_count, images, problems)
    # Lesson READMEs may show the same pictures: those must exist too.
    for readme in sorted((slides_dir.parent / "lessons").glob("[0-9][0-9]-*/README.md")):
        where = readme.relative_to(slides_dir.parent)
        for match in IMAGE.finditer(readme.read_text(encoding="utf-8")):
            ref = match.group(1) or match.group(2)
            path = (readme.parent / ref).resolve()
            if re.match(r"^[a-z]+:", ref) or path.parent != (slides_dir / "img").resolve():
                continue
            if not path.is_file():
                problems.append(f"{where}: missing image {ref}")
            elif path.suffix == ".svg":
                check_svg(path, problems, str(where))
    for svg in sorted((slides_dir / "img").glob("*.svg")):
        if svg.resolve() not in shown:
            problems.append(f"img/{svg.name} is shown by no deck")
    for problem in problems:
        print(f"slides: {problem}")
    if problems:
        return 1
    print(f"slides: {len(decks)} decks checked: notes on every slide, every image present and well-formed"
          + (f", HTML in {html_dir}" if html_dir else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
