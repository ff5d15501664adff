#include <stddef.h>

#include "base/strbuf.h"
#include "io/xmltext.h"

void
xml_text(struct strbuf *b, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, i, head, tail;

	for (; *p != '\0'; p++)
		chars += (*p & 0xc0) != 0x80;
	head = chars > max ? (max - 1) / 3 : chars;
	tail = chars > max ? chars - (max - 1 - head) : chars;
	for (p = (const unsigned char *)s, i = 0; *p != '\0'; p++) {
		if ((*p & 0xc0) != 0x80 && i++ == head && head < tail)
			sb_puts(b, "\xe2\x80\xa6");
		if (i > head && i <= tail)
			continue;
		if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe ||
		    p[2] == 0xbf)) {
			sb_puts(b, "\xef\xbf\xbd");
			p += 2;
			continue;
		}
		/* A name's U+0000 (C0 80, see json.h), not to look like a space. */
		if (p[0] == 0xc0 && p[1] == 0x80) {
			sb_puts(b, "\xef\xbf\xbd");
			p++;
			continue;
		}
		switch (*p) {
		case '&':
			sb_puts(b, "&amp;");
			break;
		case '<':
			sb_puts(b, "&lt;");
			break;
		case '>':
			sb_puts(b, "&gt;");
			break;
		case '"':
			sb_puts(b, "&quot;");
			break;
		case '\'':
			sb_puts(b, "&apos;");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sb_put(b, " ", 1);
			else
				sb_put(b, (const char *)p, 1);
		}
	}
}
