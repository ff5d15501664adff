/*
 * tsv: the project's tab-separated tables (the rubric's .tsv files), a
 * line at a time: lines starting with '#' and blank ones (nothing but
 * spaces and tabs) are skipped, the line's end (\n or \r\n) is cut, and
 * the fields are split at tabs in place.  Each table's reader says what
 * its fields must be, naming the file and tsv's line number.
 *
 * Ownership: a struct tsv owns its line buffer until tsv_free(); the
 * fields point into it until the next tsv_next().  The stream is the
 * caller's to open, check with ferror() and close.
 */
#ifndef TSV_H
#define TSV_H

#include <stddef.h>
#include <stdio.h>

struct tsv {
	FILE		*fp;
	char		*line;
	size_t		 cap;
	unsigned long	 lineno;	/* of the line last read */
};

/*
 * The next line's fields into f, max at most: how many it has, max + 1
 * where it has more; 0 at the end of the stream or on a read error.
 */
size_t	tsv_next(struct tsv *, char **f, size_t max);
void	tsv_free(struct tsv *);

#endif
