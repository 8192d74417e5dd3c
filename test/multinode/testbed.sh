#!/bin/bash
# A multi-"host" testbed on one Linux machine, sourced by test/multinode/run
# and test/engines/run. Root only. tb_up N makes N network namespaces, each a
# host: a veth pair to a private bridge, an address 10.213.ID.(K+1)/24 (ID is
# picked per testbed so that several can coexist), no default route, and its
# own hostname nodeK through a persistent UTS namespace. Addresses exist only
# inside this machine. If sshd is installed, each host also runs one on its
# address (key-only root login; $TB/ssh_config has "Host nodeK" entries, and
# "Host nodeX" points at an address nobody has). $TB/nodeexec nodeK CMD runs
# CMD "on" nodeK without ssh (nsenter into its network and UTS namespaces).
# tb_down removes all of it, killing what still runs in the namespaces;
# it is safe to call twice and after a partial tb_up.

# shellcheck source=../sshd-config.sh
. "$(dirname "${BASH_SOURCE[0]}")/../sshd-config.sh"

tb_log() { [ -n "${TB_VERBOSE:-}" ] && echo "testbed: $*" >&2; return 0; }

# tb_up N: sets TB, TB_ID, TB_NET, TB_NS_PREFIX, TB_SSH (1 if sshds run).
tb_up() {
    local n=$1 k ns ip
    TB=$(mktemp -d /tmp/rdmpi-tb.XXXXXX) || return 1
    chmod 700 "$TB"
    echo "$n" >"$TB/nodes"
    TB_ID=""
    for k in $(seq $(( $$ % 200 + 20 )) 250) $(seq 20 250); do
        ip link show "rdmnbr$k" >/dev/null 2>&1 || ls /run/netns/"rdmn$k-"* >/dev/null 2>&1 ||
            { TB_ID=$k; break; }
    done
    [ -n "$TB_ID" ] || { echo "testbed: no free id" >&2; return 1; }
    echo "$TB_ID" >"$TB/id"
    TB_NET=10.213.$TB_ID
    TB_NS_PREFIX=rdmn$TB_ID-
    ip link add "rdmnbr$TB_ID" type bridge || return 1
    ip addr add "$TB_NET.1/24" dev "rdmnbr$TB_ID" &&
    ip link set "rdmnbr$TB_ID" up || return 1
    mkdir -p "$TB/uts"
    for k in $(seq 1 "$n"); do
        ns=$TB_NS_PREFIX"node$k"; ip=$TB_NET.$((k + 1))
        ip netns add "$ns" || return 1
        ip link add "rdmn$TB_ID-$k" type veth peer name "rdmn$TB_ID-${k}p" &&
        ip link set "rdmn$TB_ID-${k}p" netns "$ns" &&
        ip link set "rdmn$TB_ID-$k" master "rdmnbr$TB_ID" up &&
        ip -n "$ns" link set lo up &&
        ip -n "$ns" link set "rdmn$TB_ID-${k}p" name eth0 &&
        ip -n "$ns" addr add "$ip/24" dev eth0 &&
        ip -n "$ns" link set eth0 up || return 1
        touch "$TB/uts/node$k"
        unshare --uts="$TB/uts/node$k" hostname "node$k" || return 1
    done
    cat >"$TB/nodeexec" <<EOS
#!/bin/sh
# nodeexec HOST CMD...: runs CMD in HOST's network and UTS namespaces.
h=\$1; shift
exec nsenter --net=/run/netns/$TB_NS_PREFIX\$h --uts=$TB/uts/\$h "\$@"
EOS
    chmod +x "$TB/nodeexec"
    TB_SSH=0
    if command -v sshd >/dev/null && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null; then
        tb_sshd_up "$n" && TB_SSH=1
    fi
    tb_log "up: $n hosts, net $TB_NET.0/24, ssh $TB_SSH, state $TB"
}

tb_sshd_up() {
    local n=$1 k ip
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$TB/id_ed25519" && cp "$TB/id_ed25519.pub" "$TB/authorized_keys" &&
    ssh-keygen -q -t ed25519 -N '' -f "$TB/hostkey" || return 1
    : >"$TB/ssh_config"
    for k in $(seq 1 "$n") X; do
        if [ "$k" = X ]; then ip=$TB_NET.99; else ip=$TB_NET.$((k + 1)); fi
        cat >>"$TB/ssh_config" <<EOS
Host node$k
  HostName $ip
  User root
  IdentityFile $TB/id_ed25519
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 5
EOS
        [ "$k" = X ] && continue
        sshd_test_config "$ip:22" "$TB/hostkey" "$TB/sshd_node$k.pid" "$TB/authorized_keys" \
            >"$TB/sshd_node$k.conf"
        "$TB/nodeexec" "node$k" /usr/sbin/sshd -f "$TB/sshd_node$k.conf" || return 1
    done
    for k in $(seq 1 "$n"); do
        for _ in $(seq 1 100); do
            ssh -F "$TB/ssh_config" -o ConnectTimeout=2 "node$k" true 2>/dev/null && break
            sleep 0.1
        done
    done
}

tb_down() {
    [ -n "${TB:-}" ] && [ -d "$TB" ] || return 0
    local n id k ns pids
    n=$(cat "$TB/nodes" 2>/dev/null || echo 0)
    id=$(cat "$TB/id" 2>/dev/null)
    for k in $(seq 1 "$n"); do
        [ -s "$TB/sshd_node$k.pid" ] && kill "$(cat "$TB/sshd_node$k.pid")" 2>/dev/null
    done
    if [ -n "$id" ]; then
        for k in $(seq 1 "$n"); do
            ns=rdmn$id-node$k
            [ -e "/run/netns/$ns" ] || continue
            pids=$(ip netns pids "$ns" 2>/dev/null)
            [ -n "$pids" ] && kill $pids 2>/dev/null && sleep 0.2
            pids=$(ip netns pids "$ns" 2>/dev/null)
            [ -n "$pids" ] && kill -9 $pids 2>/dev/null
            ip netns del "$ns"
        done
        for k in $(seq 1 "$n"); do ip link del "rdmn$id-$k" 2>/dev/null; done
        ip link del "rdmnbr$id" 2>/dev/null
    fi
    for k in $(seq 1 "$n"); do
        [ -e "$TB/uts/node$k" ] && umount "$TB/uts/node$k" 2>/dev/null
    done
    rm -rf "$TB"
    TB=""
}
