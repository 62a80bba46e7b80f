#!/usr/bin/env bash
# nccl_processes.sh PROGRAM NRANKS ok|mismatch|absent|quits|unreceived - starts NRANKS processes
# of PROGRAM (tests/emu/programs/nccl/ranks_as_processes.cu), one rank each,
# as mpirun would, and checks how they end:
#   ok        every rank prints its OK line and exits 0;
#   mismatch  rank 1 asks for another count: every rank exits non-zero, and a
#             report says the collective does not match;
#   absent    the last rank is never started: the others exit non-zero after
#             the watchdog, and a report names the rank that never joined;
#   quits     the last rank ends right after joining: the others exit non-zero
#             after the watchdog, and a report names the rank that never arrived;
#   unreceived  the last rank skips its receive: the rank sending to it fails
#             after the watchdog with a report, and the last rank's check fails.
# Each process is stopped after 60 s, so a hang fails the test instead of blocking it.
set -uo pipefail
program=$1 nranks=$2 mode=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/nccl-processes.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$nranks
[ "$mode" = absent ] && started=$((nranks - 1))
extra=()
case "$mode" in mismatch|quits|unreceived) extra=("$mode") ;; esac
pids=()
for ((r = 0; r < started; ++r)); do
    timeout 60 "$program" "$r" "$nranks" "$work/id" "${extra[@]}" >"$work/out.$r" 2>&1 &
    pids+=($!)
done
failed_ranks=0 hung=0
for ((r = 0; r < started; ++r)); do
    wait "${pids[r]}"
    status=$?
    [ "$status" -eq 124 ] && hung=1
    [ "$status" -ne 0 ] && failed_ranks=$((failed_ranks + 1))
    sed "s/^/[rank $r] /" "$work/out.$r"
done
all=$(cat "$work"/out.*)
fail() { echo "FAIL: $*"; exit 1; }
[ "$hung" -eq 0 ] || fail "a rank was still running after 60 s"
# The shared memory of this run is named after the process that made the id
# (the emulator's ncclUniqueId: a 14-byte tag, then that process's id at byte 16).
creator=$(od -An -t d8 -j 16 -N 8 "$work/id" 2>/dev/null | tr -d ' ')
leftover=$(ls /dev/shm 2>/dev/null | grep -c "^cuemu-nccl-${creator:-none}-" || true)
case "$mode" in
    ok)
        [ "$failed_ranks" -eq 0 ] || fail "$failed_ranks rank(s) failed"
        [ "$(grep -c "^ranks_as_processes rank=.* of $nranks OK$" <<<"$all")" -eq "$nranks" ] ||
            fail "not every rank printed OK"
        [ "$leftover" -eq 0 ] || fail "shared-memory segments left in /dev/shm" ;;
    mismatch)
        [ "$failed_ranks" -eq "$started" ] || fail "only $failed_ranks of $started rank(s) failed"
        grep -q "ranks in separate processes does not match" <<<"$all" || fail "no mismatch report"
        grep -q "ncclAllReduce of 500 x ncclFloat32" <<<"$all" || fail "the report does not show rank 1's count" ;;
    absent)
        [ "$failed_ranks" -eq "$started" ] || fail "only $failed_ranks of $started rank(s) failed"
        grep -q "never joined: rank(s) $((nranks - 1))$" <<<"$all" || fail "no report naming rank $((nranks - 1))" ;;
    quits)
        [ "$failed_ranks" -eq $((nranks - 1)) ] || fail "$failed_ranks rank(s) failed, not the $((nranks - 1)) that stayed"
        grep -q "never arrived: rank(s) $((nranks - 1)) " <<<"$all" || fail "no report naming rank $((nranks - 1))"
        grep -q "cudaErrorLaunchTimeout\|launch timed out" <<<"$all" || fail "no timeout error" ;;
    unreceived)
        [ "$failed_ranks" -eq 2 ] || fail "$failed_ranks rank(s) failed, not the last two"
        grep -q "to rank $((nranks - 1)) waited .* for rank $((nranks - 1)) to receive it" <<<"$all" ||
            fail "no report of the send nobody received" ;;
    *) fail "unknown mode $mode" ;;
esac
echo "PASS: $nranks ranks as processes, $mode"
