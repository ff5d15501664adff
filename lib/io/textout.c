#include <stdio.h>
#include <unistd.h>

#include "base/termesc.h"
#include "io/textout.h"

void
textout_write(FILE *fp, const char *s, size_t n)
{
	if (isatty(fileno(fp)))
		textout_escape(fp, s, n);
	else
		fwrite(s, 1, n, fp);
}

void
textout_escape(FILE *fp, const char *s, size_t n)
{
	const char *p = s, *end = s + n, *run = s;
	char esc[TERMESC_MAX];
	size_t k;

	while (p < end) {
		if ((k = termesc(p, (size_t)(end - p), TERMESC_LINES,
		    esc)) == 0) {
			p++;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), fp);
		fputs(esc, fp);
		p += k;
		run = p;
	}
	fwrite(run, 1, (size_t)(end - run), fp);
}
