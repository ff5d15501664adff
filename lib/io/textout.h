/*
 * textout: text for a person's terminal.  A report's names come from
 * artifacts; on a terminal, an ESC or BEL among them would be a command to
 * it, so C0 controls other than tab and newline, DEL and the C1 controls
 * (U+0080 to U+009F) are written visibly, as \x1b or \u009b, by
 * lib/base/termesc's rule.  Anything that is not a terminal gets the
 * bytes as they are.
 *
 * Nothing is kept; the text is borrowed for the call.
 */
#ifndef TEXTOUT_H
#define TEXTOUT_H

#include <stddef.h>
#include <stdio.h>

/* Writes n bytes of s to fp, escaped when fp is a terminal. */
void textout_write(FILE *fp, const char *s, size_t n);

/* Writes n bytes of s to fp, escaped as for a terminal. */
void textout_escape(FILE *fp, const char *s, size_t n);

#endif
