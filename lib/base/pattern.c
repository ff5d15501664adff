#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/pattern.h"
#include "base/xalloc.h"

void
pattern_init(struct pattern *p, const char *text)
{
	size_t i, n, start;

	memset(p, 0, sizeof(*p));
	p->text = xstrdup(text);
	if (strpbrk(text, "?[\\") != NULL)
		return;
	p->pieces = xstrdup(text);
	for (n = 1, i = 0; text[i] != '\0'; i++)
		n += text[i] == '*';
	p->at = xcalloc(n, sizeof(*p->at));
	p->len = xcalloc(n, sizeof(*p->len));
	for (start = 0, i = 0;; i++)
		if (text[i] == '*' || text[i] == '\0') {
			p->at[p->npiece] = start;
			p->len[p->npiece++] = i - start;
			if (text[i] == '\0')
				break;
			p->pieces[i] = '\0';
			start = i + 1;
		}
}

int
pattern_match(const struct pattern *p, const char *s, size_t slen)
{
	const char *at, *end, *hit;
	size_t first, last, k;

	if (p->npiece == 0)
		return fnmatch(p->text, s, 0) == 0;
	if (p->npiece == 1)
		return slen == p->len[0] && memcmp(s, p->pieces, slen) == 0;
	first = p->len[0];
	last = p->len[p->npiece - 1];
	if (slen < first + last || memcmp(s, p->pieces, first) != 0 ||
	    memcmp(s + slen - last, p->pieces + p->at[p->npiece - 1],
	    last) != 0)
		return 0;
	/*
	 * The pieces between, each leftmost, before the suffix: strstr(3)
	 * finds the leftmost in the rest, and none fits if that one does not.
	 */
	at = s + first;
	end = s + slen - last;
	for (k = 1; k + 1 < p->npiece; k++) {
		hit = strstr(at, p->pieces + p->at[k]);
		if (hit == NULL || hit > end ||
		    p->len[k] > (size_t)(end - hit))
			return 0;
		at = hit + p->len[k];
	}
	return 1;
}

void
pattern_free(struct pattern *p)
{
	free(p->text);
	free(p->pieces);
	free(p->at);
	free(p->len);
}
