#!/usr/bin/env bash
# test/rxe/guest-tests.sh: the rxe suite's tests, run INSIDE vm.sh guests by test/rxe/run.
#   guest-tests.sh single   one guest: boot check, perftest sanity, rdmpi over verbs (if built)
#   guest-tests.sh pair     two guests: perftest across them, MPI jobs across them over ssh
# Prints PASS/FAIL/SKIP lines (guest 1 only; guest 2's output is informational) and exits 0.
# Environment from the host: RXE_SUITE_VERBS=1 when rdmpi has the verbs transport; RDMPI_SRC,
# RDMPI_BUILD, RDMPI_PREFIX; RXE_MPI_TIMEOUT (seconds per mode of the MPI runner).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib-guest.sh
. "$here/lib-guest.sh"
# shellcheck source=../sshd-config.sh
. "$here/../sshd-config.sh"

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 $2"; }
skip() { echo "SKIP: $1: $2"; }
info() { echo "  $*"; }

# --- perftest between two processes of one guest ---------------------------------------------------
# pt NAME TOOL SIZE ITERS PORT lat|bw [OPTS...]
pt() {
    local name=rxe/perftest/$1 tool=$2 size=$3 iters=$4 port=$5 kind=$6 v unit=us t0=$SECONDS
    shift 6
    [ "$kind" = bw ] && unit=MB/s
    if rxe_perftest_pair "$tool" "$size" "$iters" "$port" "$@"; then
        v=$(rxe_pt_value "$RXE_PT_FILE" "$size" "$kind")
        pass "$name"
        info "$name: $tool -s $size -n $iters $*: $v $unit ($((SECONDS - t0)) s)"
    else
        fail "$name" "($tool -s $size -n $iters $*: $(rxe_pt_why "$RXE_PT_FILE"))"
    fi
}

# --- rdmpi's MPI tests over verbs, for each mode -----------------------------------------------------
# The groups of runs, one line each: NAME MODE TRANSPORTS NPS SKIP-TAGS [VAR=VALUE ...] [-- SELECTION]
# (test/mpi/run's RDMPI_TEST_NPS and RDMPI_TEST_SKIP_TAGS; "-" for none). What a group covers:
#   (+host lines run in no group but dyn: nothing in them goes differently over verbs)
#   hybrid    the default mode, with self: every line but the algorithm sweeps (+algo, which are
#             the same point-to-point traffic over any transport and run on the host) at its
#             largest count up to 4 (3-4 ranks on the guest's 2 CPUs: they sleep while they
#             wait; 8 ranks took a minute of CI for one collective program and crossed no other
#             path)
#   hybrid2   the same mode at np2 (awake ranks, the RDMA-write rings with one peer), for the
#             point-to-point, one-sided and blocking-collective programs (every line at np2 as
#             well took ~3 min of CI, 68 runs, for paths these carry)
#   ud        datagrams only (segmentation, reliability, copied get/put): each transport line
#             (neither +algo nor +api, nor +rdma: ud has no RDMA, so every rendezvous protocol
#             is the same copy; nor +mode: traffic the p2p lines already carry) once, at its
#             largest count up to 3 (3 ranks on 2 CPUs sleep while they wait, as 4 do; the same
#             paths with a quarter fewer emulated processes)
#   rc        connected QPs with the defaults a user gets: RDMPI_WAIT_SLEEP's default (ranks of
#             3+ on 2 CPUs sleep on the completion channel: rings written with immediate), no self in
#             the transport list, so every rank's messages to itself take a QP connected to
#             itself (np2 runs: awake, rings written to itself); each transport line but the
#             +mode and +rdma ones (hybrid's large messages take the same RC QPs) at its
#             largest count up to 3 (as ud)
#   rc-awake  rc with ranks kept awake (RDMPI_WAIT_SLEEP=0) and self: small messages through
#             the RDMA-write rings with 3 peers, for the programs that send many of them
#   dyn       verbs between jobs of one rdmpirun (hybrid, tcp allowed too: ports need it, and
#             verbs must be chosen over it): spawned children and their parents, accept/connect
#             between them, goodbyes (a job finalizes while the
#             other works: sends and receives to it fail, rendezvous sends it never matched too);
#             RDMPI_TEST_PEER_TRANSPORT makes each check that the other job is reached over verbs
#             (~70 s; thread_spawn: several threads of a rank spawn at once, their children
#             over verbs; thread_spawn_stall: a thread's round trips go on while another
#             spawns; spawn_self, MPI_Intercomm_create across jobs, passes too but costs 20 s)
mpi_groups() {
    cat <<'EOG'
hybrid   hybrid self,verbs max   algo,host RDMPI_TEST_MAX_NP=4
hybrid2  hybrid self,verbs 2     algo,api,host,rdma -- p2p_basic p2p_order p2p_sizes p2p_large p2p_nonblocking p2p_persistent p2p_eager_edge rma_basic rma_counter thread_p2p coll_basic/auto coll_fast
ud       ud     self,verbs max   algo,api,host,rdma,mode RDMPI_TEST_MAX_NP=3
rc       rc     verbs      max   algo,api,host,rdma,mode RDMPI_TEST_MAX_NP=3
rc-awake rc     self,verbs max   algo,api,host,rdma RDMPI_WAIT_SLEEP=0 -- p2p_basic p2p_order p2p_nonblocking p2p_sizes/np4
dyn      hybrid self,verbs,tcp - - RDMPI_TEST_PEER_TRANSPORT=verbs -- spawn/2/np2 spawn_port/np2 spawn_free/early/np2 spawn_free/unmatched/np2 thread_spawn/np2 thread_spawn_stall/np2
EOG
}

mpi_over_verbs() {
    local runner=${RDMPI_SRC:-}/test/mpi/run group mode tps nps tags rest xenv maxnp sel rc out name t
    if [ "${RXE_SUITE_VERBS:-0}" != 1 ]; then
        skip rxe/mpi "rdmpi was built without the verbs transport"
        return
    fi
    if [ -x "$runner" ]; then
        while read -r group mode tps nps tags rest; do
            [ -n "$group" ] || continue
            out=/tmp/rxe-mpi-$group.out
            xenv=${rest%%--*}; xenv=$(echo $xenv)
            # RDMPI_TEST_MAX_NP is the runner's setting; the other VAR=VALUE go to the ranks
            maxnp=""
            case " $xenv " in *" RDMPI_TEST_MAX_NP="*)
                maxnp=${xenv#*RDMPI_TEST_MAX_NP=}; maxnp=${maxnp%% *}
                xenv=$(echo " $xenv " | sed "s/ RDMPI_TEST_MAX_NP=[0-9]* / /"); xenv=$(echo $xenv) ;;
            esac
            sel=""; [[ $rest == *--* ]] && sel=${rest#*--}
            [ "$nps" = - ] && nps=
            [ "$tags" = - ] && tags=
            # A selection (RDMPI_RXE_MPI_TESTS, e.g. "p2p_sizes/np2") runs as given in every
            # group; RDMPI_RXE_FULL_SWEEP_MODES names the groups that run every line at every
            # rank count (np1 aside: a 1-rank job runs over self alone and never opens verbs).
            if [ -n "${RDMPI_RXE_MPI_TESTS:-}" ]; then
                sel=$RDMPI_RXE_MPI_TESTS; nps=; tags=
            fi
            case " ${RDMPI_RXE_FULL_SWEEP_MODES:-} " in *" $group "*) nps=; tags= ;; esac
            # TCG runs the tests 10-50x slower than hardware: every listed timeout x4
            # shellcheck disable=SC2086  # sel: a selection, e.g. "p2p_basic/np2 hello"
            RDMPI_TEST_NPS=$nps RDMPI_TEST_SKIP_TAGS=$tags RDMPI_TEST_MIN_NP=2 RDMPI_TEST_MAX_NP=$maxnp \
                RDMPI_TEST_ENV="RDMPI_TRANSPORTS=$tps RDMPI_VERBS_MODE=$mode${xenv:+ $xenv}" \
                RDMPI_TEST_TIMEOUT_SCALE=${RDMPI_TEST_TIMEOUT_SCALE:-4} \
                timeout -k 10 "${RXE_MPI_TIMEOUT:-1500}" "$runner" $sel 2>&1 </dev/null |
                tee "$out" | sed -u -n -E "s#^(PASS|FAIL|SKIP): #\\1: rxe/$group/#p"
            rc=${PIPESTATUS[0]}
            if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$out"; then
                fail "rxe/$group/mpi-runner" "exited with status $rc$([ "$rc" = 124 ] && echo ' (timeout)'): $(tail -n 3 "$out" | tr '\n' ' ' | cut -c1-300)"
            fi
        done <<<"$(mpi_groups)" # (no process substitution: the guest has no /dev/fd)
    else
        skip rxe/mpi "no MPI test runner at $runner"
    fi
    # verbs unit tests (built by `make check` on the host)
    for t in "${RDMPI_BUILD:-}"/test/unit/test_verbs_*; do
        [ -f "$t" ] && [ -x "$t" ] || continue
        name=$(basename "$t")
        out=/tmp/rxe-$name.out
        timeout -k 10 300 "$t" > "$out" 2>&1
        rc=$?
        sed -n -E 's#^(PASS|FAIL|SKIP): #\1: rxe/#p' "$out"
        if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$out"; then
            fail "rxe/unit/$name" "exited with status $rc: $(tail -n 3 "$out" | tr '\n' ' ' | cut -c1-300)"
        fi
    done
}

# --- a peer that stops answering must end the job, named ---------------------------------------------
# rxe/ud/peer_dead: rdmpi_latency at np2 over verbs in ud mode with RDMPI_VERBS_PEER_TIMEOUT=5; rank 1
# gets SIGSTOP once it runs. Rank 0 must report "rank 1 on <host> stopped answering" and rdmpirun must
# exit with a failure status (not its own --timeout, 124) within ~20 s of the stop, leaving no process.
peer_dead() {
    local name=rxe/ud/peer_dead out=/tmp/peer_dead.out args="-m 8:8 -i 100000000 -x 10"
    local run pid victim="" i rc t_stop waited left host
    if [ "${RXE_SUITE_VERBS:-0}" != 1 ]; then
        skip "$name" "rdmpi was built without the verbs transport"
        return
    fi
    host=$(hostname)
    # shellcheck disable=SC2086  # args: the benchmark's options
    env -u RDMPI_SRC -u RDMPI_BUILD -u RDMPI_PREFIX \
        RDMPI_TRANSPORTS=self,verbs RDMPI_VERBS_MODE=ud RDMPI_VERBS_PEER_TIMEOUT=5 \
        "$RDMPI_PREFIX/bin/rdmpirun" -n 2 --timeout 120 -x RDMPI_TRANSPORTS -x RDMPI_VERBS_MODE \
        -x RDMPI_VERBS_PEER_TIMEOUT "$RDMPI_PREFIX/bin/rdmpi_latency" $args > "$out" 2>&1 &
    run=$!
    # rank 1: the rdmpi_latency process whose local rank is 1 (one node: local rank = rank)
    for i in $(seq 150); do
        for pid in $(pgrep -f "bin/rdmpi_latency $args"); do
            tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx 'LOCAL_RANK=1' && victim=$pid
        done
        [ -n "$victim" ] && break
        kill -0 "$run" 2>/dev/null || break
        sleep 0.2
    done
    if [ -z "$victim" ]; then
        kill -KILL "$run" 2>/dev/null; wait "$run" 2>/dev/null
        fail "$name" "(rank 1 of rdmpi_latency never appeared: $(tail -n 3 "$out" | tr -s ' \t\n' ' ' | cut -c1-300))"
        return
    fi
    # past MPI_Init (rank 0 prints the table's header) and into the timed loop
    for i in $(seq 300); do
        grep -q '^# Size' "$out" && break
        kill -0 "$run" 2>/dev/null || break
        sleep 0.2
    done
    sleep 1
    kill -STOP "$victim"
    t_stop=$SECONDS
    for i in $(seq 300); do
        kill -0 "$run" 2>/dev/null || break
        [ $((SECONDS - t_stop)) -ge 40 ] && break
        sleep 0.2
    done
    waited=$((SECONDS - t_stop))
    if kill -0 "$run" 2>/dev/null; then
        kill -KILL "$victim" 2>/dev/null
        wait "$run"; rc=$?
        fail "$name" "(rdmpirun still running $waited s after rank 1 (pid $victim) was stopped; then status $rc: $(grep -v '^[#0-9]' "$out" | tail -n 3 | tr -s ' \t\n' ' ' | cut -c1-300))"
        return
    fi
    wait "$run"; rc=$?
    sleep 0.5
    left=$(pgrep -f "bin/rdmpi_latency $args")
    # shellcheck disable=SC2086  # left: a list of pids
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$waited" -le 20 ] &&
        grep -q "rank 1 on $host stopped answering" "$out" && [ -z "$left" ]; then
        pass "$name"
        info "$name: rank 1 stopped, rdmpirun exited with status $rc after $waited s: $(grep -m1 'stopped answering' "$out" | cut -c1-160)"
    else
        fail "$name" "(status $rc after $waited s$([ -n "$left" ] && echo ", processes left: $left"); expected a failure within 20 s naming \"rank 1 on $host stopped answering\": $(grep -v '^[#0-9]' "$out" | tail -n 3 | tr -s ' \t\n' ' ' | cut -c1-300))"
    fi
}

single() {
    if rxe_port_active; then
        pass rxe/boot
        info "rxe/boot: $(uname -r), $(nproc) CPUs, rxe0 on $RXE_NETDEV, GID index $(rxe_gid_index), booted in $(cut -d' ' -f1 /proc/uptime) s"
    else
        fail rxe/boot "(rxe0 not PORT_ACTIVE: $(ibv_devinfo -d rxe0 2>&1 | grep -E 'state|error' | tr -s ' \t\n' ' '))"
        skip rxe/perftest "rxe0 is not active"
        return
    fi
    pt send_lat_rc_8B ib_send_lat 8 1000 18515 lat
    pt send_lat_rc_1MiB ib_send_lat 1048576 20 18516 lat
    pt send_lat_ud_8B ib_send_lat 8 1000 18517 lat -c UD
    pt write_bw_8B ib_write_bw 8 1000 18518 bw
    pt write_bw_1MiB ib_write_bw 1048576 100 18519 bw
    peer_dead
    mpi_over_verbs
}

# --- two guests --------------------------------------------------------------------------------------
# (e) MPI jobs across the guests, launched the way a cluster launches them: rdmpirun on guest 1
# starts rdmpid on guest 2 over ssh (its default launch agent), to an sshd that guest 2 runs for the
# test. Keys and configuration live in each guest's own /tmp (a tmpfs over /root gives ssh a
# writable ~/.ssh and guest 2's shell no start-up files); only the public key crosses the share.
ssh_dir=$RXE_SHARE/ssh

# Both guests: guest 1 makes the client key and config; guest 2 runs sshd with that key allowed.
pair_ssh_setup() {
    mount -t tmpfs -o mode=700 tmpfs /root || return 1
    mkdir -p /root/.ssh
    [ -d /run/sshd ] || { mount -t tmpfs tmpfs /run && mkdir -p /run/sshd; } || return 1
    if [ "$RXE_GUEST" = 1 ]; then
        ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519 || return 1
        cp /root/.ssh/id_ed25519.pub "$ssh_dir/authorized_keys"
        # one connection per guest, reused by every job (key exchange under TCG takes seconds)
        cat > /root/.ssh/config <<EOS
Host guest1 guest2
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 30
  ControlMaster auto
  ControlPath /tmp/.ssh-cm-%h
  ControlPersist 3600
EOS
        return 0
    fi
    local i
    for i in $(seq 600); do [ -s "$ssh_dir/authorized_keys" ] && break; sleep 0.2; done
    ssh-keygen -q -t ed25519 -N '' -f /tmp/ssh_host_key || return 1
    sshd_test_config "$RXE_IP_SELF:22" /tmp/ssh_host_key /tmp/sshd.pid "$ssh_dir/authorized_keys" \
        > /tmp/sshd_config
    /usr/sbin/sshd -f /tmp/sshd_config -E /tmp/sshd.log
}

# mpi2 NAME TIMEOUT PROGRAM [ARGS...]: one job with a rank on each guest, over verbs (RC).
mpi2() {
    local name=rxe/2guests/mpi/$1 tmo=$2 t0=$SECONDS rc out=/tmp/mpi2-$1.out
    shift 2
    timeout -k 10 "$tmo" "$RDMPI_PREFIX/bin/rdmpirun" --host guest1:1,guest2:1 -n 2 \
        -x RDMPI_TRANSPORTS=self,verbs -x RDMPI_VERBS_MODE=rc "$@" > "$out" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then
        pass "$name"
        info "$name: $* ($((SECONDS - t0)) s)"
    else
        fail "$name" "(exit status $rc$([ "$rc" = 124 ] && echo ' (timeout)'): $(tail -n 4 "$out" | tr -s ' \t\n' ' ' | cut -c1-400))"
    fi
}

# Guest 2 at the end: what the jobs left behind there (daemons, ranks, shared memory).
pair_leftovers() {
    local left
    sleep 1
    left=$(pgrep -a -f "rdmpid|$RDMPI_TEST_BINDIR/" | grep -v pgrep; ls -d /dev/shm/rdmpi.* 2>/dev/null)
    echo "${left:-none}" > "$ssh_dir/leftovers.tmp" && mv "$ssh_dir/leftovers.tmp" "$ssh_dir/leftovers"
}

mpi_two_guests() {
    local bin=${RDMPI_TEST_BINDIR:-$RXE_SHARE/mpi2} v out=/tmp/mpi2-suite.out rc i t0=$SECONDS
    RDMPI_TEST_BINDIR=$bin
    if [ "${RXE_SUITE_VERBS:-0}" != 1 ]; then
        [ "$RXE_GUEST" = 1 ] && skip rxe/2guests/mpi "rdmpi was built without the verbs transport"
        return 0
    fi
    if ! command -v sshd > /dev/null || ! command -v ssh > /dev/null; then
        [ "$RXE_GUEST" = 1 ] && skip rxe/2guests/mpi "no ssh or sshd (apt-get install openssh-server openssh-client)"
        return 0
    fi
    if [ "$RXE_GUEST" != 1 ]; then
        pair_ssh_setup || echo "guest2: sshd setup failed: $(tail -n 2 /tmp/sshd.log 2>/dev/null)"
        for i in $(seq $((${RXE_PAIR_MPI_TIMEOUT:-900} * 2 + 600))); do
            [ -e "$ssh_dir/quit" ] && break
            sleep 0.5
        done
        pair_leftovers
        return 0
    fi
    if ! pair_ssh_setup; then
        fail rxe/2guests/ssh "(guest1: could not set up the ssh client)"
        touch "$ssh_dir/quit"
        return 0
    fi
    for i in $(seq 120); do
        ssh guest2 true 2> /tmp/ssh.err && break
        sleep 1
    done
    if ! ssh guest2 true 2>> /tmp/ssh.err; then
        fail rxe/2guests/ssh "(ssh guest1 -> guest2 failed for 120 s: $(tail -n 2 /tmp/ssh.err | tr '\n' ' '))"
        touch "$ssh_dir/quit"
        return 0
    fi
    pass rxe/2guests/ssh
    info "rxe/2guests/ssh: sshd on guest2 answers ($((SECONDS - t0)) s)"
    mkdir -p "$bin"
    mpi2 latency 60 "$RDMPI_PREFIX/bin/rdmpi_latency" -m 8:8 -i 200 -x 20
    v=$(awk '$1 == 8 {print $2}' /tmp/mpi2-latency.out | tail -n 1)
    [ -n "$v" ] && info "rxe/2guests/mpi/latency: 8 B: $v us one way (rdmpi over rc, across the guests)"
    # What needs two hosts, ranks alternating between the guests (--map-by node), every byte
    # over verbs in the default (hybrid) mode:
    # identities and a ring across hosts, eager and the default rendezvous over the wire
    # (the other protocols differ above the wire and run in one guest), a very large message,
    # many messages in flight to remote peers, and the collectives at 4 ranks (2 per guest: 8 added 80 s and no path);
    # the two size sweeps at 2 ranks, one per guest (every byte crosses the wire; at 4 ranks they
    # took 47 s each), without the +rdma lines of the same programs. The rest of the list runs in one guest,
    # whose paths are the same but for the wire (RDMPI_RXE_PAIR_TESTS=all runs all of it here).
    # The guests' 4 CPUs share the host's 2 cores: a rank spinning on one guest takes the core
    # the other guest's kernel needs to deliver its packet, so blocked ranks sleep on the
    # completion channel (WAIT_SLEEP).
    local sel=${RDMPI_RXE_PAIR_TESTS:-hello/np4 p2p_basic/np4 p2p_sizes/np2 p2p_large/np2 p2p_nonblocking/np4 coll_basic/auto/np4}
    local skip=rdma
    [ -n "${RDMPI_RXE_PAIR_TESTS:-}" ] && skip=
    [ "$sel" = all ] && sel=
    printf '#!/bin/sh\nexec "%s" --host guest1:4,guest2:4 --map-by node "$@"\n' \
        "$RDMPI_PREFIX/bin/rdmpirun" > /tmp/rdmpirun-2guests
    chmod +x /tmp/rdmpirun-2guests
    # shellcheck disable=SC2086  # sel: a selection for test/mpi/run
    RDMPI_TEST_BINDIR=$bin RDMPI_TEST_MPIRUN=/tmp/rdmpirun-2guests RDMPI_TEST_NPS=${RDMPI_RXE_PAIR_NPS:-2,max} RDMPI_TEST_SKIP_TAGS=$skip \
        RDMPI_TEST_ENV="RDMPI_TRANSPORTS=self,verbs RDMPI_VERBS_MODE=hybrid RDMPI_WAIT_SLEEP=0.0001" \
        RDMPI_TEST_MIN_NP=2 RDMPI_TEST_MAX_NP=4 RDMPI_TEST_TIMEOUT_SCALE=${RDMPI_TEST_TIMEOUT_SCALE:-8} \
        timeout -k 10 "${RXE_PAIR_MPI_TIMEOUT:-900}" "$RDMPI_SRC/test/mpi/run" $sel 2>&1 </dev/null |
        tee "$out" | sed -u -n -E "s#^(PASS|FAIL|SKIP): mpi/#\1: rxe/2guests/mpi/#p"
    rc=${PIPESTATUS[0]}
    if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$out"; then
        fail "rxe/2guests/mpi-runner" "exited with status $rc$([ "$rc" = 124 ] && echo ' (timeout)'): $(tail -n 3 "$out" | tr '\n' ' ' | cut -c1-300)"
    fi
    ssh -O exit guest2 2> /dev/null
    touch "$ssh_dir/quit"
    for i in $(seq 120); do [ -e "$ssh_dir/leftovers" ] && break; sleep 0.5; done
    v=$(cat "$ssh_dir/leftovers" 2> /dev/null)
    if [ "$v" = none ]; then
        pass rxe/2guests/cleanup
    else
        fail rxe/2guests/cleanup "(left on guest2 after the jobs: $(echo "${v:-no answer from guest2}" | tr '\n' ';' | cut -c1-300))"
    fi
}

pair() {
    local gid port=18600 t0=$SECONDS v rc i peerout
    [ "$RXE_GUEST" = 1 ] && rm -rf "$ssh_dir" && mkdir -p "$ssh_dir"
    gid=$(rxe_gid_index)
    if ! rxe_port_active; then
        fail "rxe/2guests/send_lat" "(guest$RXE_GUEST: rxe0 not PORT_ACTIVE)"
        return
    fi
    mkdir -p "$RXE_PT_DIR"
    if [ "$RXE_GUEST" = 1 ]; then
        # server; the client on guest 2 retries until this listens
        timeout -k 5 240 ib_send_lat -d rxe0 -F -x "$gid" -s 8 -n 200 -p "$port" > /tmp/srv.out 2>&1
        rc=$?
        v=$(rxe_pt_value /tmp/srv.out 8 lat)
        if [ "$rc" = 0 ] && [ -n "$v" ]; then
            pass rxe/2guests/send_lat
            info "rxe/2guests/send_lat: guest2 -> guest1, ib_send_lat -s 8 -n 200: $v us ($((SECONDS - t0)) s)"
        else
            peerout=$(tail -n 4 "$RXE_SHARE/.rxe/out.2" 2>/dev/null | tr -s ' \t\n' ' ' | cut -c1-300)
            fail rxe/2guests/send_lat "(server status $rc: $(rxe_pt_why /tmp/srv.out); guest2: $peerout)"
        fi
    else
        ibv_devinfo -d rxe0 | grep -E 'state|link_layer' | tr -s ' \t\n' ' '; echo
        for i in $(seq 120); do
            timeout -k 5 200 ib_send_lat -d rxe0 -F -x "$gid" -s 8 -n 200 -p "$port" "$RXE_IP_PEER" \
                > /tmp/cli.out 2>&1
            rc=$?
            grep -q "Couldn't connect" /tmp/cli.out || break
            sleep 1
        done
        v=$(rxe_pt_value /tmp/cli.out 8 lat)
        if [ "$rc" = 0 ] && [ -n "$v" ]; then
            echo "client: $v us after $i attempt(s)"
        else
            echo "client: status $rc after $i attempt(s): $(rxe_pt_why /tmp/cli.out)"
        fi
    fi
    mpi_two_guests
}

case ${1:-} in
single) single ;;
pair) pair ;;
*) echo "usage: $0 single|pair (inside a vm.sh guest)" >&2; exit 2 ;;
esac
exit 0
