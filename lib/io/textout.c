#include <stdio.h>
#include <unistd.h>

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
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *run = p;

	for (; p < end; p++) {
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
			fwrite(run, 1, (size_t)(p - run), fp);
			fprintf(fp, "\\x%02x", *p);
			run = p + 1;
		} else if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 &&
		    p[1] <= 0x9f) {
			fwrite(run, 1, (size_t)(p - run), fp);
			fprintf(fp, "\\u%04x", p[1]);
			run = ++p + 1;
		}
	}
	fwrite(run, 1, (size_t)(end - run), fp);
}
