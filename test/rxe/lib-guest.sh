# shellcheck shell=bash
# test/rxe/lib-guest.sh: helpers for scripts that run inside a vm.sh guest (source it).
# Uses RXE_DEV, RXE_IP_SELF, RXE_IP_PEER from vm.sh. Every wait here is bounded.

RXE_DEV=${RXE_DEV:-rxe0}

# GID index of the RoCE v2 GID that holds this guest's IPv4 address (perftest -x); 1 if not found.
# shellcheck disable=SC2120
rxe_gid_index() {
    local dev=${1:-$RXE_DEV} ip=${RXE_IP_SELF:-192.168.77.1} want f i a b c d
    IFS=. read -r a b c d <<< "$ip"
    want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
    for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
        i=${f##*/}
        if [ "$(cat "$f" 2>/dev/null)" = "$want" ] &&
            [ "$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
            echo "$i"; return 0
        fi
    done
    echo 1
}

# rxe_port_active [dev]: 0 when ibv_devinfo shows PORT_ACTIVE (waits up to 10 s).
rxe_port_active() {
    local dev=${1:-$RXE_DEV} i
    for i in $(seq 20); do
        ibv_devinfo -d "$dev" 2>/dev/null | grep -q PORT_ACTIVE && return 0
        sleep 0.5
    done
    return 1
}

# rxe_wait_listen PORT [SECONDS]: wait until something listens on TCP PORT here (no connection made).
rxe_wait_listen() {
    local port=$1 n=$(( ${2:-30} * 5 )) i
    for ((i = 0; i < n; i++)); do
        ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0
        sleep 0.2
    done
    return 1
}

# The result row of a perftest output file: the line whose first field is the message size.
_rxe_pt_row() { awk -v s="$2" '$1 == s && $2 ~ /^[0-9]+$/ { print; exit }' "$1"; }

# rxe_pt_value FILE SIZE lat|latavg|bw: t_typical (median) or t_avg [us] of a latency test,
# BW average [MiB/s] of a bandwidth test.
rxe_pt_value() {
    local row; row=$(_rxe_pt_row "$1" "$2")
    [ -n "$row" ] || return 1
    case $3 in
    lat) echo "$row" | awk '{ print $5 }' ;;
    latavg) echo "$row" | awk '{ print $6 }' ;;
    bw) echo "$row" | awk '{ print $4 }' ;;
    esac
}

# rxe_perftest_pair TOOL SIZE ITERS PORT [OPTS...]: server and client of perftest TOOL on this
# guest's rxe device, talking to its own address; RXE_PT_SRV_CPU / RXE_PT_CLI_CPU, when set, pin
# the server / client to that CPU (as MPI ranks bound to cores are). Client output in $RXE_PT_DIR/TOOL-SIZE-PORT.cli,
# server's in .srv; sets RXE_PT_FILE to the client file. Status 0 when both succeeded with a result.
RXE_PT_DIR=${RXE_PT_DIR:-/tmp/rxe-perftest}
RXE_PT_TIMEOUT=${RXE_PT_TIMEOUT:-120}
rxe_perftest_pair() {
    local tool=$1 size=$2 iters=$3 port=$4 gid base srv rc_s rc_c
    shift 4
    gid=$(rxe_gid_index)
    mkdir -p "$RXE_PT_DIR"
    base=$RXE_PT_DIR/$tool-$size-$port
    RXE_PT_FILE=$base.cli
    local spin=() cpin=()
    [ -n "${RXE_PT_SRV_CPU:-}" ] && spin=(taskset -c "$RXE_PT_SRV_CPU")
    [ -n "${RXE_PT_CLI_CPU:-}" ] && cpin=(taskset -c "$RXE_PT_CLI_CPU")
    timeout -k 5 "$RXE_PT_TIMEOUT" "${spin[@]}" "$tool" -d "$RXE_DEV" -F -x "$gid" -s "$size" -n "$iters" -p "$port" \
        "$@" > "$base.srv" 2>&1 &
    srv=$!
    if ! rxe_wait_listen "$port" 30; then
        echo "server did not listen" > "$RXE_PT_FILE"
        kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
        return 1
    fi
    timeout -k 5 "$RXE_PT_TIMEOUT" "${cpin[@]}" "$tool" -d "$RXE_DEV" -F -x "$gid" -s "$size" -n "$iters" \
        -p "$port" "$@" "$RXE_IP_SELF" > "$RXE_PT_FILE" 2>&1
    rc_c=$?
    wait "$srv"; rc_s=$?
    [ "$rc_c" = 0 ] && [ "$rc_s" = 0 ] && [ -n "$(_rxe_pt_row "$RXE_PT_FILE" "$size")" ]
}

# One line saying why a perftest run failed (statuses and the last error-looking lines).
rxe_pt_why() {
    local f=$1 srv=${1%.cli}.srv
    { grep -v -e '^-*$' -e '^ *[A-Za-z. ]*: ' "$f" | tail -n 3
      [ -f "$srv" ] && grep -i -e err -e fail -e couldn -e unable "$srv" | tail -n 2; } |
        tr -s ' \t\n' ' ' | cut -c1-300
}
