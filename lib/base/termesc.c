#include <stdio.h>

#include "base/termesc.h"

size_t
termesc(const char *s, size_t n, int flags, char esc[TERMESC_MAX])
{
	const unsigned char *p = (const unsigned char *)s;

	if ((*p < 0x20 || *p == 0x7f) && !((flags & TERMESC_LINES) &&
	    (*p == '\t' || *p == '\n'))) {
		snprintf(esc, TERMESC_MAX, "\\x%02x", *p);
		return 1;
	}
	if (*p == 0xc2 && n > 1 && p[1] >= 0x80 && p[1] <= 0x9f) {
		snprintf(esc, TERMESC_MAX, "\\u%04x", p[1]);
		return 2;
	}
	return 0;
}
