/*
 * cpus: how many CPUs this process may run on, for a program that takes a
 * thread only where it has a CPU of its own to run on.
 *
 * MRP_CPUS, a whole number from 1 up, stands for the count instead, so
 * that both paths can be tested (and a run held to one) on any machine.
 *
 * Ownership: nothing is allocated.
 */
#ifndef CPUS_H
#define CPUS_H

/* The CPUs of sched_getaffinity(2), or MRP_CPUS; at least 1. */
int	cpus_usable(void);

#endif
