#!/usr/bin/env bash
# Start a single-node SLURM cluster on this machine, for testing `--profile profiles/slurm`.
#
#   bash tools/slurm/start_cluster.sh STATE_DIR
#
# Needs root on Debian 12 (or a Debian-like system with SLURM 22.05); no systemd: every daemon is
# started by hand and writes a pid file under STATE_DIR. Stop them with tools/slurm/stop_cluster.sh.
#
# What it does (idempotent: a daemon whose pid file names a live process is left running):
#   1. apt-get installs slurmctld slurmd slurm-client munge slurmdbd mariadb-server if missing
#      (without starting their init scripts);
#   2. writes every config, key, database, log and pid file under STATE_DIR:
#        STATE_DIR/etc/{slurm.conf,slurmdbd.conf,gres.conf,munge.key}   STATE_DIR/log/*.log
#        STATE_DIR/run/*.pid   STATE_DIR/mysql/ (database, its pid and log)   STATE_DIR/env.sh
#      Outside STATE_DIR: munged's socket in /run/munge (sacctmgr ignores AuthInfo=socket=), and
#      the symlink /etc/slurm/slurm.conf -> STATE_DIR/etc/slurm.conf (inside a job, the jobstep
#      plugin strips SLURM_CONF before its srun, so job steps need the default path); refused if
#      /etc/slurm/slurm.conf exists and is not such a symlink;
#   3. starts munged, mariadbd (accounting database), slurmdbd, slurmctld, slurmd in that order;
#   4. waits until `sinfo` shows the node idle.
# Clients: `. STATE_DIR/env.sh` (sets SLURM_CONF) before sbatch/sinfo/sacct/snakemake.
#
# SLURM_TEST_GPUS (default 1): stand-in GPUs the node advertises (character devices like /dev/null,
# so `--gpus=1` jobs are scheduled; nothing sees a real device; 0 for none). Changing it needs a
# stop and start.
# Ports: slurmctld SLURM_TEST_PORT_BASE (default 6817), slurmd +1, slurmdbd +2, mariadb +3
# (127.0.0.1 only). Only one such cluster can run per machine with the same ports.
# Measured facts behind the settings: ../shared/notes/local-slurm.md (slurm.conf lines, pitfalls).
set -euo pipefail

usage() { echo "usage: $0 STATE_DIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
[ "$(id -u)" -eq 0 ] || { echo "start_cluster.sh: needs root (it installs packages and runs the SLURM daemons)" >&2; exit 3; }

STATE="$(realpath -m "$1")"
PORT_BASE="${SLURM_TEST_PORT_BASE:-6817}"
CTLD_PORT=$PORT_BASE
SLURMD_PORT=$((PORT_BASE + 1))
DBD_PORT=$((PORT_BASE + 2))
DB_PORT=$((PORT_BASE + 3))
CLUSTER=localcluster
NODE="$(hostname -s)"
WAIT_S="${SLURM_TEST_WAIT_S:-60}"

log() { echo "start_cluster: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---- 1. packages ---------------------------------------------------------------------------
PACKAGES=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server)
missing=()
for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    # Keep the packages' init scripts from starting daemons with the default configs.
    created_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        created_policy=1
    fi
    apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; }
    installed=0
    if apt_install; then
        installed=1
    else
        log "apt-get install failed; running apt-get update and retrying"
        apt-get update -q && apt_install && installed=1
    fi
    if [ $created_policy -eq 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
    [ $installed -eq 1 ] || die "could not install ${missing[*]}"
fi
for bin in munged mariadbd slurmdbd slurmctld slurmd sinfo sacctmgr; do
    command -v "$bin" >/dev/null || [ -x "/usr/sbin/$bin" ] || die "$bin not found after install"
done
export PATH="$PATH:/usr/sbin:/sbin"

# ---- 2. state dir and configs ----------------------------------------------------------------
mkdir -p "$STATE"/{etc,log,run,munge,mysql,slurmctld,slurmd}
chmod 755 "$STATE" "$STATE"/{etc,log,run}
# The daemons' users must reach STATE_DIR: every parent must be searchable by others.
d="$STATE"
while [ "$d" != "/" ]; do
    d="$(dirname "$d")"
    perms=$(stat -c %A "$d")
    [ "${perms:9:1}" = "x" ] || [ "${perms:9:1}" = "t" ] \
        || die "$d is not searchable by other users (mode $perms); the slurm and munge users must reach $STATE. Use a state dir under /var/tmp or /srv."
done
chown munge:munge "$STATE/munge"; chmod 755 "$STATE/munge"  # munged: socket dir must be searchable by all, writable by munge only
chown mysql:mysql "$STATE/mysql"; chmod 750 "$STATE/mysql"
chown slurm:slurm "$STATE/slurmctld" "$STATE/log" "$STATE/run"
chmod 775 "$STATE/log" "$STATE/run"

if [ ! -s "$STATE/etc/munge.key" ]; then
    dd if=/dev/urandom of="$STATE/etc/munge.key" bs=1024 count=1 status=none
fi
chown munge:munge "$STATE/etc/munge.key"; chmod 400 "$STATE/etc/munge.key"
# munged listens on the default socket: sacctmgr's connection to slurmdbd ignores AuthInfo=socket=
# (measured with 22.05.8), so a private socket breaks accounting. One munged per machine, then.
MUNGE_SOCKET=/run/munge/munge.socket.2
mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge

# Memory for jobs: what slurmd measures, minus 512 MB for the daemons (local-slurm.md).
mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
[ -n "$mem" ] || mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 ))
mem=$(( mem > 1024 ? mem - 512 : mem ))
cpus=$(nproc)

DB_PASS_FILE="$STATE/etc/db.password"
[ -s "$DB_PASS_FILE" ] || { head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$DB_PASS_FILE"; }
chmod 600 "$DB_PASS_FILE"
DB_PASS="$(cat "$DB_PASS_FILE")"

# Stand-in GPUs: the node accepts `--gpus`/`--gres=gpu` requests, so GPU job scripts and GPU
# resources can be submitted and scheduled here; nothing sees a real device.
GPUS="${SLURM_TEST_GPUS:-1}"
GRES_TYPES=""; NODE_GRES=""
rm -f "$STATE/etc/gres.conf"
if [ "$GPUS" -gt 0 ]; then
    GRES_TYPES="GresTypes=gpu
AccountingStorageTRES=gres/gpu"
    NODE_GRES="Gres=gpu:$GPUS"
    # slurmd counts a GPU per device file: stand-ins, character devices like /dev/null.
    mkdir -p "$STATE/dev"
    for ((i = 0; i < GPUS; i++)); do
        [ -c "$STATE/dev/gpu$i" ] || mknod -m 666 "$STATE/dev/gpu$i" c 1 3
    done
    echo "NodeName=$NODE Name=gpu File=$STATE/dev/gpu[0-$((GPUS - 1))]" > "$STATE/etc/gres.conf"
    chmod 644 "$STATE/etc/gres.conf"
fi

cat > "$STATE/etc/slurm.conf" <<EOF
# Written by tools/slurm/start_cluster.sh for a single-node test cluster; rewritten on each start.
ClusterName=$CLUSTER
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
MinJobAge=300
EnforcePartLimits=ALL
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
JobAcctGatherType=jobacct_gather/linux
AccountingStoreFlags=job_comment
${GRES_TYPES}
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem ${NODE_GRES} State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
chmod 644 "$STATE/etc/slurm.conf"

cat > "$STATE/etc/slurmdbd.conf" <<EOF
# Written by tools/slurm/start_cluster.sh.
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=slurm
PidFile=$STATE/run/slurmdbd.pid
LogFile=$STATE/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
EOF
chown slurm:slurm "$STATE/etc/slurmdbd.conf"; chmod 600 "$STATE/etc/slurmdbd.conf"

# Inside a job, snakemake-executor-plugin-slurm-jobstep (0.6.1) strips every SLURM_* variable,
# SLURM_CONF included, before its `srun`: job steps only find the default /etc/slurm/slurm.conf.
# So that path must be this cluster's config: a symlink, made only where no other config is.
ETC_CONF=/etc/slurm/slurm.conf
mkdir -p /etc/slurm
if [ -L "$ETC_CONF" ] || [ ! -e "$ETC_CONF" ]; then
    current="$(readlink "$ETC_CONF" || true)"
    if [ -n "$current" ] && [ "$current" != "$STATE/etc/slurm.conf" ] && [ -e "$current" ] \
        && [ -s "$(dirname "$(dirname "$current")")/run/slurmctld.pid" ] \
        && kill -0 "$(cat "$(dirname "$(dirname "$current")")/run/slurmctld.pid")" 2>/dev/null; then
        die "$ETC_CONF points to another running test cluster ($current); stop it first"
    fi
    ln -sfn "$STATE/etc/slurm.conf" "$ETC_CONF"
else
    die "$ETC_CONF exists and is not a symlink from this harness: this machine has its own SLURM; not touching it"
fi

cat > "$STATE/env.sh" <<EOF
# Source this to use the test cluster: . $STATE/env.sh
export SLURM_CONF=$STATE/etc/slurm.conf
export PATH="\$PATH:/usr/sbin:/sbin"
EOF
export SLURM_CONF="$STATE/etc/slurm.conf"

# ---- 3. daemons ---------------------------------------------------------------------------------
alive() {  # alive PIDFILE: the pid file names a live process
    [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local seconds=$1 what=$2; shift 2
    local end=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $end ] || die "timed out after ${seconds}s waiting for $what (logs in $STATE/log)"
        sleep 0.2
    done
}

# munge
if alive "$STATE/run/munged.pid"; then
    log "munged already running (pid $(cat "$STATE/run/munged.pid"))"
elif [ -S "$MUNGE_SOCKET" ] && munge -n >/dev/null 2>&1; then
    die "another munged already answers on $MUNGE_SOCKET (not started from $STATE); stop it first"
else
    runuser -u munge -- munged --key-file="$STATE/etc/munge.key" --socket="$MUNGE_SOCKET" \
        --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
        --seed-file="$STATE/munge/munged.seed" \
        || die "munged did not start: $(tail -5 "$STATE/munge/munged.log" 2>/dev/null)"
    wait_for 10 munged test -s "$STATE/munge/munged.pid"
    cp "$STATE/munge/munged.pid" "$STATE/run/munged.pid"
    log "munged started (pid $(cat "$STATE/run/munged.pid"))"
fi
wait_for 10 "munge credentials" sh -c "munge -n --socket='$MUNGE_SOCKET' | unmunge --socket='$MUNGE_SOCKET'"

# mariadb (accounting database; sacct answers only with slurmdbd, see local-slurm.md)
# mariadbd runs as mysql: its pid file and log live in STATE_DIR/mysql (owned by mysql).
if alive "$STATE/mysql/mariadbd.pid"; then
    log "mariadbd already running (pid $(cat "$STATE/mysql/mariadbd.pid"))"
else
    if [ ! -d "$STATE/mysql/data/mysql" ]; then
        mkdir -p "$STATE/mysql/data" && chown mysql:mysql "$STATE/mysql/data"
        mariadb-install-db --no-defaults --user=mysql --datadir="$STATE/mysql/data" \
            --auth-root-authentication-method=socket --skip-test-db > "$STATE/log/mariadb-install.log" 2>&1 \
            || die "mariadb-install-db failed: $(tail -5 "$STATE/log/mariadb-install.log")"
    fi
    # mariadbd stays in the foreground: run it detached; it writes its own pid file.
    setsid mariadbd --no-defaults --user=mysql --datadir="$STATE/mysql/data" \
        --socket="$STATE/mysql/mysqld.sock" --pid-file="$STATE/mysql/mariadbd.pid" \
        --bind-address=127.0.0.1 --port="$DB_PORT" --skip-name-resolve \
        --log-error="$STATE/mysql/mariadbd.log" --innodb-buffer-pool-size=128M --innodb-lock-wait-timeout=900 \
        < /dev/null > /dev/null 2>&1 &
    wait_for 60 "mariadbd (log: $STATE/mysql/mariadbd.log)" mariadb --no-defaults --socket="$STATE/mysql/mysqld.sock" -u root -e "select 1"
    log "mariadbd started (pid $(cat "$STATE/mysql/mariadbd.pid"))"
fi
mariadb --no-defaults --socket="$STATE/mysql/mysqld.sock" -u root <<EOF
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
FLUSH PRIVILEGES;
EOF

# slurmdbd (daemonizes, runs as SlurmUser, writes PidFile); it has no -f: it reads slurmdbd.conf
# from the directory of SLURM_CONF.
if alive "$STATE/run/slurmdbd.pid"; then
    log "slurmdbd already running (pid $(cat "$STATE/run/slurmdbd.pid"))"
else
    slurmdbd 2>>"$STATE/log/slurmdbd.stderr" \
        || die "slurmdbd did not start: $(tail -5 "$STATE/log/slurmdbd.log" 2>/dev/null)"
    wait_for 30 slurmdbd sacctmgr -n list cluster
    log "slurmdbd started (pid $(cat "$STATE/run/slurmdbd.pid"))"
fi
if ! sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER"; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
fi

# slurmctld (daemonizes, runs as SlurmUser)
if alive "$STATE/run/slurmctld.pid"; then
    log "slurmctld already running (pid $(cat "$STATE/run/slurmctld.pid")); reconfiguring"
    scontrol reconfigure || true
else
    slurmctld -f "$STATE/etc/slurm.conf" 2>>"$STATE/log/slurmctld.stderr" \
        || die "slurmctld did not start: $(tail -5 "$STATE/log/slurmctld.log" 2>/dev/null)"
    wait_for 30 slurmctld scontrol ping
    log "slurmctld started (pid $(cat "$STATE/run/slurmctld.pid"))"
fi

# slurmd (daemonizes, runs as root: it starts the jobs)
if alive "$STATE/run/slurmd.pid"; then
    log "slurmd already running (pid $(cat "$STATE/run/slurmd.pid"))"
else
    slurmd -f "$STATE/etc/slurm.conf" -N "$NODE" 2>>"$STATE/log/slurmd.stderr" \
        || die "slurmd did not start: $(tail -5 "$STATE/log/slurmd.log" 2>/dev/null)"
    wait_for 10 slurmd test -s "$STATE/run/slurmd.pid"
    log "slurmd started (pid $(cat "$STATE/run/slurmd.pid"))"
fi

# ---- 4. wait until the node is idle ----------------------------------------------------------
node_idle() { sinfo -h -N -n "$NODE" -o %t | grep -Eq '^(idle|mix|alloc)'; }
end=$((SECONDS + WAIT_S))
until node_idle; do
    state=$(sinfo -h -N -n "$NODE" -o %t 2>/dev/null || true)
    case "$state" in
        down*|drain*|fail*) scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true ;;
    esac
    [ $SECONDS -lt $end ] || die "node $NODE not idle after ${WAIT_S}s (state: ${state:-none}); see $STATE/log/slurmd.log"
    sleep 0.5
done
log "cluster $CLUSTER up: $(sinfo -h -o '%P %a %D %t %c cpus %m MB')"
log "use it with: . $STATE/env.sh"
