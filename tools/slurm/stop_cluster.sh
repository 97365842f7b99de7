#!/usr/bin/env bash
# Stop the single-node SLURM cluster started by tools/slurm/start_cluster.sh STATE_DIR.
#
#   bash tools/slurm/stop_cluster.sh STATE_DIR [--purge]
#
# Stops slurmd, slurmctld, slurmdbd, mariadbd and munged, in that order, each by the pid in its
# pid file under STATE_DIR (never by process name), waiting for each to exit (SIGKILL after 20 s).
# Idempotent: a missing pid file or a dead pid is skipped. Removes the /etc/slurm/slurm.conf
# symlink if it points into STATE_DIR. --purge then deletes STATE_DIR.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 STATE_DIR [--purge]" >&2; exit 2; }
STATE="$(realpath -m "$1")"
PURGE="${2:-}"
log() { echo "stop_cluster: $*" >&2; }

stop_pidfile() {  # stop_pidfile NAME PIDFILE
    local name=$1 file=$2 pid
    if [ ! -s "$file" ]; then log "$name: no pid file ($file)"; return 0; fi
    pid="$(tr -dc 0-9 < "$file")"
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
        log "$name: not running (stale pid file)"; rm -f "$file"; return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || { log "$name stopped (pid $pid)"; rm -f "$file"; return 0; }
        sleep 0.2
    done
    log "$name (pid $pid) still running after 20 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$file"
}

stop_pidfile slurmd "$STATE/run/slurmd.pid"
stop_pidfile slurmctld "$STATE/run/slurmctld.pid"
stop_pidfile slurmdbd "$STATE/run/slurmdbd.pid"
stop_pidfile mariadbd "$STATE/mysql/mariadbd.pid"
stop_pidfile munged "$STATE/run/munged.pid"
# munged removes its own pid file on exit; the copy in run/ is ours.
rm -f "$STATE/munge/munged.pid"

# The symlink start_cluster.sh made, if it is still ours.
if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$STATE/etc/slurm.conf" ]; then
    rm -f /etc/slurm/slurm.conf
    log "removed the symlink /etc/slurm/slurm.conf"
fi

if [ "$PURGE" = "--purge" ]; then
    case "$STATE" in
        /|/var|/var/tmp|/tmp|/srv|/root|/home) log "refusing to purge $STATE" ; exit 1 ;;
    esac
    [ -f "$STATE/etc/slurm.conf" ] || { log "refusing to purge $STATE: no etc/slurm.conf, not a state dir"; exit 1; }
    rm -rf "$STATE"
    log "removed $STATE"
fi
