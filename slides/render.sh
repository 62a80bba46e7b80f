#!/usr/bin/env bash
# Renders every lesson deck in slides/ with Marp (@marp-team/marp-cli, pinned in
# slides/package.json and package-lock.json, installed into slides/node_modules
# with `npm ci` on first use).
#
#   slides/render.sh [--no-pdf] [--png] [OUTDIR]     (OUTDIR defaults to build/slides)
#
# Writes OUTDIR/html/NN-topic.html for every deck (with the diagrams copied
# beside them, so the folder can be opened or served as it is), and, where
# Chromium is installed, OUTDIR/pdf/NN-topic.pdf. --png also writes one PNG per
# slide under OUTDIR/png/ (to look at the slides without a browser). With
# Chromium it also checks that nothing overflows a slide (check_overflow.mjs).
# Without Chromium, PDF, PNG and that check are skipped with a message; the
# HTML needs none. Fails when node or npm is missing, when a deck produced no
# HTML, or when a slide overflows.
set -euo pipefail

slides_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$slides_dir")"
pdf=1 png=0 out=""
for arg in "$@"; do
    case "$arg" in
        --no-pdf) pdf=0 ;;
        --png) png=1 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "slides: unknown option $arg (try --help)" >&2; exit 2 ;;
        *) out="$arg" ;;
    esac
done
out="${out:-$root/build/slides}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "slides: $tool is missing (Debian/Ubuntu: sudo apt-get install nodejs npm)" >&2
        exit 2
    }
done

cd "$slides_dir"
# npm ci installs exactly what package-lock.json pins; run it again only when
# the lock file is newer than the last install.
if [ ! -x node_modules/.bin/marp ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "slides: installing Marp (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
fi
marp=(node_modules/.bin/marp --no-stdin --allow-local-files)

decks=([0-9][0-9]-*.md)
echo "slides: rendering ${#decks[@]} decks to $out/html"
rm -rf "$out/html"
mkdir -p "$out/html"
"${marp[@]}" --input-dir . --output "$out/html" >/dev/null 2>"$out/marp.log" || {
    cat "$out/marp.log" >&2
    exit 1
}
cp -r img "$out/html/"

missing=0
for deck in "${decks[@]}"; do
    html="$out/html/${deck%.md}.html"
    if [ ! -s "$html" ]; then
        echo "slides: $deck produced no HTML ($html)" >&2
        missing=1
    fi
done
[ "$missing" -eq 0 ] || exit 1

chrome=""
for candidate in "${CHROME_PATH:-}" chromium chromium-browser google-chrome; do
    [ -n "$candidate" ] && chrome="$(command -v "$candidate" 2>/dev/null)" && break
done
if [ -z "$chrome" ]; then
    echo "slides: no Chromium found: PDF, PNG and the overflow check skipped (Debian: sudo apt-get install chromium)"
    echo "slides: done"
    exit 0
fi
# One deck at a time, with a generous timeout: Chromium is heavy, and five
# parallel conversions on a busy 2-core machine time out.
marp+=(--browser-path "$chrome" --parallel 1 --browser-timeout 180)

# Marp cuts off what does not fit on a slide, silently: lay every slide out
# (the bare template shows them all at their real size) and measure.
rm -rf "$out/bare"
"${marp[@]}" --template bare --input-dir . --output "$out/bare" >/dev/null 2>>"$out/marp.log" || {
    cat "$out/marp.log" >&2
    exit 1
}
cp -r img "$out/bare/"
node check_overflow.mjs "$chrome" "$out/bare" || {
    echo "slides: some slides overflow (look at them: $0 --png)" >&2
    exit 1
}
echo "slides: every slide fits"

if [ "$pdf" -eq 1 ]; then
    echo "slides: PDF with $chrome to $out/pdf"
    rm -rf "$out/pdf"
    "${marp[@]}" --pdf --input-dir . --output "$out/pdf" >/dev/null 2>>"$out/marp.log" || {
        cat "$out/marp.log" >&2
        exit 1
    }
fi
if [ "$png" -eq 1 ]; then
    echo "slides: PNG, one per slide, to $out/png"
    rm -rf "$out/png"
    "${marp[@]}" --images png --input-dir . --output "$out/png" >/dev/null 2>>"$out/marp.log" || {
        cat "$out/marp.log" >&2
        exit 1
    }
fi
echo "slides: done"
