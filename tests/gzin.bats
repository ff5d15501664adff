bats_require_minimum_version 1.5.0
setup() { load test_helper; cd "$BATS_TEST_TMPDIR"; }

# lib/io/gzin with gzin_hash(): a thread reads the file ahead and hashes it
# (lib/io/readahead), and the reader takes the bytes from it.  What is read
# must be the file, or what gzip -dc gives of it, whatever the sizes of the
# reads; the digest must be the file's on disk, read to its end even when
# the reader stops early.  testbin/gzin-hash reads as analyze-profile's
# trace stage does.

hashcheck() { "${BUILD:-$TOP}/testbin/gzin-hash" "$@"; }

# want FILE: the line gzin-hash must end with: size and SHA-256 of FILE.
want() { echo "$(stat -c %s "$1") $(sha256sum <"$1" | cut -d' ' -f1)"; }

@test "gzin: a plain file read ahead is the same bytes, and its SHA-256" {
	# Many times the thread's four buffers of 64 KiB, not a multiple.
	f=$BATS_TEST_TMPDIR/big
	for i in 1 2 3; do
		gzip -dc "$TOP/fixtures/op-rank/cnn_sgd_s.json.gz"
	done >"$f"
	hashcheck "$f" >out 2>digest
	cmp out "$f"
	run -0 cat digest
	assert_output "$(want "$f")"
}

@test "gzin: gzip read ahead inflates the same, and hashes the file on disk" {
	f=$TOP/fixtures/op-rank/cnn_sgd_s.json.gz
	hashcheck "$f" >out 2>digest
	gzip -dc "$f" | cmp out -
	run -0 cat digest
	assert_output "$(want "$f")"
}

@test "gzin: a reader that stops early still gets the whole file's digest" {
	f=$TOP/fixtures/op-rank/cnn_sgd_s.json.gz
	hashcheck -n 100 "$f" >out 2>digest
	run -0 wc -c <out
	assert_output 100
	run -0 cat digest
	assert_output "$(want "$f")"
	: >empty
	hashcheck empty >out 2>digest
	[ ! -s out ]
	run -0 cat digest
	assert_output "0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}

@test "gzin: a pipe is not read ahead" {
	run -1 --separate-stderr hashcheck - </dev/null
	assert_stderr "gzin-hash: -: gzin_hash: Invalid argument"
	run -1 --separate-stderr bats_pipe echo x \| hashcheck -
	assert_stderr "gzin-hash: -: gzin_hash: Invalid argument"
}
