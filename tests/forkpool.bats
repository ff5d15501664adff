bats_require_minimum_version 1.5.0
setup() { load test_helper; cd "$BATS_TEST_TMPDIR"; }

# lib/base/forkpool: rubric-apply -o and report-md -o make their outputs in
# forked workers, one a CPU (MRP_CPUS stands for them), and take them back
# in order.  Whatever the count, a batch must say and write what it does
# in one process: each item's messages before it, the items in order, the
# same status, and the same end when an item dies or a take ends the
# batch.  testbin/forkpool-check runs such a batch.

pool() { "${BUILD:-$TOP}/testbin/forkpool-check" "$@"; }

# same ARGS...: the batch's stdout, stderr and status with MRP_CPUS=1 into
# one.*, then the same with 2, 3 and 8 CPUs compared with them.
same() {
	local st=0 n
	MRP_CPUS=1 pool "$@" >one.out 2>one.err || st=$?
	echo "$st" >one.status
	for n in 2 3 8; do
		st=0
		MRP_CPUS=$n pool "$@" >n.out 2>n.err || st=$?
		cmp one.out n.out || fail "stdout differs with $n CPUs"
		cmp one.err n.err || fail "stderr differs with $n CPUs"
		[ "$st" = "$(cat one.status)" ] ||
		    fail "status $st with $n CPUs, $(cat one.status) with one"
	done
}

@test "forkpool: items and their messages in order, the same on one CPU and on several" {
	same 20
	[ "$(cat one.status)" = 0 ]
	run -0 cat one.out
	assert_line --index 0 '0 0 0'
	assert_line --index 7 '7 1 69811'
	assert_line --index 20 'done 0'
	run -0 cat one.err
	assert_line --index 0 'forkpool-check: making 1'
	assert_line --index 9 'forkpool-check: making 19'
	[ "${#lines[@]}" = 10 ]
}

@test "forkpool: no item, and fewer items than CPUs" {
	same 0
	assert_equal "$(cat one.out)" 'done 0'
	same 2
	assert_equal "$(cat one.out)" $'0 0 0\n1 1 9973\ndone 0'
}

@test "forkpool: an item that dies ends the batch there, with its status and messages" {
	same -d 9 20
	[ "$(cat one.status)" = 1 ]
	run -0 cat one.out
	assert_line --index 8 '8 2 79784'
	[ "${#lines[@]}" = 9 ]
	run -0 cat one.err
	assert_line --index 3 'forkpool-check: making 7'
	assert_line --index 4 'forkpool-check: making 9'
	assert_line --index 5 'forkpool-check: item 9 dies'
	[ "${#lines[@]}" = 6 ]
}

@test "forkpool: a take that ends the batch takes no later item" {
	same -s 5 20
	[ "$(cat one.status)" = 0 ]
	run -0 cat one.out
	assert_line --index 5 '5 2 49865'
	assert_line --index 6 'done -1'
	[ "${#lines[@]}" = 7 ]
}
