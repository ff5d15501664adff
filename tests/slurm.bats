bats_require_minimum_version 1.5.0
# setup_file cannot skip under bats 1.8: it leaves the reason here.
setup() {
	load test_helper
	[ -z "$SLURM_SKIP" ] || skip "$SLURM_SKIP"
}

# report.mk's stages through srun on a real single-node Slurm cluster,
# started here in a temporary folder (see ../shared/contracts/slurm.md):
# munged, slurmctld and slurmd as root, every file of theirs in that
# folder, nothing in /etc changed.  make check-slurm runs this file (it
# sets MRP_SLURM_TEST); make check lists it as skipped.  Missing Slurm
# packages are installed with apt-get when root; otherwise it skips.

SLURM_PACKAGES='slurmctld slurmd slurm-client munge'

# slurm_missing: true when a command of the packages is missing.
slurm_missing() {
	local c
	for c in munged slurmctld slurmd srun sinfo; do
		PATH=$PATH:/usr/sbin command -v "$c" >/dev/null || return 0
	done
	return 1
}

# start DAEMON PIDFILE ARGS...: starts DAEMON (it forks), waits for its pid
# file and appends "pid path" to started, path being where its
# /proc/PID/exe must lead.
start() {
	local exe pid n
	exe=$(readlink -f "$(PATH=$PATH:/usr/sbin command -v "$1")")
	"$1" "${@:3}" 2>>"$D/log/start.log" || return 1
	for n in $(seq 100); do
		pid=$(cat "$2" 2>/dev/null) && [ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { echo "slurm.bats: $1 wrote no $2" >&2; return 1; }
	printf '%s %s\n' "$pid" "$exe" >>"$D/started"
}

setup_file() {
	# One cluster for every test here: they take their turns on it.
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	export SLURM_SKIP=
	if [ "${MRP_SLURM_TEST:-}" != 1 ]; then
		SLURM_SKIP='run by make check-slurm'
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		SLURM_SKIP='the test cluster runs as root'
		return 0
	fi
	if slurm_missing; then
		if ! command -v apt-get >/dev/null; then
			SLURM_SKIP="needs $SLURM_PACKAGES, and there is no apt-get"
			return 0
		fi
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    --no-install-recommends $SLURM_PACKAGES >&2 ||
		    { apt-get update -qq >&2 &&
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    --no-install-recommends $SLURM_PACKAGES >&2; }
	fi
	# munged wants every folder above its socket searchable by all, and
	# its key in a folder of its own.
	D=$(mktemp -d /tmp/mrp-slurm.XXXXXX)
	export D
	chmod 0711 "$D"
	mkdir -m 0711 "$D/munge"
	mkdir -m 0700 "$D/key" "$D/ctld" "$D/spool" "$D/log"
	dd if=/dev/urandom of="$D/key/munge.key" bs=1024 count=1 2>/dev/null
	chmod 0400 "$D/key/munge.key"
	host=$(hostname -s)
	export SLURM_CONF=$D/slurm.conf
	cat >"$SLURM_CONF" <<EOF
ClusterName=mrptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${MRP_SLURMCTLD_PORT:-6817}
SlurmdPort=${MRP_SLURMD_PORT:-6818}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.socket
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,bf_interval=1
ReturnToService=2
MailProg=/bin/true
MinJobAge=10
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=8 RealMemory=20000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
	: >"$D/started"
	PATH=$PATH:/usr/sbin
	start munged "$D/munge/munged.pid" --key-file="$D/key/munge.key" \
	    --socket="$D/munge/munge.socket" --pid-file="$D/munge/munged.pid" \
	    --log-file="$D/log/munged.log" --seed-file="$D/munge/seed" &&
	start slurmctld "$D/slurmctld.pid" &&
	start slurmd "$D/slurmd.pid" || {
		cat "$D"/log/* >&2
		return 1
	}
	# Ready when a job runs.
	local n
	for n in $(seq 60); do
		timeout 10 srun -N1 -n1 --quiet true 2>/dev/null && return 0
		sleep 0.5
	done
	echo 'slurm.bats: the cluster ran no job in 30 s' >&2
	cat "$D"/log/* >&2
	return 1
}

# Stops exactly the daemons setup_file started, by the pids their pid files
# gave, each only while /proc/PID/exe is still that daemon; a stopped
# daemon may stay a zombie a while, which counts as gone.
teardown_file() {
	local pid exe n state
	if [ -z "${D:-}" ] || [ ! -d "$D" ]; then
		return 0
	fi
	if [ -f "$D/started" ]; then
		tac "$D/started" | while read -r pid exe; do
			[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] ||
			    continue
			kill "$pid"
			for n in $(seq 100); do
				state=$(awk '/^State:/ { print $2 }' \
				    "/proc/$pid/status" 2>/dev/null) || break
				[ -z "$state" ] || [ "$state" = Z ] && break
				sleep 0.1
			done
		done
	fi
	rm -rf "$D"
}

# mk RUN SUBMIT...: the report pipeline on the binaries under test, -j8.
mk() {
	make --no-print-directory -j8 -f "$TOP/pipelines/report.mk" \
	    BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric" "$@"
}

SRUN='srun -N1 -n1 --quiet --quit-on-interrupt'

# jobs: how many jobs slurmctld has allocated so far.
jobs() {
	grep -c 'sched: _slurm_rpc_allocate_resources JobId=' \
	    "$D/log/slurmctld.log" || true
}

# outputs RUN DEST: moves every file of RUN but the traces into DEST.
outputs() {
	local f
	for f in "$1"/*; do
		case $f in *.pt.trace.json|*.pt.trace.json.gz) ;; *) mv "$f" "$2" ;; esac
	done
}

@test "slurm: the 8-rank report through srun equals the local one byte for byte" {
	need_shared traces/param_dlrm_8rank
	# The same directory both times, as the reports name their inputs.
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r" "$BATS_TEST_TMPDIR/local"
	cp "$SHARED"/traces/param_dlrm_8rank/*.pt.trace.json "$r"
	chmod u+w "$r"/*
	gzip "$r"/worker[136]_*
	inputs=$(ls "$r")
	run -0 mk RUN="$r"
	refute_output --partial srun
	outputs "$r" "$BATS_TEST_TMPDIR/local"
	before=$(jobs)
	run -0 mk RUN="$r" SUBMIT="$SRUN"
	assert_output --partial "$SRUN bash -eu -o pipefail -c"
	# A stage writes its output itself, where it runs: a file, never
	# srun's relay of its standard output.
	assert_output --partial "\"\$t\" ${BUILD:-$TOP}/bin/op-rank --merge"
	# A job per stage: 8 traces, the merge (two jobs), findings, charts,
	# 2 reports, the page.
	[ $(( $(jobs) - before )) -ge 15 ]
	for f in "$BATS_TEST_TMPDIR"/local/*; do
		cmp "$f" "$r/${f##*/}"
	done
	# The run directory holds the same files, no stage file left.
	run -0 ls -A "$r"
	assert_output "$( (echo "$inputs"; ls "$BATS_TEST_TMPDIR/local") | sort)"
}

@test "slurm: a stage that fails through srun fails make, half-written nothing" {
	need_shared traces/param_dlrm_8rank
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$SHARED"/traces/param_dlrm_8rank/worker[01]_*.pt.trace.json "$r"
	chmod u+w "$r"/*
	t=$(ls "$r"/worker1_*)
	head -c 3000 "$SHARED/traces/param_dlrm_8rank/${t##*/}" >"$t"
	run -2 --separate-stderr mk RUN="$r" SUBMIT="$SRUN"
	# The tool's own message comes back, and srun's exit status.
	assert_stderr --partial 'tr-extract: '
	assert_stderr --partial 'Exited with exit code'
	# The other trace's stage finished, but a failed run leaves no stage
	# file behind: the traces alone.
	run -0 ls -A "$r"
	assert_output "$(cd "$r" && ls worker0_*; echo "${t##*/}")"
}

@test "slurm: report.sbatch makes the same report from one batch job" {
	need_shared traces/param_dlrm_8rank
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r" "$BATS_TEST_TMPDIR/local"
	cp "$SHARED"/traces/param_dlrm_8rank/worker[0-3]_*.pt.trace.json "$r"
	run -0 mk RUN="$r"
	outputs "$r" "$BATS_TEST_TMPDIR/local"
	MRP_REPORT_MK=$TOP/pipelines/report.mk run -0 sbatch --wait -N1 -n4 \
	    -o "$BATS_TEST_TMPDIR/job.out" "$TOP/pipelines/report.sbatch" \
	    "$r" BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric"
	run -0 cat "$BATS_TEST_TMPDIR/job.out"
	assert_output --partial 'srun -N1 -n1 --exact --quiet --quit-on-interrupt bash'
	for f in "$BATS_TEST_TMPDIR"/local/*; do
		cmp "$f" "$r/${f##*/}"
	done
}
