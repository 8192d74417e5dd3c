#!/bin/bash
# sshd_test_config LISTEN HOSTKEY PIDFILE AUTHORIZED_KEYS: prints the configuration of a test
# sshd (key-only root login, no PAM, no strict modes for keys in temporary directories, many
# sessions at once for jobs that start several daemons). Sourced by test/multinode/testbed.sh
# (one sshd per network namespace) and test/rxe/guest-tests.sh (an sshd in the second guest).
sshd_test_config() {
    cat <<EOS
ListenAddress $1
HostKey $2
PidFile $3
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $4
StrictModes no
UsePAM no
PrintMotd no
MaxStartups 100:30:200
MaxSessions 100
EOS
}
