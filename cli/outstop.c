/* SPDX-License-Identifier: MIT */
/* cli/outstop.c - writes that a stop signal cuts short (outstop.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/termsig.h"
#include "outstop.h"

/* The signals that stop a run (cli/machctl.c installs their handler). */
static const int stop_sigs[] = { TERMSIG_STOP };
#define NSTOP (sizeof(stop_sigs) / sizeof(stop_sigs[0]))

static struct sigaction saved[NSTOP];
static bool wrapped[NSTOP];
static volatile sig_atomic_t stopped;
static int wake[2] = {-1, -1};

/* Async-signal-safe: the flag, a byte in the self-pipe, then the
 * handler that was there before (its flag, its restore). */
static void on_stop(int sig)
{
	int e = errno;

	stopped = sig;
	if (wake[1] >= 0)
		(void)!write(wake[1], "", 1);
	for (unsigned i = 0; i < NSTOP; i++)
		if (stop_sigs[i] == sig && wrapped[i])
			saved[i].sa_handler(sig);
	errno = e;
}

void outstop_begin(void)
{
	struct sigaction sa = {.sa_handler = on_stop};   /* no SA_RESTART */

	char drain[64];

	stopped = 0;
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		wake[0] = wake[1] = -1;
	/* never in place of a closed stdin, stdout or stderr (`>&-`) */
	for (unsigned i = 0; i < 2; i++)
		if (wake[i] >= 0 && wake[i] <= STDERR_FILENO) {
			int fd = fcntl(wake[i], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

			close(wake[i]);
			wake[i] = fd;
		}
	while (wake[0] >= 0 && read(wake[0], drain, sizeof(drain)) > 0)
		;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);
	for (unsigned i = 0; i < NSTOP; i++) {
		struct sigaction *o = &saved[i];

		wrapped[i] = !sigaction(stop_sigs[i], NULL, o) &&
			     !(o->sa_flags & SA_SIGINFO) && o->sa_handler != SIG_DFL &&
			     o->sa_handler != SIG_IGN;
		if (wrapped[i])
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

void outstop_end(void)
{
	for (unsigned i = 0; i < NSTOP; i++)
		if (wrapped[i])
			sigaction(stop_sigs[i], &saved[i], NULL);
	for (unsigned i = 0; i < NSTOP; i++)
		wrapped[i] = false;
}

bool outstop_stopped(void)
{
	return stopped != 0;
}

/* Wait up to ms for the self-pipe (a stop signal); true when stopped. */
static bool wait_stop(int ms)
{
	struct pollfd p = {.fd = wake[0], .events = POLLIN};

	if (!stopped)
		(void)poll(&p, wake[0] >= 0 ? 1 : 0, ms);
	return stopped != 0;
}

int outstop_open(const char *path)
{
	struct stat st;
	bool fifo = !stat(path, &st) && S_ISFIFO(st.st_mode);

	for (;;) {
		int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 || errno != ENXIO || !fifo)
			return fd;
		/* ENXIO: no reader yet (fifo(7)); look again every 50 ms */
		if (wait_stop(50)) {
			errno = EINTR;
			return -1;
		}
	}
}

int outstop_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	int fl = fcntl(fd, F_GETFL);

	/* a descriptor not open for writing (stdout given as `1<&-`'s
	 * read end) never polls writable: fail as write(2) would */
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}

	while (len) {
		struct pollfd pf[2] = {{.fd = fd, .events = POLLOUT},
				       {.fd = wake[0], .events = POLLIN}};
		bool stop = stopped != 0;
		/* after a stop: only what the reader takes at once */
		int k = poll(pf, stop || wake[0] < 0 ? 1 : 2, stop ? 0 : -1);
		ssize_t n;

		if (k < 0 && errno != EINTR)
			return -1;
		if (k == 0 && stop) {
			errno = EINTR;
			return -1;
		}
		if (k <= 0 || !pf[0].revents)
			continue;       /* a signal: look again */
		/* PIPE_BUF at a time: after POLLOUT a pipe takes that much
		 * without blocking (pipe(7)), stdout's too, whose O_NONBLOCK
		 * is shared with other processes and not set here */
		n = write(fd, p, len < PIPE_BUF ? len : PIPE_BUF);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			errno = n ? errno : EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
