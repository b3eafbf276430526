# A single-node Slurm cluster for the tests, sourced by slurm_cases.sh: a munge key and munged,
# slurmctld and slurmd, all with their files under one temporary folder, on ports of their own.
#   slurm_start DIR   start everything (returns 77 with a message when this host cannot);
#                     TEST_SLURM_PLUGIN_DIR names Slurm's plugins where they are not where it
#                     was built to find them (a Slurm unpacked under another prefix);
#                     TEST_SLURM_GPUS=N gives the node N GPUs as a generic resource (GresTypes=gpu,
#                     a gres.conf naming /dev/nvidia0 ... N-1), so jobs can ask for --gres gpu:1
#   slurm_stop        stop every daemon slurm_start started (call it from a trap)
# After slurm_start, SLURM_CONF is exported, so sbatch, squeue, sinfo and sacct find the cluster.

SLURM_READY_S=60      # how long the node may take to become idle
SLURM_PIDS=()
SLURM_MADE_SLICE=0    # 1 when slurm_start made /sys/fs/cgroup/system.slice (slurm_stop removes it)

slurm_skip() { echo "SKIP: $*" >&2; return 77; }

# A TCP port nothing listens on, for slurmctld and slurmd (another cluster may hold the defaults).
slurm_free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

slurm_start() {
  local dir="$1" host cpus mem_kb mem_mb ctld_port d_port gpus="${TEST_SLURM_GPUS:-0}" gres_types="" node_gres="" i
  for prog in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
    command -v "$prog" >/dev/null || { slurm_skip "$prog is not installed (Debian: slurm-wlm, munge)"; return 77; }
  done
  [ "$(id -u)" -eq 0 ] || { slurm_skip "slurmd must run as root to start jobs as their user"; return 77; }
  host="$(hostname)"
  cpus="$(nproc)"
  mem_kb="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  mem_mb=$((mem_kb / 1024 / 2))
  ctld_port="$(slurm_free_port)" && d_port="$(slurm_free_port)" || { slurm_skip "no free TCP port"; return 77; }
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
  if [ "$gpus" -gt 0 ]; then
    # slurmd reads gres.conf from slurm.conf's folder; each GPU is its device file.
    [ -e "/dev/nvidia$((gpus - 1))" ] || { slurm_skip "TEST_SLURM_GPUS=$gpus but /dev/nvidia$((gpus - 1)) does not exist"; return 77; }
    : >"$dir/gres.conf"
    for ((i = 0; i < gpus; i++)); do echo "Name=gpu File=/dev/nvidia$i" >>"$dir/gres.conf"; done
    gres_types="GresTypes=gpu"
    node_gres="Gres=gpu:$gpus"
  fi
  chmod 0700 "$dir/munge"
  rm -f "$dir/munge/munge.key"
  mungekey -c -k "$dir/munge/munge.key" >/dev/null 2>&1 || { slurm_skip "mungekey cannot create a key"; return 77; }
  munged -f --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" >/dev/null 2>&1 \
    || { cat "$dir/log/munged.log" >&2 2>/dev/null; slurm_skip "munged does not start here"; return 77; }
  SLURM_PIDS+=("$(cat "$dir/munge/munged.pid")")
  cat >"$dir/slurm.conf" <<CONF
ClusterName=tilelab-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
${TEST_SLURM_PLUGIN_DIR:+PluginDir=$TEST_SLURM_PLUGIN_DIR}
$gres_types
NodeName=$host CPUs=$cpus RealMemory=$mem_mb $node_gres State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  # Jobs are not confined (proctrack/linuxproc, task/none), but slurmd 22.05 still sets up its
  # cgroup plugin; without systemd (containers, gVisor) it must make its cgroup folders itself.
  # slurmd puts its steps under system.slice, which only systemd would have made.
  printf 'IgnoreSystemd=yes\n' >"$dir/cgroup.conf"
  if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && [ ! -d /sys/fs/cgroup/system.slice ]; then
    mkdir /sys/fs/cgroup/system.slice 2>/dev/null && SLURM_MADE_SLICE=1
  fi
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
  SLURM_PIDS+=("$!")
  slurmd -D -f "$SLURM_CONF" >"$dir/log/slurmd.out" 2>&1 &
  SLURM_PIDS+=("$!")
  local waited=0
  until sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; do
    sleep 1
    waited=$((waited + 1))
    if [ "$waited" -ge "$SLURM_READY_S" ]; then
      tail -n 20 "$dir"/log/*.log "$dir"/log/*.out >&2 2>/dev/null
      slurm_skip "the node did not become idle in ${SLURM_READY_S} s (slurmd cannot run here)"
      return 77
    fi
  done
}

slurm_stop() {
  local pid i
  for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    pid="${SLURM_PIDS[$i]}"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  SLURM_PIDS=()
  # What slurmd left in the slice goes with it (empty cgroups only; a busy one stays).
  if [ "$SLURM_MADE_SLICE" = 1 ]; then
    find /sys/fs/cgroup/system.slice -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
    rmdir /sys/fs/cgroup/system.slice 2>/dev/null
    SLURM_MADE_SLICE=0
  fi
}
