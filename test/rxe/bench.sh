#!/usr/bin/env bash
# test/rxe/bench.sh: 8-byte latency and 1 MiB bandwidth over Soft-RoCE, all in ONE guest boot (so the
# figures are comparable): perftest (ib_send_lat, ib_write_lat, ib_write_bw, ib_read_bw), Open MPI +
# UCX rc_verbs (UCX 1.13 cannot wire RC up without an auxiliary transport: UCX_TLS=rc_verbs,ud_verbs:aux,self
# keeps UD to the connection set-up), and rdmpi over verbs (each RDMPI_VERBS_MODE) when rdmpi was built with verbs.
# Prints a table with ratios to ib_send_lat (latency) and ib_write_bw (bandwidth). Not part of the
# suite. Absolute figures under TCG mean little; the ratios within one run are the point.
# Usage: test/rxe/bench.sh [--rounds R (3; medians over them)] [--timeout S] [--smp N] [--mem MB] [--keep] [--no-ompi] [--no-rdmpi]
#                          [--lat-iters N] [--bw-iters N] [--window W] [--also NAME=PREFIX]...
#                          [--lat-only] [--modes "ud rc hybrid"] [--no-pin] [--settle S]
#                          [--variant NAME=VAR=VALUE[,VAR=VALUE...]]... [--mtu BYTES]
# Environment: RDMPI_PREFIX (rdmpi installation, default: <repo>/_inst).
# --also NAME=PREFIX runs another rdmpi installation too, in the same rounds (rows "NAME verbs <mode>"):
# a change and its baseline measured in one boot, e.g. --also base=/tmp/rdmpi-before/_inst.
# --variant NAME=SETTINGS runs rdmpi again with those settings in its environment (rows "NAME verbs
# <mode>"), e.g. --variant write=RDMPI_RNDV_PROTO=write.
# --lat-only runs only the 8-byte latencies (ib_send_lat, UCX, rdmpi), back to back in each round: many
# short rounds then give paired ratios (each run against ib_send_lat of its own round, column
# "paired"), which drift less with the host's load than the medians of the separate runs do.
# Every run's two processes sit on CPUs 0 and 1 (perftest with taskset, the MPI jobs with
# --bind-to core): left to the guest's scheduler (--no-pin) single runs of the same program differed
# by up to 1.5x, and the ratios with them; pinned, ten runs' per-iteration medians stayed within 5%.
# --settle S waits S seconds before every MPI run (to see whether one job slows the next: in a test of
# six rounds it did not; the guest has slow phases of minutes in which every latency is ~1.35x, so each
# round runs its latencies back to back, next to ib_send_lat, and its bandwidths after them).
# --mtu BYTES sets the guest's netdev MTU first: rxe's active MTU follows it (1500, the default: 1024;
# 4200 or more: 4096, as RoCE with jumbo frames), and with it the UD packet size and RC's path MTU.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export RDMPI_PREFIX=${RDMPI_PREFIX:-$top/_inst}
MIB=1048576

# ---------------------------------------------------------------------------------------------------
# Inside the guest: bench.sh __guest SHARE; results go to SHARE/results.tsv
# (round, name, kind, value or "fail", rxe packets sent).
guest() {
    local share=$1 res=$1/results.tsv round
    # shellcheck source=lib-guest.sh
    . "$here/lib-guest.sh"
    # shellcheck disable=SC1091
    . "$share/bench.conf"
    : > "$res"
    pkts() { rdma statistic show link rxe0/1 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "sent_pkts") print $(i + 1) }'; }
    record() {
        printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$1" "$2" "${3:-fail}" "${4:-}" >> "$res"
        echo "  round $round: $1 ($2): ${3:-fail}${4:+, $4 rxe packets}"
    }
    # perftest: the mean latency (t_avg, as the MPI benchmarks report), bandwidth in MB/s (10^6 B)
    perf() { # NAME TOOL SIZE ITERS PORT lat|bw [TOOL OPTIONS...]
        local v p0 p1 k=$6
        [ "$k" = lat ] && k=latavg
        p0=$(pkts)
        if rxe_perftest_pair "$2" "$3" "$4" "$5" "${@:7}"; then
            v=$(rxe_pt_value "$RXE_PT_FILE" "$3" "$k")
            [ "$6" = lat ] && record "$1" p50 "$(rxe_pt_value "$RXE_PT_FILE" "$3" lat)"
            [ "$6" = bw ] && v=$(awk -v v="$v" 'BEGIN { printf "%.2f", v * 1.048576 }')
        else
            v=; echo "  $1 failed: $(rxe_pt_why "$RXE_PT_FILE")"
        fi
        p1=$(pkts)
        record "$1" "$6" "$v" "$((p1 - p0))"
    }
    # an MPI benchmark: NAME lat|bw COMMAND... (output as OSU's: the row of the size)
    mpib() {
        local name=$1 kind=$2 size=8 v p0 p1 out=/tmp/mpib.out
        shift 2
        [ "$SETTLE" = 0 ] || sleep "$SETTLE"
        [ "$kind" = bw ] && size=$MIB
        p0=$(pkts)
        timeout -k 10 300 "$@" > "$out" 2>&1
        v=$(awk -v s="$size" '$1 == s { print $2; exit }' "$out")
        [ -n "$v" ] || echo "  $name failed: $(tail -n 4 "$out" | tr '\n' ' ' | cut -c1-400)"
        p1=$(pkts)
        # the latency benchmarks run with -t: their third column is the per-iteration median
        [ "$kind" = lat ] && record "$name" p50 "$(awk -v s="$size" '$1 == s { print $3; exit }' "$out")"
        record "$name" "$kind" "$v" "$((p1 - p0))"
    }
    if [ -n "$MTU" ]; then
        ip link set "$RXE_NETDEV" mtu "$MTU" || echo "  could not set the MTU of $RXE_NETDEV to $MTU"
        sleep 1
    fi
    echo "  $RXE_NETDEV MTU $(cat "/sys/class/net/$RXE_NETDEV/mtu"), rxe0 $(ibv_devinfo -d rxe0 | grep -m1 active_mtu | tr -s ' \t' ' ')"
    local latargs=(-m 8:8 -i "$LAT_ITERS" -x 100 -t) bwargs=(-m "$MIB:$MIB" -i "$BW_ITERS" -x 2 -W "$WINDOW")
    local bind=none
    if [ "$PIN" = 1 ]; then   # one process per CPU: perftest's server on 0, client on 1; ranks 0, 1
        export RXE_PT_SRV_CPU=0 RXE_PT_CLI_CPU=1
        bind=core
    fi
    # the MPI jobs of one round: mpi_runs lat|bw
    mpi_runs() {
        local kind=$1 mode inst name pfx sets
        if [ "$OMPI" = 1 ]; then
            (
                export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                    OMPI_MCA_pml=ucx OMPI_MCA_btl='^vader,tcp,openib' UCX_TLS=rc_verbs,ud_verbs:aux,self \
                    UCX_NET_DEVICES=rxe0:1 UCX_UD_ETH_DGID_CHECK=n UCX_WARN_UNUSED_ENV_VARS=n
                if [ "$kind" = lat ]; then
                    mpib "Open MPI+UCX rc_verbs" lat mpirun.openmpi -np 2 --bind-to "$bind" "$share/ompi_latency" "${latargs[@]}"
                else
                    mpib "Open MPI+UCX rc_verbs" bw mpirun.openmpi -np 2 --bind-to "$bind" "$share/ompi_bw" "${bwargs[@]}"
                fi
            )
        fi
        [ "$RDMPI" = 1 ] || return 0
        for inst in "rdmpi=$RDMPI_PREFIX" $ALSO; do
            name=${inst%%=*} pfx=${inst#*=} sets=
            case $pfx in *@*) sets=${pfx#*@} pfx=${pfx%%@*} ;; esac
            for mode in $MODES; do
                (
                    export RDMPI_TRANSPORTS=self,verbs RDMPI_VERBS_MODE=$mode
                    # shellcheck disable=SC2086  # sets: VAR=VALUE words
                    [ -z "$sets" ] || export ${sets//,/ }
                    if [ "$kind" = lat ]; then
                        mpib "$name verbs $mode" lat "$pfx/bin/rdmpirun" -n 2 --bind-to "$bind" \
                            "$pfx/bin/rdmpi_latency" "${latargs[@]}"
                    else
                        mpib "$name verbs $mode" bw "$pfx/bin/rdmpirun" -n 2 --bind-to "$bind" \
                            "$pfx/bin/rdmpi_bw" "${bwargs[@]}"
                    fi
                )
            done
        done
    }
    # Each round runs its latencies back to back, then its bandwidths: the guest has slow phases of
    # minutes (every latency ~1.35x, whatever ran before it, in a six-round test of that), so the
    # runs compared with ib_send_lat ("paired") are kept as close to it in time as they can be.
    for round in $(seq "$ROUNDS"); do
        perf "perftest ib_send_lat" ib_send_lat 8 "$LAT_ITERS" 18515 lat
        [ "$LAT_ONLY" = 1 ] || perf "perftest ib_write_lat" ib_write_lat 8 "$LAT_ITERS" 18516 lat
        mpi_runs lat
        [ "$LAT_ONLY" = 1 ] && continue
        perf "perftest ib_write_bw" ib_write_bw $MIB "$BW_ITERS_PT" 18517 bw
        perf "perftest ib_read_bw" ib_read_bw $MIB "$BW_ITERS_PT" 18518 bw
        # UD's ceiling: a UD message is at most one MTU, so this is what any UD protocol can reach
        case " $MODES " in
        *" ud "*) perf "perftest ib_send_bw UD 1 KiB" ib_send_bw 1024 $((BW_ITERS_PT * 1024)) 18519 bw -c UD ;;
        esac
        mpi_runs bw
    done
}

if [ "${1:-}" = __guest ]; then guest "$2"; exit 0; fi

# ---------------------------------------------------------------------------------------------------
# On the host.
tmo=1800 rounds=3 vmopts=() keep=0 ompi=1 rdmpi=1 lat_iters=1000 bw_iters=10 window=16 also= lat_only=0 pin=1 settle=0 mtu=
modes="ud rc hybrid"
while [ $# -gt 0 ]; do
    case $1 in
    --timeout) tmo=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --smp | --mem) vmopts+=("$1" "$2"); shift 2 ;;
    --keep) keep=1; vmopts+=(--keep); shift ;;
    --no-ompi) ompi=0; shift ;;
    --no-rdmpi) rdmpi=0; shift ;;
    --lat-iters) lat_iters=$2; shift 2 ;;
    --bw-iters) bw_iters=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --lat-only) lat_only=1; shift ;;
    --pin) pin=1; shift ;;
    --no-pin) pin=0; shift ;;
    --mtu)
        case $2 in '' | *[!0-9]*) echo "bench.sh: --mtu wants bytes, not '$2'" >&2; exit 2 ;; esac
        mtu=$2; shift 2 ;;
    --settle)
        case $2 in '' | *[!0-9.]*) echo "bench.sh: --settle wants seconds, not '$2'" >&2; exit 2 ;; esac
        settle=$2; shift 2 ;;
    --modes)
        for m in $2; do
            case $m in ud | rc | hybrid) ;; *) echo "bench.sh: --modes: unknown mode '$m'" >&2; exit 2 ;; esac
        done
        modes=$2; shift 2 ;;
    --also)
        case $2 in
        *=/*) also="$also $2" ;;
        *) echo "bench.sh: --also wants NAME=/absolute/prefix, not '$2'" >&2; exit 2 ;;
        esac
        shift 2 ;;
    --variant)
        case $2 in
        [A-Za-z]*=RDMPI_*=*) also="$also ${2%%=*}=$RDMPI_PREFIX@${2#*=}" ;;
        *) echo "bench.sh: --variant wants NAME=RDMPI_VAR=VALUE[,RDMPI_VAR=VALUE...], not '$2'" >&2; exit 2 ;;
        esac
        shift 2 ;;
    -h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done

"$here/vm.sh" check-deps >&2 || exit 1
mkdir -p /tmp/rdmpi-rxe
share=$(mktemp -d /tmp/rdmpi-rxe/bench.XXXXXX) || exit 1
[ "$keep" = 1 ] || trap 'rm -rf "$share"' EXIT

if [ "$ompi" = 1 ]; then
    if ! command -v mpicc.openmpi >/dev/null; then
        echo "note: no mpicc.openmpi (apt-get install openmpi-bin libopenmpi-dev): Open MPI skipped"
        ompi=0
    else
        for b in latency bw; do
            mpicc.openmpi -O2 -o "$share/ompi_$b" "$top/benchmarks/$b.c" "$top/benchmarks/bench_util.c" \
                -I"$top/benchmarks" || { echo "note: building Open MPI's $b failed: Open MPI skipped"; ompi=0; }
        done
    fi
fi
if [ "$rdmpi" = 1 ]; then
    if ! "$RDMPI_PREFIX/bin/rdmpi_info" 2>/dev/null | grep 'transports built' | sed 's/(.*//' | grep -qw verbs; then
        echo "note: rdmpi at $RDMPI_PREFIX was built without the verbs transport: rdmpi skipped"
        rdmpi=0
    fi
fi
# rounds of bandwidth for perftest: as many bytes as the MPI bw benchmark moves (at least 100 MiB)
bw_iters_pt=$(( bw_iters * window > 100 ? bw_iters * window : 100 ))
cat > "$share/bench.conf" <<EOF
ROUNDS=$rounds OMPI=$ompi RDMPI=$rdmpi LAT_ITERS=$lat_iters BW_ITERS=$bw_iters BW_ITERS_PT=$bw_iters_pt WINDOW=$window
ALSO="$also" LAT_ONLY=$lat_only MODES="$modes" PIN=$pin SETTLE=$settle MTU=$mtu
EOF

load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
    echo "warning: host load $load on $(nproc) cores: the guest's vCPUs get descheduled, latencies will be"
    echo "         dominated by that (compare perftest's medians below with its means)"
fi
t0=$SECONDS
echo "booting the guest (TCG, slow): perftest$([ $ompi = 1 ] && echo ', Open MPI+UCX')$([ $rdmpi = 1 ] && echo ", rdmpi verbs ${modes// //}")"
# The figures in the issue notes were taken with -cpu max; under the tests' qemu64 rdmpi's small-
# message latency relative to perftest and UCX is worse (1.44x vs 1.2x ib_send_lat), not explained
# yet. Keep max for comparisons until it is.
RXE_QEMU_CPU=${RXE_QEMU_CPU:-max} "$here/vm.sh" run --timeout "$tmo" --share "$share" "${vmopts[@]}" -- "$here/bench.sh" __guest "$share"
rc=$?
echo "guest run: status $rc, $((SECONDS - t0)) s"
[ -s "$share/results.tsv" ] || { echo "no results"; exit 1; }

echo
# medians over the rounds (of the runs that worked; "*": some rounds failed)
awk -F'\t' '
    function lowest(list,   a, n, i, m) {
        n = split(list, a, " "); m = a[1] + 0
        for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0
        return m
    }
    function highest(list,   a, n, i, m) {
        n = split(list, a, " "); m = a[1] + 0
        for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0
        return m
    }
    function median(list,   a, n, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    {
        k = $2 SUBSEP $3
        if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
        tried[k]++
        if ($4 != "fail") { vals[k] = vals[k] " " $4; at[$1, k] = $4; rounds[$1] = 1 }
    }
    END {
        for (k in tried) {
            med[k] = (k in vals) ? sprintf("%.2f", median(vals[k])) : "fail"
            if ((k in vals) && split(vals[k], t, " ") < tried[k]) star[k] = "*"
        }
        reflat = med["perftest ib_send_lat" SUBSEP "lat"]; refbw = med["perftest ib_write_bw" SUBSEP "bw"]
        ref50 = med["perftest ib_send_lat" SUBSEP "p50"]
        kref = "perftest ib_send_lat" SUBSEP "lat"; kref50 = "perftest ib_send_lat" SUBSEP "p50"; kbref = "perftest ib_write_bw" SUBSEP "bw"
        printf "%-26s %10s %7s %7s %6s %10s %7s %7s %13s %8s %7s %6s\n", "over rxe (one TCG guest)", "8 B lat us", "vs send", "paired", "best", "median us", "vs send", "paired", "1 MiB MB/s", "vs write", "paired", "best"
        for (j = 1; j <= n; j++) {
            name = order[j]; kl = name SUBSEP "lat"; kb = name SUBSEP "bw"; km = name SUBSEP "p50"
            l = (kl in med) ? med[kl] star[kl] : "-"; b = (kb in med) ? med[kb] star[kb] : "-"
            m = (km in med) ? med[km] star[km] : "-"
            rl = (med[kl] ~ /^[0-9.]+$/ && reflat + 0 > 0) ? sprintf("%.2fx", med[kl] / reflat) : ""
            rm = (med[km] ~ /^[0-9.]+$/ && ref50 + 0 > 0) ? sprintf("%.2fx", med[km] / ref50) : ""
            rb = (med[kb] ~ /^[0-9.]+$/ && refbw + 0 > 0) ? sprintf("%.2fx", med[kb] / refbw) : ""
            # paired: the median over rounds of the ratio to the reference run of the same round
            pl = ""; pb = ""; pm = ""
            for (r in rounds) {
                if (((r, kl) in at) && ((r, kref) in at) && at[r, kref] > 0) pl = pl " " at[r, kl] / at[r, kref]
                if (((r, km) in at) && ((r, kref50) in at) && at[r, kref50] > 0) pm = pm " " at[r, km] / at[r, kref50]
                if (((r, kb) in at) && ((r, kbref) in at) && at[r, kbref] > 0) pb = pb " " at[r, kb] / at[r, kbref]
            }
            pl = pl != "" ? sprintf("%.2fx", median(pl)) : ""; pb = pb != "" ? sprintf("%.2fx", median(pb)) : ""
            pm = pm != "" ? sprintf("%.2fx", median(pm)) : ""
            # best: the lowest latency of the rounds, as a ratio to the lowest ib_send_lat
            bl = ""; bb = ""
            if ((kl in vals) && (kref in vals)) bl = sprintf("%.2fx", lowest(vals[kl]) / lowest(vals[kref]))
            # and the highest bandwidth of the rounds over the highest ib_write_bw
            if ((kb in vals) && (kbref in vals) && highest(vals[kbref]) > 0)
                bb = sprintf("%.2fx", highest(vals[kb]) / highest(vals[kbref]))
            printf "%-26s %10s %7s %7s %6s %10s %7s %7s %13s %8s %7s %6s\n", name, l, rl, pl, bl, m, rm, pm, b, rb, pb, bb
        }
    }' "$share/results.tsv"
echo "(medians of $rounds round(s) in one boot; latency: mean one-way, lower is better, ratio to"
echo " ib_send_lat's t_avg; median us: the median over the rounds of each run's per-iteration median"
echo " (perftest's t_typical; the MPI latency benchmarks' -t), ratio to ib_send_lat's; bandwidth: MB = 10^6 B,"
echo " higher is better, ratio to ib_write_bw; MPI bw: window $window x $bw_iters iterations; TCG timing is"
echo " noisy: compare ratios, not absolute figures; paired: median over the rounds of the ratio to the"
echo " reference run of the same round; best: lowest mean latency of the rounds over the lowest of"
echo " ib_send_lat, and the highest bandwidth over the highest ib_write_bw: what each does when the host"
echo " left the guest alone; single runs of every program, perftest too, fall to ~0.7x in slow phases)"
case " $modes " in
*" ud "*) echo "ib_send_bw UD 1 KiB: perftest's UD sends of 1 KiB (a UD message is at most one MTU, 1 KiB on rxe"
          echo " over a 1500-byte Ethernet MTU): the packet rate any protocol over UD, rdmpi's ud mode too, works with" ;;
esac
exit 0
