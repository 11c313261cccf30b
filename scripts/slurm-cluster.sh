#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests/cluster.rs and for trying a sweep as a job
# array (docs/SWEEPS.md):
#   eval "$(scripts/slurm-cluster.sh start DIR)"   # prints `export SLURM_CONF=DIR/slurm.conf`
#   scripts/slurm-cluster.sh stop DIR
# `start` writes DIR/slurm.conf (this host as the one node, with all its CPUs; ports 16817-16818
# so a real cluster's daemons are left alone), starts munged if none runs, then slurmctld and
# slurmd, and waits until the node takes jobs. `stop` stops what `start` started. It needs the
# Debian packages slurm-wlm and munge, and root (slurmd starts jobs as their user); it runs
# itself with sudo where that is available.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    # -n: fail at once, not wait for a password nobody will type.
    exec sudo -n -E "$0" "$@"
  fi
  echo "$0: slurmd needs root, and sudo is not here" >&2
  exit 2
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

case "$cmd" in
start)
  for tool in slurmctld slurmd munged sinfo; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$0: $tool is missing (apt-get install slurm-wlm munge)" >&2; exit 2; }
  done
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  if ! pgrep -x munged >/dev/null 2>&1; then
    # munged refuses to run as root; its key and socket belong to the munge user.
    [ -f /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || /usr/sbin/create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
    mkdir -p /run/munge && chown munge:munge /run/munge
    runuser -u munge -- munged
    echo started > "$dir/munge/started-here"
  fi
  host="$(hostname -s)"
  cat > "$dir/slurm.conf" <<EOF
ClusterName=gpusim-test
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF"
  slurmd -f "$SLURM_CONF"
  for _ in $(seq 1 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
      echo "export SLURM_CONF=$SLURM_CONF"
      exit 0
    fi
    sleep 1
  done
  echo "$0: the node did not come up in 60 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
  exit 1
  ;;
stop)
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  if [ -f "$dir/munge/started-here" ]; then
    pkill -x munged 2>/dev/null || true
    rm -f "$dir/munge/started-here"
  fi
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
