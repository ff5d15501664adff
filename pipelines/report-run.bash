# pipelines/report-run.bash: report.mk's run under a lock on each run
# directory, its outputs published as a set.  report.mk runs it as
#
#	bash report-run.bash MAKE REPORT.MK N DIR... NAME... -- GOAL...
#
# with the N run directories (and the baseline's, whose report a run may
# make) and the names of the outputs a run publishes.  It takes each
# directory with flock(2), without waiting: a second report.mk on one of
# them stops at once and names it, instead of removing the first one's
# files as .DELETE_ON_ERROR and the shared temporary names would.  Then it
# keeps each published output as a hard link (.NAME.prev), runs make on
# the goals under the locks, and when make fails or is interrupted puts
# the kept outputs back, removes those published where there were none,
# and removes the traces' stage files and lists: a run directory holds
# one whole set, the old one or the new.  A run directory whose goals make
# finds up to date after a failure elsewhere keeps its new set.  Under -n,
# -q or -t, make runs alone: nothing is written.  The second make reads
# the settings from MAKEFLAGS, and MRP_REPORT_LOCKED=1 makes report.mk
# its rules.
set -u

me=report.mk make=$1 mk=$2 n=$3
shift 3
dirs=("${@:1:n}")
shift "$n"
published=()
while [ "$1" != -- ]; do
	published+=("$1")
	shift
done
shift
inner=("$make" -f "$mk" MRP_REPORT_LOCKED=1)

# MAKEFLAGS starts with the one-letter options, when there are any.
case ${MAKEFLAGS%% *} in
-*|*=*) ;;
*[nqt]*) exec "${inner[@]}" "$@" ;;
esac

# A run directory that is not there is the second make's to name.
for d in "${dirs[@]}"; do
	[ -d "$d" ] || continue
	exec {fd}<"$d" || exit 1
	if ! flock -n "$fd"; then
		printf '%s: %s: another report.mk run holds it; %s\n' "$me" \
		    "$d" "run again once it has ended" >&2
		exit 1
	fi
done

for d in "${dirs[@]}"; do
	[ -d "$d" ] || continue
	for f in "${published[@]}"; do
		rm -f "$d/.$f.prev"
		if [ -e "$d/$f" ] && ! ln -f "$d/$f" "$d/.$f.prev"; then
			exit 1
		fi
	done
done

# settle STATUS: each run directory's set, the new one or the old.
settle() {
	local d f
	for d in "${dirs[@]}"; do
		if [ ! -d "$d" ]; then
			continue
		elif [ "$1" = 0 ] ||
		    "${inner[@]}" -q RUNS="$d" >/dev/null 2>&1; then
			for f in "${published[@]}"; do
				rm -f "$d/.$f.prev"
			done
			continue
		fi
		for f in "${published[@]}"; do
			if [ "$d/.$f.prev" -ef "$d/$f" ]; then
				rm -f "$d/.$f.prev"
			elif [ -e "$d/.$f.prev" ]; then
				mv -f "$d/.$f.prev" "$d/$f"
			else
				rm -f "$d/$f"
			fi
		done
		find "$d" -maxdepth 1 -type f \( -name '.*.ops.ndjson' -o \
		    -name '.*.mem.ndjson' -o -name '.*.crit.ndjson' -o \
		    -name '.ops.ndjson.list' -o \
		    -name '.trace-memory.ndjson.list' -o \
		    -name '.critical.ndjson.list' -o \
		    -name '.report.md.list' -o -name '.report.json.list' -o \
		    -name '.findings.ndjson.plan' -o -name '.report.md.plan' -o \
		    -name '.report.json.plan' \) -delete
	done
}

trap 'trap - INT TERM HUP; settle 1; exit 130' INT TERM HUP
status=0
"${inner[@]}" "$@" || status=$?
trap - INT TERM HUP
settle "$status"
exit "$status"
