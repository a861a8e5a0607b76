/* SPDX-License-Identifier: MIT */
#ifndef LOCKBENCH_TERMSIG_H
#define LOCKBENCH_TERMSIG_H

#include <signal.h>

/*
 * The one list of stop signals: every signal whose default action ends
 * the process and that can be caught (signal(7), actions "Term" and
 * "Core"; SIGKILL and SIGSTOP cannot be), less the faults a crash
 * raises (SEGV, BUS, FPE, ILL, ABRT, SYS, TRAP), which are not the
 * user's, and less SIGPIPE and SIGXFSZ, which a writer of results
 * ignores so that the write fails and is reported.  Whoever handles a
 * stop (a run, a tree build, system check, a blocked write) takes this
 * list, so that every signal is treated alike.  Use in an initialiser:
 *	static const int sigs[] = { TERMSIG_STOP };
 */
#ifdef SIGPWR
#define TERMSIG_PWR_ , SIGPWR
#else
#define TERMSIG_PWR_
#endif
#ifdef SIGSTKFLT
#define TERMSIG_STKFLT_ , SIGSTKFLT
#else
#define TERMSIG_STKFLT_
#endif
#define TERMSIG_STOP                                                    \
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,    \
	SIGVTALRM, SIGPROF, SIGXCPU, SIGIO TERMSIG_PWR_ TERMSIG_STKFLT_

#endif
