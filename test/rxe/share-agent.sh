#!/usr/bin/env bash
# test/rxe/share-agent.sh: a TEST-ONLY launch agent for rdmpirun between two vm.sh guests, which
# have no sshd: commands pass through files in the writable share both guests see ($RXE_SHARE).
#   guest 2:  share-agent.sh serve                      runs requests until "quit" or the timeout
#   guest 1:  rdmpirun --launch-agent "share-agent.sh run" --host guest1:1,guest2:1 ...
#             (rdmpirun then runs `share-agent.sh run guest2 .../rdmpid`)
# The agent forwards rdmpirun's boot line (the first line of its stdin), streams the remote
# command's output back, ends the remote stdin when its own stdin ends (which is how rdmpid learns
# that rdmpirun is gone) and exits with the remote command's status. Everything is bounded by
# RXE_AGENT_TIMEOUT seconds (default 300): serve's whole run and each command it runs; run's wait
# for its request to be taken. Files in $RXE_SHARE/agent:
#   req.ID    argument lines, then "--", then the boot line (written whole, then renamed)
#   out.ID    the remote command's stdout+stderr;  rc.ID its exit status;  stop.ID end its stdin
set -u
dir=${RXE_SHARE:?RXE_SHARE is not set (run inside a vm.sh guest)}/agent
tmo=${RXE_AGENT_TIMEOUT:-300}

serve_one() {
    local id=$1 f=$dir/taken.$1 line args=() boot= seen=0 t0=$SECONDS
    while IFS= read -r line; do
        if [ "$seen" = 1 ]; then boot=$line; break; fi
        if [ "$line" = -- ]; then seen=1; continue; fi
        args+=("$line")
    done < "$f"
    # args[0] is the host name rdmpirun asked for; the rest is the command
    echo "share-agent: guest$RXE_GUEST runs for ${args[0]}: ${args[*]:1}" >&2
    {
        printf '%s\n' "$boot"
        while [ ! -e "$dir/stop.$id" ] && [ $((SECONDS - t0)) -lt "$tmo" ]; do sleep 0.3; done
    } | timeout -k 5 "$tmo" "${args[@]:1}" > "$dir/out.$id" 2>&1
    echo "${PIPESTATUS[1]}" > "$dir/rc.$id.tmp"
    mv "$dir/rc.$id.tmp" "$dir/rc.$id"
}

serve() {
    local f id t0=$SECONDS v
    # the harnesses' own RDMPI_* variables (guest environment) are not for rdmpid and its ranks
    for v in $(compgen -e); do
        case $v in RDMPI_SRC | RDMPI_BUILD | RDMPI_PREFIX | RDMPI_RXE_* | RDMPI_TEST_*) unset "$v" ;; esac
    done
    mkdir -p "$dir"
    while [ ! -e "$dir/quit" ] && [ $((SECONDS - t0)) -lt "$tmo" ]; do
        for f in "$dir"/req.*; do
            [ -e "$f" ] || continue
            id=${f##*/req.}
            mv "$f" "$dir/taken.$id" || continue
            serve_one "$id" &
        done
        sleep 0.3
    done
    wait
}

run() {
    local id="$(hostname).$$" boot rc=255 t0=$SECONDS eof=0 tailpid x
    mkdir -p "$dir"
    rm -f "$dir"/{out,rc,stop}."$id"
    IFS= read -r boot || true
    { printf '%s\n' "$@"; echo --; printf '%s\n' "$boot"; } > "$dir/tmp.$id"
    : > "$dir/out.$id"
    mv "$dir/tmp.$id" "$dir/req.$id"
    trap 'touch "$dir/stop.$id"' EXIT
    tail -n +1 -s 0.3 -F "$dir/out.$id" 2>/dev/null &
    tailpid=$!
    while [ ! -e "$dir/rc.$id" ]; do
        # once taken, the remote command runs as long as rdmpirun keeps this agent
        if [ -e "$dir/req.$id" ] && [ $((SECONDS - t0)) -ge "$tmo" ]; then
            echo "share-agent: no answer from $1 within $tmo s (is 'share-agent.sh serve' running there?)" >&2
            break
        fi
        if [ "$eof" = 0 ]; then
            IFS= read -r -t 0.3 x
            [ $? = 1 ] && { eof=1; touch "$dir/stop.$id"; }
        else
            sleep 0.3
        fi
    done
    [ -e "$dir/rc.$id" ] && rc=$(cat "$dir/rc.$id")
    sleep 0.7 # the last output reaches tail
    kill "$tailpid" 2>/dev/null
    wait "$tailpid" 2>/dev/null
    exit "$rc"
}

case ${1:-} in
serve) serve ;;
run) shift; run "$@" ;;
*) echo "usage: $0 serve | run HOST COMMAND [ARGS...]" >&2; exit 2 ;;
esac
