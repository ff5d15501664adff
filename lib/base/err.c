#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/termesc.h"

static const char *progname = "mrp";

static void	vreport(const char *, va_list)
		    __attribute__((format(printf, 1, 0)));

void
setprogname(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	slash = strrchr(argv0, '/');
	progname = slash != NULL ? slash + 1 : argv0;
}

const char *
getprogname(void)
{
	return progname;
}

/*
 * errno is saved first: stdio calls below may change it.  The line is
 * written at once: the stages of a pipeline share a stderr, and an
 * unbuffered stderr would interleave their pieces.  A message quotes
 * input (file names, names from traces and exports, SQLite's and jq's
 * words on them): its controls are written visibly, newlines too, so that
 * no input can command the terminal or forge a line of its own.
 */
static void
vreport(const char *fmt, va_list ap)
{
	char line[4096], out[4096], esc[TERMESC_MAX];
	int saved = errno, len;
	size_t n = strlen(fmt), used, i, k, o = 0, elen;
	const char *e;

	fflush(stdout);
	len = snprintf(line, sizeof(line), "%s: ", progname);
	used = len < 0 ? 0 : (size_t)len;
	if (used < sizeof(line)) {
		len = vsnprintf(line + used, sizeof(line) - used, fmt, ap);
		used += len < 0 ? 0 : (size_t)len;
	}
	if (n > 0 && fmt[n - 1] == ':' && used < sizeof(line)) {
		len = snprintf(line + used, sizeof(line) - used, " %s",
		    strerror(saved));
		used += len < 0 ? 0 : (size_t)len;
	}
	if (used > sizeof(line) - 1)
		used = sizeof(line) - 1;
	/* A longer message is cut, but still ends its line. */
	for (i = 0; i < used; i += k) {
		if ((k = termesc(line + i, used - i, 0, esc)) == 0) {
			k = 1;
			e = line + i;
			elen = 1;
		} else {
			e = esc;
			elen = strlen(esc);
		}
		if (o + elen > sizeof(out) - 1)
			break;
		memcpy(out + o, e, elen);
		o += elen;
	}
	out[o++] = '\n';
	fwrite(out, 1, o, stderr);
	fflush(stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(1);
}

void
die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(2);
}

void
warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

int
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	return -1;
}

int
close_out(FILE *fp, const char *name)
{
	int failed;

	failed = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0)
		failed = 1;
	if (failed)
		return error("%s: write failed:", name);
	return 0;
}

int
finish(int status)
{
	if (close_out(stdout, "<stdout>") != 0)
		return 1;
	return status;
}

long long
parse_num(const char *s, long long min, long long max, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0')
		die_usage("%s is invalid: %s", what, s);
	if ((errno == ERANGE && v == LLONG_MAX) || v > max)
		die_usage("%s is too large: %s", what, s);
	if ((errno == ERANGE && v == LLONG_MIN) || v < min)
		die_usage("%s is too small: %s", what, s);
	return v;
}
