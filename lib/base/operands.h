/*
 * operands: the file-operand loop every filter shares.
 *
 * Operands are processed in order; none means standard input, passed to
 * the callback as NULL.  A file that cannot be opened is the callback's to
 * report: it returns 1 and the run goes on with the next operand.  A data
 * error ends the run: the callback reports it and returns -1.  Nothing here
 * allocates; arg is passed through untouched.
 */
#ifndef OPERANDS_H
#define OPERANDS_H

/*
 * Calls fn(path, arg) for each operand, or fn(NULL, arg) when argc is 0,
 * and returns the exit status: 0 when every call returned 0, 1 otherwise.
 */
int for_each_operand(int argc, char *argv[],
    int (*fn)(const char *path, void *arg), void *arg);

#endif
