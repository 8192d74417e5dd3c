#!/usr/bin/env bash
# test/rxe/vm.sh: run a script inside one or two qemu guests (TCG, Debian's kernel) that have a
# Soft-RoCE device rxe0, with the host's root filesystem mounted read-only over 9p.
#
# Command use:
#   vm.sh run [options] -- SCRIPT [ARGS...]   boot, run SCRIPT in each guest, power off; exit with
#                                             SCRIPT's status (first failing guest), 124 on timeout,
#                                             75 when a guest's kernel stalled (see RXE_STALL_LIMIT)
#   vm.sh install-deps                        apt-get install the host packages this needs
#   vm.sh check-deps                          exit 0 when everything is there, else list what's not
#   vm.sh initrd                              build (or reuse) the cached initramfs, print its path
# Options of run:
#   --guests 1|2     one guest (rxe0 on dummy0, 192.168.77.1) or two joined by a virtual wire
#                    (rxe0 on eth0, 192.168.77.1 and .2; qemu socket netdevs sending UDP to each
#                    other on 127.0.0.1: TCP mode adds ~20 ms per packet exchange)       [1]
#   --timeout S      limit for the whole run in seconds, then 124 and qemu is killed    [600]
#   --mem MB         guest memory                                                       [2048]
#   --smp N          guest CPUs                                                         [2]
#   --share DIR      writable directory shared with the guests (same path inside); the caller keeps
#                    it. Default: a fresh directory, removed after a successful run
#   --env K=V        pass an environment variable to SCRIPT (RDMPI_* and PATH pass by themselves)
#   --keep           keep the run directory (console logs, share) even on success
#   --install        apt-get install missing host packages first (also RDMPI_RXE_INSTALL=1)
#   -v, --verbose    show the guest consoles on stderr while they run
# Library use: `source test/rxe/vm.sh` defines rxe_vm_run (same options as `run`),
# rxe_vm_install_deps, rxe_vm_check_deps, rxe_vm_initrd, rxe_vm_kernel.
#
# Inside a guest SCRIPT runs as root with: RXE_GUEST (1|2), RXE_NGUESTS, RXE_IP_SELF, RXE_IP_PEER
# (own address with one guest), RXE_DEV=rxe0, RXE_NETDEV, RXE_SHARE (the writable share), HOME=/tmp.
# Writable inside: /tmp and /dev/shm (tmpfs, the host's /tmp is hidden) and RXE_SHARE. A SCRIPT that
# lives under the host's /tmp but outside the share is copied into the share first.
# SCRIPT starts in the caller's directory when the guest can see it (else /tmp). Its stdout+stderr
# are shown on the host (guest 1's as they come, guest 2's at the end prefixed "[guest2] "); the
# console logs are in the run directory under /tmp/rdmpi-rxe/ (kept when the run fails).
# Knobs: RXE_KVER (kernel version), RXE_VM_CACHE (/tmp/rdmpi-rxe), RXE_VM_APPEND (more kernel
# parameters, e.g. loglevel=7), RXE_KEEP=1, RXE_STALL_LIMIT (seconds a guest CPU may be reported
# stuck before the run is stopped with status 75, 180).

RXE_VM_PACKAGES="qemu-system-x86 linux-image-amd64 busybox-static rdma-core ibverbs-providers ibverbs-utils
    perftest iproute2 kmod xz-utils util-linux"
RXE_VM_CACHE=${RXE_VM_CACHE:-/tmp/rdmpi-rxe}
RXE_VM_SELF=$(readlink -f "${BASH_SOURCE[0]}")

_rxe_log() { echo "rxe-vm: $*" >&2; }

# Newest kernel version that has both /boot/vmlinuz-V and the rdma_rxe module (or $RXE_KVER).
rxe_vm_kernel() {
    if [ -n "${RXE_KVER:-}" ]; then echo "$RXE_KVER"; return 0; fi
    local d v best=
    for d in /lib/modules/*/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*; do
        [ -e "$d" ] || continue
        v=${d#/lib/modules/}; v=${v%%/*}
        [ -r "/boot/vmlinuz-$v" ] && best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n1)
    done
    [ -n "$best" ] && echo "$best"
}

# Prints the missing Debian packages (nothing when all is there).
_rxe_vm_missing() {
    local miss=()
    command -v qemu-system-x86_64 >/dev/null || miss+=(qemu-system-x86)
    [ -n "$(rxe_vm_kernel)" ] || miss+=(linux-image-amd64)
    [ "$(dpkg-query -W -f='${Status}' busybox-static 2>/dev/null)" = "install ok installed" ] ||
        miss+=(busybox-static)
    command -v ibv_devinfo >/dev/null || miss+=(ibverbs-utils)
    ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 || miss+=(ibverbs-providers)
    [ -d /etc/rdma ] || miss+=(rdma-core)
    command -v ib_send_lat >/dev/null || miss+=(perftest)
    { command -v rdma && command -v ip; } >/dev/null || miss+=(iproute2)
    command -v modprobe >/dev/null || miss+=(kmod)
    command -v xz >/dev/null || miss+=(xz-utils)
    command -v setpriv >/dev/null || miss+=(util-linux)
    echo "${miss[*]}"
}

rxe_vm_check_deps() {
    local m; m=$(_rxe_vm_missing)
    if [ -n "$m" ]; then echo "missing packages: $m (run: test/rxe/vm.sh install-deps)"; return 1; fi
    return 0
}

rxe_vm_install_deps() {
    local m; m=$(_rxe_vm_missing)
    [ -z "$m" ] && return 0
    if [ "$(id -u)" != 0 ]; then _rxe_log "installing packages needs root: $m"; return 1; fi
    _rxe_log "installing: $RXE_VM_PACKAGES"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || return 1
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $RXE_VM_PACKAGES >&2 || return 1
    m=$(_rxe_vm_missing)
    [ -z "$m" ] || { _rxe_log "still missing after install: $m"; return 1; }
}

# Modules the initramfs loads, in order (the 9p root, then what the rxe setup needs).
_rxe_vm_modules() {
    local kv=$1 m
    # virtio_rng: the host's entropy for the guest (see the -device below)
    for m in virtio_pci 9pnet_virtio 9p rdma_rxe virtio_net virtio_rng dummy; do
        modprobe -S "$kv" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++'
}

# Stage 1, /init of the initramfs (busybox): mount the host's root over 9p, then chroot into it and
# run stage 2 (this file's __guest, copied into the share).
_rxe_vm_stage1() {
    cat <<'EOF'
#!/bin/sh
export PATH=/bin
die() { echo "rxe-vm-init: $*"; echo "RXE-EXIT-STATUS: 125"; echo o > /proc/sysrq-trigger; sleep 5; exit 1; }
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
grep -q 'loglevel=[4-9]' /proc/cmdline || echo 3 > /proc/sys/kernel/printk
for m in $(cat /modules.list); do
    insmod "/modules/${m##*/}" $( [ "${m##*/}" = dummy.ko ] && echo numdummies=0 ) || echo "rxe-vm-init: insmod $m failed"
done
share=; guest=1; vis=
for a in $(cat /proc/cmdline); do
    case $a in
    rdmpi_rxe_share=*) share=${a#*=} ;;
    rdmpi_rxe_guest=*) guest=${a#*=} ;;
    rdmpi_rxe_vis=*) vis=${a#*=} ;;
    esac
done
[ -n "$share" ] || die "no rdmpi_rxe_share= on the command line"
o=trans=virtio,version=9p2000.L,msize=1048576
mount -t 9p -o ro,$o,cache=loose hostroot /mnt || die "cannot mount the host root over 9p"
# The guest's own /tmp hides the host's; directories of the host's /tmp the
# caller needs (a build tree there) stay visible, read-only, at their paths.
[ -z "$vis" ] || { mkdir -p /hosttmp && mount -o bind /mnt/tmp /hosttmp; } || die "cannot keep the host's /tmp"
mount -t tmpfs -o mode=1777 tmpfs /mnt/tmp || die "cannot mount /tmp"
IFS=,
for d in $vis; do
    mkdir -p "/mnt$d" && mount -o bind "/hosttmp${d#/tmp}" "/mnt$d" || echo "rxe-vm-init: cannot show $d"
done
IFS=' '
case $share in /tmp/*) mkdir -p "/mnt$share" ;; esac
mount -t 9p -o $o rxeshare "/mnt$share" || die "cannot mount the share at $share"
mount --move /proc /mnt/proc && mount --move /sys /mnt/sys && mount --move /dev /mnt/dev ||
    die "cannot move proc/sys/dev"
exec chroot /mnt /bin/bash "$share/.rxe/vm.sh" __guest "$share" "$guest"
die "cannot chroot into the host root"
EOF
}

# Builds (or reuses) the initramfs for kernel version $1; prints its path.
rxe_vm_initrd() {
    local kv=${1:-$(rxe_vm_kernel)} mods key out tmp m
    [ -n "$kv" ] || { _rxe_log "no kernel with rdma_rxe (install linux-image-amd64)"; return 1; }
    mods=$(_rxe_vm_modules "$kv")
    [ -n "$mods" ] || { _rxe_log "no modules found for $kv"; return 1; }
    key=$( { _rxe_vm_stage1; echo "$mods"; stat -c '%s %Y' /bin/busybox $mods; } | md5sum | cut -c1-12)
    out=$RXE_VM_CACHE/initrd-$kv-$key.cpio
    if [ -s "$out" ]; then echo "$out"; return 0; fi
    mkdir -p "$RXE_VM_CACHE" || return 1
    tmp=$(mktemp -d "$RXE_VM_CACHE/initrd.XXXXXX") || return 1
    (
        set -e
        cd "$tmp"
        mkdir -p root/bin root/proc root/sys root/dev root/mnt root/modules
        cp /bin/busybox root/bin/busybox
        for a in sh mount insmod mkdir cat chroot echo sleep; do ln -s busybox "root/bin/$a"; done
        for m in $mods; do
            case $m in
            *.ko) cp "$m" root/modules/ ;;
            *.ko.xz) xz -dc "$m" > "root/modules/$(basename "${m%.xz}")" ;;
            *.ko.zst) zstd -qdc "$m" > "root/modules/$(basename "${m%.zst}")" ;;
            *.ko.gz) gzip -dc "$m" > "root/modules/$(basename "${m%.gz}")" ;;
            esac
        done
        for m in $mods; do m=${m##*/}; echo "${m%.ko*}.ko"; done > root/modules.list
        _rxe_vm_stage1 > root/init
        chmod 755 root/init
        cd root
        find . | /bin/busybox cpio -o -H newc 2>/dev/null > ../initrd.cpio
    ) || { rm -rf "$tmp"; _rxe_log "building the initramfs failed"; return 1; }
    mv -f "$tmp/initrd.cpio" "$out" && rm -rf "$tmp"
    find "$RXE_VM_CACHE" -maxdepth 1 -name "initrd-$kv-*.cpio" ! -path "$out" -mmin +1 -delete 2>/dev/null
    echo "$out"
}

# The kernel to boot for version $1: the uncompressed ELF vmlinux (qemu starts it through its PVH
# entry, which saves the guest ~2 s of decompression under TCG), extracted once from the bzImage
# into the cache; the bzImage itself when that is not possible.
rxe_vm_kimage() {
    local kv=$1 bz=/boot/vmlinuz-$1 out=$RXE_VM_CACHE/vmlinux-$1 off tmp
    if [ -n "${RXE_KIMG:-}" ]; then echo "$RXE_KIMG"; return 0; fi
    if [ -s "$out" ] && [ "$out" -nt "$bz" ]; then echo "$out"; return 0; fi
    if grep -q '^CONFIG_PVH=y' "/boot/config-$kv" 2>/dev/null && command -v xz >/dev/null; then
        off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" 2>/dev/null | head -n1 | cut -d: -f1)
        if [ -n "$off" ]; then
            mkdir -p "$RXE_VM_CACHE"
            tmp=$(mktemp "$out.XXXXXX")
            if tail -c +$((off + 1)) "$bz" | xz -dc --single-stream > "$tmp" 2>/dev/null &&
                [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
                chmod 644 "$tmp"; mv -f "$tmp" "$out"; echo "$out"; return 0
            fi
            rm -f "$tmp"
        fi
    fi
    echo "$bz"
}

# Stage 2, inside the guest (chroot into the host's root): network, rxe0, then the script.
_rxe_vm_guest() {
    local share=$1 guest=$2 dev ip peer
    rc=125
    local rxe=$share/.rxe out=$share/.rxe/out.$guest
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LC_ALL=C
    exec </dev/null
    _poweroff() {
        echo "RXE-EXIT-STATUS: $rc"
        sync
        echo o > /proc/sysrq-trigger
        sleep 10
    }
    trap _poweroff EXIT
    _fail() { echo "rxe-vm guest$guest: setup: $*" | tee -a "$out"; exit 125; }
    : > "$out"
    # shellcheck disable=SC1090,SC1091
    . "$rxe/config" || _fail "cannot read $rxe/config"
    mkdir -p /dev/shm /dev/pts
    mount -t tmpfs -o mode=1777 tmpfs /dev/shm || _fail "cannot mount /dev/shm"
    mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts 2>/dev/null
    hostname "guest$guest"
    printf '127.0.0.1\tlocalhost\n192.168.77.1\tguest1\n192.168.77.2\tguest2\n' > /tmp/.rxe-hosts
    mount --bind /tmp/.rxe-hosts /etc/hosts 2>/dev/null
    ulimit -l unlimited 2>/dev/null
    ip link set lo up
    ip="192.168.77.$guest"
    if [ "$RXE_NGUESTS" = 1 ]; then
        dev=dummy0; peer=$ip
        ip link add dummy0 type dummy || _fail "cannot create dummy0"
    else
        dev=eth0; peer="192.168.77.$((3 - guest))"
    fi
    ip addr add "$ip/24" dev "$dev" && ip link set "$dev" up || _fail "cannot configure $dev"
    rdma link add rxe0 type rxe netdev "$dev" || _fail "rdma link add rxe0 failed"
    for _ in $(seq 100); do
        grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && break
        sleep 0.1
    done
    export RXE_GUEST=$guest RXE_IP_SELF=$ip RXE_IP_PEER=$peer RXE_DEV=rxe0 RXE_NETDEV=$dev \
        RXE_SHARE=$share
    case $RXE_CWD in /tmp | /tmp/*) cd /tmp ;; *) cd "$RXE_CWD" 2>/dev/null || cd /tmp ;; esac
    "${RXE_ARGV[@]}" 2>&1 | tee -a "$out"
    rc=${PIPESTATUS[0]}
    echo "$rc" > "$rxe/rc.$guest"
    exit "$rc"
}

# Two free UDP ports P and P+1 on 127.0.0.1 (the two ends of the virtual wire); prints P.
_rxe_vm_free_ports() {
    local p _
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 30000))
        ss -Huan "( sport = :$p or sport = :$((p + 1)) )" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
    done
    return 1
}

# rxe_vm_run [options] -- SCRIPT [ARGS...]; runs in a subshell so its traps stay its own.
rxe_vm_run() { ( _rxe_vm_run_main "$@" ); }

# _rxe_vm_stalled RUNDIR NGUESTS: prints the first guest whose console shows a kernel soft lockup
# of at least RXE_STALL_LIMIT seconds (180) and succeeds; fails when none. The kernel reports a
# CPU stuck from 20 s on and repeats with the growing time; a busy host makes short ones that
# pass, a wedged emulated CPU grows without end and would hold the run until its timeout.
_rxe_vm_stalled() {
    local rundir=$1 n=$2 g s
    for g in $(seq "$n"); do
        s=$(grep -o 'soft lockup - CPU#[0-9]* stuck for [0-9]*s' "$rundir/console.$g.log" 2>/dev/null |
            tail -n 1 | sed 's/.* for \([0-9]*\)s/\1/')
        if [ -n "$s" ] && [ "$s" -ge "${RXE_STALL_LIMIT:-180}" ]; then echo "$g"; return 0; fi
    done
    return 1
}

_rxe_vm_run_main() {
    local nguests=1 tmo=600 mem=2048 smp=2 share='' keep=${RXE_KEEP:-0} install=${RDMPI_RXE_INSTALL:-0}
    local verbose=0 envs=() script
    while [ $# -gt 0 ]; do
        case $1 in
        --guests) nguests=$2; shift 2 ;;
        --timeout) tmo=$2; shift 2 ;;
        --mem) mem=$2; shift 2 ;;
        --smp) smp=$2; shift 2 ;;
        --share) share=$2; shift 2 ;;
        --env) envs+=("$2"); shift 2 ;;
        --keep) keep=1; shift ;;
        --install) install=1; shift ;;
        -v | --verbose) verbose=1; shift ;;
        --) shift; break ;;
        *) _rxe_log "unknown option '$1'"; return 2 ;;
        esac
    done
    [ $# -ge 1 ] || { _rxe_log "usage: vm.sh run [options] -- SCRIPT [ARGS...]"; return 2; }
    case $nguests in 1 | 2) ;; *) _rxe_log "--guests must be 1 or 2"; return 2 ;; esac
    [[ $tmo =~ ^[0-9]+$ && $mem =~ ^[0-9]+$ && $smp =~ ^[0-9]+$ ]] ||
        { _rxe_log "--timeout, --mem and --smp take numbers"; return 2; }
    script=$(readlink -f "$1") && [ -f "$script" ] || { _rxe_log "no such script: $1"; return 2; }
    local runner=(); [ -x "$script" ] || runner=(bash)
    shift
    if [ "$install" = 1 ]; then rxe_vm_install_deps || return 3; fi
    rxe_vm_check_deps >&2 || return 3

    local kv initrd kimg rundir
    kv=$(rxe_vm_kernel)
    initrd=$(rxe_vm_initrd "$kv") || return 3
    kimg=$(rxe_vm_kimage "$kv")
    # run directories of failed runs are kept for a day
    find "$RXE_VM_CACHE" -maxdepth 1 -name 'run.*' -type d -mmin +1440 -exec rm -rf {} + 2>/dev/null
    rundir=$(mktemp -d "$RXE_VM_CACHE/run.XXXXXX") || return 3
    if [ -z "$share" ]; then
        share=$rundir/share; mkdir -p "$share"
    else
        mkdir -p "$share" && share=$(readlink -f "$share") || return 2
    fi
    case $share in
    *[[:space:]]*) _rxe_log "the share path must not contain spaces: $share"; return 2 ;;
    /dev/* | /proc/* | /sys/*) _rxe_log "the share cannot live under /dev, /proc or /sys"; return 2 ;;
    esac
    mkdir -p "$share/.rxe" && rm -f "$share"/.rxe/rc.* "$share"/.rxe/out.* || return 3
    cp "$RXE_VM_SELF" "$share/.rxe/vm.sh"
    # Top directories under /tmp of the rdmpi trees (RDMPI_SRC, _BUILD, _PREFIX) and of
    # RXE_VISIBLE (colon-separated): the guests see them at the same paths.
    local vis='' v top
    local IFS_save=$IFS; IFS=:
    for v in ${RDMPI_SRC:-} ${RDMPI_BUILD:-} ${RDMPI_PREFIX:-} ${RXE_VISIBLE:-}; do
        case $v in
        /tmp/?*) top=${v#/tmp/}; top=/tmp/${top%%/*}
                 case ,$vis, in *,"$top",*) ;; *) vis=${vis:+$vis,}$top ;; esac ;;
        esac
    done
    IFS=$IFS_save
    case $script in
    "$share"/*) ;;
    /tmp/*) top=${script#/tmp/}; top=/tmp/${top%%/*}
        case ,$vis, in *,"$top",*) ;; *)
        cp "$script" "$share/.rxe/$(basename "$script")" && script=$share/.rxe/$(basename "$script") ;;
        esac ;;
    /dev/* | /proc/* | /sys/*)
        cp "$script" "$share/.rxe/$(basename "$script")" && script=$share/.rxe/$(basename "$script") ;;
    esac

    # The guests' configuration: argv and environment, quoted by bash itself.
    {
        local RXE_ARGV=("${runner[@]}" "$script" "$@") v
        declare -p RXE_ARGV
        echo "export RXE_NGUESTS=$nguests"
        printf 'RXE_CWD=%q\n' "$PWD"
        for v in $(compgen -e); do
            case $v in RDMPI_* | PATH) printf 'export %s=%q\n' "$v" "${!v}" ;; esac
        done
        for v in "${envs[@]}"; do printf 'export %s=%q\n' "${v%%=*}" "${v#*=}"; done
    } > "$share/.rxe/config"

    local pids=() tails=() g port='' start now rc=0 st
    _rxe_vm_cleanup() {
        local p
        for p in "${pids[@]}" "${tails[@]}"; do kill "$p" 2>/dev/null; done
        for p in "${pids[@]}"; do
            for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
            kill -9 "$p" 2>/dev/null
        done
        wait 2>/dev/null
    }
    trap _rxe_vm_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP

    [ "$nguests" = 2 ] && { port=$(_rxe_vm_free_ports) || { _rxe_log "no free port"; return 3; }; }
    # The wire's UDP sockets take the host's default receive buffer (208 KiB on Debian): a burst
    # of RDMA traffic overflows it and rxe's RC then stalls in retransmission timeouts (ib_write_bw
    # across the guests: 3.6 MB/s with 900 of 4100 packets resent; 8.4 MB/s with none at 8 MiB).
    # As root, the default is raised while qemu creates the sockets, then restored.
    local rmem_saved=""
    if [ "$nguests" = 2 ] && [ -w /proc/sys/net/core/rmem_default ]; then
        rmem_saved="$(cat /proc/sys/net/core/rmem_default) $(cat /proc/sys/net/core/rmem_max)"
        [ "${rmem_saved% *}" -lt 8388608 ] && echo 8388608 > /proc/sys/net/core/rmem_default
        [ "${rmem_saved#* }" -lt 8388608 ] && echo 8388608 > /proc/sys/net/core/rmem_max
    fi
    start=$SECONDS
    for g in $(seq "$nguests"); do
        local net=()
        if [ "$nguests" = 2 ]; then
            # a virtual wire: each guest sends UDP datagrams to the other's port on 127.0.0.1
            net=(-netdev "socket,id=n0,udp=127.0.0.1:$((port + 2 - g)),localaddr=127.0.0.1:$((port + g - 1))")
            net+=(-device "virtio-net-pci,netdev=n0,mac=52:54:00:77:00:0$g,romfile=")
        fi
        : > "$rundir/console.$g.log"
        # virtio-rng: without an entropy source the guest's getrandom() (ssh-keygen, sshd) waits
        # for the kernel's own collector, which under TCG once left guest 1 stuck in ssh-keygen
        # with its CPU in a soft lockup until the run's 45-min timeout (a CI run of 2026-12-07).
        # qemu64 (SSE2, cx16), not max: with AVX2 and ERMS advertised, glibc's and the kernel's
        # memcpy pick vector and rep-movsb variants that TCG emulates slowly (p2p_large at np2:
        # 31-35 s with max, 20-21 s with qemu64). RXE_QEMU_CPU overrides.
        setpriv --pdeathsig KILL -- qemu-system-x86_64 -nodefaults -no-user-config \
            -machine q35 -accel tcg,thread=multi -cpu "${RXE_QEMU_CPU:-qemu64}" -smp "$smp" -m "$mem" \
            -display none -monitor none -no-reboot -serial "file:$rundir/console.$g.log" \
            -kernel "$kimg" -initrd "$initrd" \
            -append "console=ttyS0 quiet loglevel=3 ${RXE_VM_APPEND:-} panic=-1 mitigations=off tsc=reliable no_timer_check i8042.noaux i8042.nopnp i8042.dumbkbd cryptomgr.notests rdmpi_rxe_share=$share rdmpi_rxe_guest=$g${vis:+ rdmpi_rxe_vis=$vis}" \
            -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
            -virtfs "local,path=$share,mount_tag=rxeshare,security_model=none,multidevs=remap" \
            -object rng-random,id=rng0,filename=/dev/urandom -device virtio-rng-pci,rng=rng0 \
            "${net[@]}" > "$rundir/qemu.$g.log" 2>&1 < /dev/null &
        pids+=($!)
        if [ "$verbose" = 1 ]; then
            tail -n +1 -F "$rundir/console.$g.log" >&2 2>/dev/null &
            tails+=($!)
        fi
    done
    if [ -n "$rmem_saved" ]; then
        # both sockets bound (in /proc/net/udp, port in hex) or 10 s: then the old defaults again
        for _ in $(seq 50); do
            [ "$(grep -c -i -E ":($(printf %04X "$port")|$(printf %04X $((port + 1)))) " /proc/net/udp)" -ge 2 ] && break
            sleep 0.2
        done
        echo "${rmem_saved% *}" > /proc/sys/net/core/rmem_default
        echo "${rmem_saved#* }" > /proc/sys/net/core/rmem_max
    fi
    # guest 1's output as it comes
    : > "$share/.rxe/out.1"
    tail -s 0.2 -n +1 -F --pid="${pids[0]}" "$share/.rxe/out.1" 2>/dev/null &
    local out_tail=$!

    # wait: until all exit, the timeout, or 30 s after a guest failed
    local deadline=$((start + tmo)) timedout=0 alive failed_at= stall_checked=$SECONDS stalled=
    while :; do
        alive=0
        for g in $(seq "$nguests"); do
            if kill -0 "${pids[g-1]}" 2>/dev/null; then
                alive=$((alive + 1))
            elif [ -z "$failed_at" ] && [ "$(cat "$share/.rxe/rc.$g" 2>/dev/null || echo x)" != 0 ]; then
                failed_at=$SECONDS
                [ $((failed_at + 30)) -lt "$deadline" ] && deadline=$((failed_at + 30))
            fi
        done
        [ "$alive" = 0 ] && break
        now=$SECONDS
        if [ "$now" -ge "$deadline" ]; then timedout=1; break; fi
        if [ $((now - stall_checked)) -ge 5 ]; then
            stall_checked=$now
            stalled=$(_rxe_vm_stalled "$rundir" "$nguests") && break
        fi
        sleep 0.2
    done
    _rxe_vm_cleanup
    wait "$out_tail" 2>/dev/null

    # statuses: the file from the guest, else the console marker, else 124 (killed) / 125 (died)
    local stats=()
    for g in $(seq "$nguests"); do
        st=$(cat "$share/.rxe/rc.$g" 2>/dev/null)
        [ -n "$st" ] || st=$(sed -n 's/.*RXE-EXIT-STATUS: \([0-9]*\).*/\1/p' "$rundir/console.$g.log" | tail -n1)
        if [ -z "$st" ]; then
            if [ "$timedout" = 1 ]; then st=124; else st=125; fi
        fi
        stats+=("$st")
        if [ "$g" = 2 ] && [ -s "$share/.rxe/out.2" ]; then sed 's/^/[guest2] /' "$share/.rxe/out.2"; fi
    done
    # the status: the first guest that failed by itself, else 124 if one was killed, else 0
    for st in "${stats[@]}"; do
        case $st in 0 | 124) ;; *) [ "$rc" = 0 ] && rc=$st ;; esac
    done
    for g in $(seq "$nguests"); do
        st=${stats[g-1]}
        if [ "$st" != 0 ]; then
            if [ "$st" = 124 ] && [ -n "$failed_at" ]; then
                _rxe_log "guest$g: still running 30 s after the other guest failed, killed"
            elif [ "$st" = 124 ]; then
                _rxe_log "guest$g: timed out after ${tmo}s, killed"
            else
                _rxe_log "guest$g: status $st"
            fi
            _rxe_log "guest$g console log ($rundir/console.$g.log), last lines:"
            tail -n 25 "$rundir/console.$g.log" | sed 's/^/  | /' >&2
            [ -s "$rundir/qemu.$g.log" ] && sed 's/^/  qemu: /' "$rundir/qemu.$g.log" >&2
        fi
    done
    [ "$rc" = 0 ] && [[ " ${stats[*]} " == *" 124 "* || $timedout = 1 ]] && rc=124
    if [ -n "$stalled" ]; then
        _rxe_log "guest$stalled: its kernel reports a CPU stuck for over ${RXE_STALL_LIMIT:-180} s (soft lockup: the emulator, not the script), killed"
        rc=75
    fi
    if [ "$rc" = 0 ] && [ "$keep" != 1 ]; then
        rm -rf "$rundir"
        case $share in "$rundir"/*) ;; *) rm -rf "$share/.rxe" ;; esac
    else
        _rxe_log "run directory kept: $rundir"
    fi
    return "$rc"
}

# --- command-line dispatch (only when executed, not when sourced) ---------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    cmd=${1:-}
    shift || true
    case $cmd in
    run) _rxe_vm_run_main "$@"; exit $? ;;   # no subshell: qemu's parent is this process
    install-deps) rxe_vm_install_deps; exit $? ;;
    check-deps) rxe_vm_check_deps; exit $? ;;
    initrd) rxe_vm_initrd "$@"; exit $? ;;
    __guest) _rxe_vm_guest "$@"; exit $? ;;
    *) sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
fi
