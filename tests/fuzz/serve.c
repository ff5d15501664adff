/*
 * serve: the step labels of serving engines (lib/trace/servelabel), each
 * input one label read against rubric/serve-steps.tsv.  A label read as a
 * step must be exactly the label its fields write back by its pattern
 * (nothing skipped, nothing guessed), and its counts must add up: its
 * requests at least one, the prefill and decode requests and tokens the
 * whole's where all are known, a token for each request.  Anything else
 * is no step, and nothing reads outside the label.  The table comes from
 * RUBRIC_DIR, set by the Makefile; tests/bin/serve-check runs the same
 * check on named files.
 */
#include "fuzz.h"

#include "base/strbuf.h"
#include "trace/servelabel.h"

/* The check of one label s of n bytes: 0, or -1 after saying why. */
static int
serve_check(const struct servetab *t, const char *s, size_t n)
{
	struct servestep st;
	struct strbuf sb = { NULL, 0, 0 };
	char *copy;
	int rc, bad = 0;

	/* The label alone in its allocation: ASan sees a read past it. */
	copy = malloc(n > 0 ? n : 1);
	if (copy == NULL)
		abort();
	memcpy(copy, s, n);
	rc = servelabel_parse(t, copy, n, &st);
	if (rc != SL_STEP) {
		free(copy);
		return rc == SL_OTHER || rc == SL_NONE || rc == SL_BAD ? 0 :
		    -1;
	}
	servelabel_render(t, &st, &sb);
	if (sb.len != n || (n > 0 && memcmp(sb.s, copy, n) != 0)) {
		fprintf(stderr, "serve: read as a step, written back as"
		    " \"%s\"\n", sb.s != NULL ? sb.s : "");
		bad = 1;
	}
	if (st.phase < 0 || st.phase >= NSPHASE || st.requests < 1)
		bad = 1;
	if (st.phase != SP_CAPTURE && (
	    (st.prefill_requests >= 0 && st.decode_requests >= 0 &&
	    st.prefill_requests + st.decode_requests != st.requests) ||
	    (st.tokens >= 0 && st.prefill_tokens >= 0 &&
	    st.decode_tokens >= 0 &&
	    st.tokens != st.prefill_tokens + st.decode_tokens) ||
	    (st.prefill_requests > 0 && st.prefill_tokens >= 0 &&
	    st.prefill_tokens < st.prefill_requests) ||
	    (st.decode_requests > 0 && st.decode_tokens >= 0 &&
	    st.decode_tokens < st.decode_requests) ||
	    (st.phase == SP_PREFILL && st.decode_requests > 0) ||
	    (st.phase == SP_DECODE && st.prefill_requests > 0) ||
	    (st.phase == SP_MIXED && (st.prefill_requests == 0 ||
	    st.decode_requests == 0))))
		bad = 1;
	if (bad)
		fprintf(stderr, "serve: a %s step of %lld requests (%lld"
		    " prefill, %lld decode), %lld tokens (%lld, %lld)\n",
		    st.phase >= 0 && st.phase < NSPHASE ?
		    serve_phasename[st.phase] : "?", (long long)st.requests,
		    (long long)st.prefill_requests,
		    (long long)st.decode_requests, (long long)st.tokens,
		    (long long)st.prefill_tokens, (long long)st.decode_tokens);
	sb_free(&sb);
	free(copy);
	return bad ? -1 : 0;
}

#ifndef SERVE_CHECK_MAIN
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct servetab *t;

	fuzz_init("serve");
	if (t == NULL)
		t = servetab_load(RUBRIC_DIR "/serve-steps.tsv");
	if (serve_check(t, (const char *)data, size) < 0)
		abort();
	return 0;
}
#endif
