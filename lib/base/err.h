/*
 * err: the one place that reports errors and the program's name.
 *
 * setprogname() stores a pointer to argv[0]'s last component; it must stay
 * valid for the life of the process (argv does).  Every message goes to
 * stderr as "<prog>: <message>\n", one line whatever it quotes: its
 * control characters, newlines too, are written visibly (lib/base/termesc),
 * so a name from an artifact never reaches the terminal raw.  A format
 * that ends in ':' has ": strerror(errno)" appended, as with err(3).
 * Nothing here allocates.
 */
#ifndef ERR_H
#define ERR_H

#include <stdio.h>

/* Remembers argv[0] for messages; call first thing in main(). */
void setprogname(const char *argv0);

/* The stored program name; borrowed, never freed. */
const char *getprogname(void);

/* Prints the message and exits 1 (data, runtime or I/O error). */
__attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...);

/* Prints the message and exits 2 (usage error). */
__attribute__((noreturn, format(printf, 1, 2)))
void die_usage(const char *fmt, ...);

/* Prints the message and returns. */
__attribute__((format(printf, 1, 2)))
void warnmsg(const char *fmt, ...);

/* Prints the message and returns -1, so callers can "return error(...)". */
__attribute__((format(printf, 1, 2)))
int error(const char *fmt, ...);

/*
 * Flushes and closes fp; when a write failed, says so naming name and
 * returns -1.  Returns 0 otherwise.
 */
int close_out(FILE *fp, const char *name);

/*
 * Flushes and closes stdout and returns status, or 1 when the write failed,
 * after saying so.  Every tool returns finish(status) from main().
 */
int finish(int status);

/*
 * Parses a decimal integer in [min, max] like OpenBSD strtonum(3).  On error
 * it is a usage error naming the option: "tool: -n: count is too large: 9e9".
 */
long long parse_num(const char *s, long long min, long long max,
    const char *what);

#endif
