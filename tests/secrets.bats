#!/usr/bin/env bats
# Artifacts hold secrets: exports and traces carry the capturing job's
# environment.  No fixture may ship one, and no report copies a trace's
# top-level "metadata", where Kineto's callers put it.
bats_require_minimum_version 1.5.0

setup() { load test_helper; }

# What a credential looks like: Hugging Face, AWS, GitHub, Slack and
# OpenAI tokens, private keys, and NAME=value or "NAME": "value" for a
# name that says it is one.  NAME= with no value, as the environment
# blocks of a blanked nsys export hold them ("AUTH_TOKEN= XDG_DATA_DIRS=",
# "TOKEN=;NEXT="), is none.
CREDENTIAL='hf_[A-Za-z0-9]{30,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|xox[abpr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{32,}|-----BEGIN [A-Z ]*PRIVATE KEY-----|[A-Z_]*(TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)(=|"?: ?"?)[^";[:space:],}]{8,}'

# contents FILE: the file's bytes, inflated when it is gzip.
contents() {
	if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$1"
	else
		cat "$1"
	fi
}

@test "no fixture holds a credential-shaped value" {
	local f n=0 found=
	while IFS= read -r f; do
		n=$((n + 1))
		if contents "$TOP/$f" | grep -aqE "$CREDENTIAL"; then
			found="$found $f"
		fi
	done < <(cd "$TOP" && find fixtures -type f | LC_ALL=C sort)
	[ -z "$found" ] || fail "credential-shaped values in:$found"
	[ "$n" -gt 200 ]
}

@test "the pattern finds what it is for" {
	local s
	for s in '"HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz0123456789"' \
	    'AWS_SECRET_ACCESS_KEY=abcdefgh12345678' \
	    'ghp_abcdefghijklmnopqrstuvwxyz0123456789' \
	    '-----BEGIN OPENSSH PRIVATE KEY-----' \
	    'HOME=; AWS_SECRET_ACCESS_KEY=abcdefgh12345678;' \
	    'DB_PASSWORD: hunter2hunter2'; do
		grep -qE "$CREDENTIAL" <<<"$s" || fail "missed: $s"
	done
	! grep -qE "$CREDENTIAL" <<<'"name": "aten::addmm", "tokens_per_s": 1200'
	! grep -qE "$CREDENTIAL" <<<'GEMINI_CLI_IDE_AUTH_TOKEN= XDG_DATA_DIRS='
	! grep -qE "$CREDENTIAL" <<<'VSCODE_GIT_IPC_AUTH_TOKEN=;COREPACK_ENABLE_AUTO_PIN=;'
}

@test "no trace fixture keeps a top-level metadata member" {
	local f n=0
	while IFS= read -r f; do
		n=$((n + 1))
		! contents "$TOP/$f" | jq -r 'select(type == "object" and
		    has("traceEvents") and has("metadata")) | "kept"' \
		    2>/dev/null | grep -q kept || fail "$f keeps its metadata"
	done < <(cd "$TOP" && find fixtures -name '*.json' -o -name '*.json.gz' |
	    LC_ALL=C sort)
	[ "$n" -ge 40 ]
}

@test "no report copies a trace's metadata" {
	cd "$BATS_TEST_TMPDIR"
	gzip -dc "$TOP/fixtures/example/trace.json.gz" |
	    jq -c '.metadata = {system: {env: {HF_TOKEN: "hf_canarycanarycanarycanarycanary00",
	        CMDLINE: "python train.py --password=canary-password"}}}' >trace.json
	run -0 --separate-stderr analyze-profile --cpu-trace trace.json \
	    --json-out r.json --md-out r.md --html-out r.html
	run grep -l -e canary r.json r.md r.html
	assert_output ''
	# Nor does any stage's output: grep finds nothing, exit 1.
	run -1 bash -c 'tr-extract -a trace.json | grep canary'
	run -1 bash -c 'tr-extract trace.json | op-rank | grep canary'
}
