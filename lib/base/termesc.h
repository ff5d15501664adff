/*
 * termesc: which bytes of a text a terminal must not get, and what is
 * written in their place.  An ESC or BEL in a name that came from an
 * artifact would be a command to the terminal that shows it, so C0
 * controls, DEL and the C1 controls (U+0080 to U+009F, two bytes in
 * UTF-8) are written visibly, as \x1b or \u009b; every other byte goes
 * as it is.  Tab and newline go as they are where the text may hold
 * lines (a report); a message is one line, and a newline in it would let
 * the input forge another.
 *
 * The one rule for every destination that is a person's terminal: the
 * messages of lib/base/err and the text of lib/io/textout.  Nothing is
 * kept; the text is borrowed for the call.
 */
#ifndef TERMESC_H
#define TERMESC_H

#include <stddef.h>

#define TERMESC_LINES	1	/* tab and newline go as they are */
#define TERMESC_MAX	8	/* an escape's bytes, its NUL included */

/*
 * The bytes at s (n of them, n > 0) that start with a control: how many
 * the control takes (1, or 2 for a C1 control), with its visible form in
 * esc as a string; 0 when s[0] may go as it is.  flags: TERMESC_LINES
 * or 0.
 */
size_t termesc(const char *s, size_t n, int flags, char esc[TERMESC_MAX]);

#endif
