/*
 * operands: the file-operand loop every filter shares, and operands named
 * in a list file, for argument lists too long for exec(2).
 *
 * Operands are processed in order; none means standard input, passed to
 * the callback as NULL.  A file that cannot be opened is the callback's to
 * report: it returns 1 and the run goes on with the next operand.  A data
 * error ends the run: the callback reports it and returns -1.
 * for_each_operand() allocates nothing; arg is passed through untouched.
 * A struct oplist owns its text and its array, freed by oplist_free(); its
 * names borrow the caller's argv and its own text.
 */
#ifndef OPERANDS_H
#define OPERANDS_H

/*
 * Calls fn(path, arg) for each operand, or fn(NULL, arg) when argc is 0,
 * and returns the exit status: 0 when every call returned 0, 1 otherwise.
 */
int for_each_operand(int argc, char *argv[],
    int (*fn)(const char *path, void *arg), void *arg);

struct oplist {
	char	 *text;		/* the list file, its newlines now NULs */
	char	**argv;		/* argc names, then NULL */
	int	  argc;
};

/*
 * The argc names of argv, then those that the file list names, one a line
 * (blank lines aside; a name cannot hold a newline): what tar -T reads.
 * With list NULL, the names of argv alone.
 * An unreadable list, or one holding a NUL, is a message and exit 1.
 */
void oplist_read(struct oplist *, int argc, char *argv[], const char *list);
void oplist_free(struct oplist *);

#endif
