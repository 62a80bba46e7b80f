#!/usr/bin/env bash
# expect_build_errors.sh SOURCE OUTPUT MESSAGE... - bin/nvcc-emu must refuse
# SOURCE, and its errors must hold every MESSAGE (plain text, not patterns):
# for programs that use several names the emulator refuses on purpose, one
# build checks them all. A MESSAGE that starts with '!' must not be there
# (an error the refusal should have kept from following it).
set -u
source_file=$1 output=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
log=$output.log
if "$here/../../bin/nvcc-emu" "$source_file" -o "$output" >"$log" 2>&1; then
    echo "FAIL: $source_file built, but every line of it must be refused"
    exit 1
fi
missing=0
for message in "$@"; do
    if [[ "$message" == !* ]]; then
        if grep -qF -- "${message:1}" "$log"; then
            echo "FAIL: an error says: ${message:1}"
            missing=1
        fi
    elif ! grep -qF -- "$message" "$log"; then
        echo "FAIL: no error says: $message"
        missing=1
    fi
done
if [ "$missing" -ne 0 ]; then
    echo "the build said:"
    cat "$log"
    exit 1
fi
echo "refused, with all $# messages"
