// SPDX-License-Identifier: MIT
/*
 * fake_modprobe.c - a modprobe(8) whose only module is a fake locktorture,
 * for the tests of `lockbench locktorture` (LOCKBENCH_MODPROBE points at
 * it).  Nothing here touches the real kernel: every file lives under
 * $LOCKBENCH_SYSROOT, which must be set.
 *
 *   fake_modprobe locktorture torture_type=T nwriters_stress=N ...
 *	checks the parameters as lock_torture_init() does, prints the
 *	Start of test line into ROOT/dev/kmsg (as /dev/kmsg records),
 *	creates ROOT/sys/module/locktorture, forks one sleeping process per
 *	writer and reader named lock_torture_wr / lock_torture_re with
 *	ROOT/proc/PID/comm entries for them, and leaves a daemon printing
 *	"Writes:  Total: ..." every stat_interval seconds with rates of the
 *	order locktorture shows (about a million acquisitions per second
 *	for one writer, falling with contention, +-2% noise), in the
 *	kernel's format (kernel/locking/locktorture.c,
 *	__torture_print_stats()), ??? when max/2 > min as the kernel decides;
 *	unless shuffle_interval=0, it moves its workers to every CPU after
 *	each report, as locktorture's shuffler does.
 *   fake_modprobe -r locktorture
 *	stops the daemon, which prints the stopping reports and End of
 *	test as lock_torture_cleanup() does, writes where its workers were
 *	allowed to run into ROOT/fakelt/affinity ("writer PID CPULIST"),
 *	and removes its files.
 *
 * Misbehaviour on demand, from the environment lockbench passes on:
 *   FAKELT_REFUSE=1      the load fails as modprobe does ("ERROR: could
 *                        not insert 'locktorture': Operation not permitted")
 *   FAKELT_FAIL=1        writers report Fail: 1 !!! from the second report
 *                        on, and the test ends in FAILURE
 *   FAKELT_UNPINNABLE=1  one more lock_torture_wr entry, for a pid that
 *                        cannot exist (above PID_MAX_LIMIT): pinning it fails
 *   FAKELT_FULLNAME=1    the workers' proc/PID/comm holds the kthreads'
 *                        full names, lock_torture_writer and
 *                        lock_torture_reader, as newer kernels show them
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXT 512
/* Above PID_MAX_LIMIT (4194304): no task ever has this pid. */
#define NO_SUCH_PID 4194999

static const char *root;
static char type[64] = "spin_lock";
static int nwriters = -1, nreaders = -1, stat_interval = 60, long_hold = 100;
static int shutdown_secs, onoff_interval, verbose = 1, shuffle_interval = 3;
static pid_t workers[MAXT];
static char roles[MAXT];
static int nworkers;
static unsigned long long seq;
static volatile sig_atomic_t stopping;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("modprobe: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void rpath(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(out, len, "%s", root);

	va_start(ap, fmt);
	vsnprintf(out + n, len - (size_t)n, fmt, ap);
	va_end(ap);
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* One printk: a /dev/kmsg record "PRIO,SEQ,USEC,-;TEXT" appended. */
static void printk(const char *fmt, ...)
{
	char path[PATH_MAX], msg[2048], rec[2200];
	struct timespec ts;
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg[strcspn(msg, "\n")] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(rec, sizeof(rec), "1,%llu,%llu,-;%s\n", seq++,
		     (unsigned long long)ts.tv_sec * 1000000ULL +
		     (unsigned long long)ts.tv_nsec / 1000, msg);
	rpath(path, sizeof(path), "/dev/kmsg");
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd >= 0) {
		if (write(fd, rec, (size_t)n) != n)
			perror("fake_modprobe: kmsg");
		close(fd);
	}
}

static bool is_rw_type(void)
{
	return strstr(type, "rw") != NULL;
}

static void params_line(const char *tag)
{
	printk("%s-torture:--- %s: acq_writer_lim=0 long_hold=%d nested_locks=0 "
	       "nreaders_stress=%d nwriters_stress=%d onoff_holdoff=0 onoff_interval=%d "
	       "rt_boost=2 rt_boost_factor=50 shuffle_interval=%d shutdown_secs=%d "
	       "stat_interval=%d stutter=5 verbose=%d writer_fifo=0",
	       type, tag, long_hold, nreaders, nwriters, onoff_interval, shuffle_interval,
	       shutdown_secs, stat_interval, verbose);
}

/* Acquisitions so far per thread, and the random state. */
static long long wcount[MAXT], rcount[MAXT];
static unsigned long long rnd = 88172645463325252ULL;

static double urand(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return (double)(rnd >> 11) / 9007199254740992.0;
}

/* Total write acquisitions per second for n writers of this type. */
static double write_rate(int n)
{
	double base = !strcmp(type, "spin_lock") ? 1.6e6 : !strcmp(type, "mutex_lock") ?
		      1.1e6 : !strcmp(type, "rtmutex_lock") ? 0.9e6 : 1.0e6;

	return base * (0.3 + 0.7 / n) * (0.98 + 0.04 * urand());
}

/* Advance every thread by @secs and print the report(s), kernel style. */
static void report(double secs, bool fail)
{
	long long *cnt[2] = {wcount, rcount};
	int nthr[2] = {nwriters, is_rw_type() ? nreaders : 0};

	for (int k = 0; k < 2; k++) {
		long long sum = 0, max = 0, min;
		double total = write_rate(nthr[k] ? nthr[k] : 1) * secs * (k ? 3 : 1);

		if (!nthr[k])
			continue;
		for (int i = 0; i < nthr[k]; i++) {
			/* Shares differ: thread 0 gets the lock back more often. */
			double share = (i ? 1.0 : 1.6) / (nthr[k] + 0.6);

			cnt[k][i] += llround(total * share * (0.9 + 0.2 * urand()));
		}
		min = cnt[k][0];
		for (int i = 0; i < nthr[k]; i++) {
			sum += cnt[k][i];
			max = cnt[k][i] > max ? cnt[k][i] : max;
			min = cnt[k][i] < min ? cnt[k][i] : min;
		}
		printk("%s:  Total: %lld  Max/Min: %lld/%lld %s  Fail: %d %s",
		       k ? "Reads " : "Writes", sum, max, min,
		       !onoff_interval && max / 2 > min ? "???" : "", fail, fail ? "!!!" : "");
	}
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static const char *getenv_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") ? v : NULL;
}

/* Where task @pid may run, as a CPU list ("1" or "0-1"), into @out. */
static void affinity_of(pid_t pid, char *out, size_t len)
{
	cpu_set_t set;
	size_t n = 0;

	out[0] = '\0';
	if (sched_getaffinity(pid, sizeof(set), &set)) {
		snprintf(out, len, "?");
		return;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			n += (size_t)snprintf(out + n, len - n, "%s%d", n ? "," : "", c);
}

/*
 * torture_shuffle_tasks() in kernel/torture.c: every registered torture
 * kthread gets a new CPU mask (all CPUs but one idle one), which undoes
 * any pinning.  The fake does it once per report.
 */
static void shuffle(void)
{
	cpu_set_t all;

	if (sched_getaffinity(0, sizeof(all), &all))
		return;
	for (int i = 0; i < nworkers; i++)
		sched_setaffinity(workers[i], sizeof(all), &all);
}

/* The daemon: report every stat_interval until told to stop, then clean up. */
static void daemon_loop(void)
{
	bool fail_env = getenv_on("FAKELT_FAIL") != NULL;
	char path[PATH_MAX], line[128];
	struct timespec last, t;
	int reports = 0;
	FILE *aff;

	clock_gettime(CLOCK_MONOTONIC, &last);
	while (!stopping) {
		struct timespec ts = {stat_interval, 0};

		if (nanosleep(&ts, NULL) && stopping)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		report((double)(t.tv_sec - last.tv_sec) + (t.tv_nsec - last.tv_nsec) / 1e9,
		       fail_env && ++reports >= 2);
		last = t;
		if (shuffle_interval > 0)
			shuffle();
	}
	/* lock_torture_cleanup(): the stats kthread's early report, then the
	 * threads stop, one more report, End of test. */
	clock_gettime(CLOCK_MONOTONIC, &t);
	report((double)(t.tv_sec - last.tv_sec) + (t.tv_nsec - last.tv_nsec) / 1e9,
	       fail_env && reports + 1 >= 2);
	report(0.0001, fail_env && reports + 1 >= 2);
	params_line(fail_env ? "End of test: FAILURE" : "End of test: SUCCESS");
	rpath(path, sizeof(path), "/fakelt/affinity");
	aff = fopen(path, "w");
	for (int i = 0; i < nworkers; i++) {
		affinity_of(workers[i], line, sizeof(line));
		if (aff)
			fprintf(aff, "%s %d %s\n", roles[i] == 'w' ? "writer" : "reader",
				workers[i], line);
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
		rpath(path, sizeof(path), "/proc/%d/comm", workers[i]);
		unlink(path);
		rpath(path, sizeof(path), "/proc/%d", workers[i]);
		rmdir(path);
	}
	if (aff)
		fclose(aff);
	rpath(path, sizeof(path), "/proc/%d/comm", NO_SUCH_PID);
	unlink(path);
	rpath(path, sizeof(path), "/proc/%d", NO_SUCH_PID);
	rmdir(path);
	rpath(path, sizeof(path), "/fakelt/daemon.pid");
	unlink(path);
	rpath(path, sizeof(path), "/sys/module/locktorture");
	rmdir(path);
}

/* A worker: named like the kthread, asleep until killed. */
static pid_t start_worker(char role)
{
	char path[PATH_MAX];
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, role == 'w' ? "lock_torture_wr" : "lock_torture_re");
		for (;;)
			pause();
	}
	if (pid < 0)
		return pid;
	rpath(path, sizeof(path), "/proc/%d", pid);
	mkdirs(path);
	rpath(path, sizeof(path), "/proc/%d/comm", pid);
	if (getenv_on("FAKELT_FULLNAME"))
		put_file(path, role == 'w' ? "lock_torture_writer\n" : "lock_torture_reader\n");
	else
		put_file(path, role == 'w' ? "lock_torture_wr\n" : "lock_torture_re\n");
	return pid;
}

static int int_param(const char *kv, const char *key, int *out)
{
	size_t n = strlen(key);
	char *end;
	long v;

	if (strncmp(kv, key, n) || kv[n] != '=')
		return 0;
	errno = 0;
	v = strtol(kv + n + 1, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		die("ERROR: could not insert 'locktorture': Invalid argument");
	*out = (int)v;
	return 1;
}

static void parse_params(int argc, char **argv)
{
	static const char *const types[] = {
		"lock_busted", "spin_lock", "spin_lock_irq", "raw_spin_lock",
		"raw_spin_lock_irq", "rw_lock", "rw_lock_irq", "mutex_lock",
		"ww_mutex_lock", "rtmutex_lock", "rwsem_lock", "percpu_rwsem_lock", NULL,
	};
	bool known = false;

	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "torture_type=", 13)) {
			snprintf(type, sizeof(type), "%s", argv[i] + 13);
			continue;
		}
		if (int_param(argv[i], "nwriters_stress", &nwriters) ||
		    int_param(argv[i], "nreaders_stress", &nreaders) ||
		    int_param(argv[i], "stat_interval", &stat_interval) ||
		    int_param(argv[i], "long_hold", &long_hold) ||
		    int_param(argv[i], "shutdown_secs", &shutdown_secs) ||
		    int_param(argv[i], "onoff_interval", &onoff_interval) ||
		    int_param(argv[i], "shuffle_interval", &shuffle_interval) ||
		    int_param(argv[i], "verbose", &verbose))
			continue;
		die("ERROR: could not insert 'locktorture': Unknown symbol in module, "
		    "or unknown parameter (see dmesg)");
	}
	for (int i = 0; types[i]; i++)
		known |= !strcmp(types[i], type);
	if (!known) {
		printk("lock-torture: invalid torture type: \"%s\"", type);
		die("ERROR: could not insert 'locktorture': Invalid argument");
	}
	if (shutdown_secs > 0)
		die("fake locktorture: shutdown_secs=%d would power the machine off",
		    shutdown_secs);
	if (nwriters < 0)
		nwriters = 4;
	if (nreaders < 0)
		nreaders = is_rw_type() ? nwriters : 0;
	if (!is_rw_type())
		nreaders = 0;
	if (nwriters + nreaders > MAXT - 1 || stat_interval < 1)
		die("ERROR: could not insert 'locktorture': Invalid argument");
}

static int load(int argc, char **argv)
{
	char path[PATH_MAX], buf[32];
	int ready[2];
	pid_t pid;

	rpath(path, sizeof(path), "/sys/module/locktorture");
	if (!access(path, F_OK))
		die("ERROR: could not insert 'locktorture': File exists");
	if (getenv_on("FAKELT_REFUSE"))
		die("ERROR: could not insert 'locktorture': Operation not permitted");
	parse_params(argc, argv);
	if (pipe(ready))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0) {
		char c;

		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			die("ERROR: could not insert 'locktorture': fake daemon died");
		return 0;
	}
	/* The daemon: own session, no stdio shared with the caller. */
	setsid();
	close(ready[0]);
	freopen("/dev/null", "r", stdin);
	freopen("/dev/null", "w", stdout);
	freopen("/dev/null", "w", stderr);
	signal(SIGTERM, on_term);
	rnd ^= (unsigned long long)getpid() << 20;
	mkdirs(path);
	params_line("Start of test");
	for (int i = 0; i < nwriters + nreaders; i++) {
		char role = i < nwriters ? 'w' : 'r';
		pid_t w = start_worker(role);

		if (w > 0) {
			roles[nworkers] = role;
			workers[nworkers++] = w;
		}
	}
	if (getenv_on("FAKELT_UNPINNABLE")) {
		rpath(path, sizeof(path), "/proc/%d", NO_SUCH_PID);
		mkdirs(path);
		rpath(path, sizeof(path), "/proc/%d/comm", NO_SUCH_PID);
		put_file(path, "lock_torture_wr\n");
	}
	printk("%s-torture: Creating lock_torture_stats task", type);
	rpath(path, sizeof(path), "/fakelt");
	mkdirs(path);
	rpath(path, sizeof(path), "/fakelt/daemon.pid");
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	put_file(path, buf);
	if (write(ready[1], "1", 1) != 1)
		_exit(1);
	close(ready[1]);
	daemon_loop();
	_exit(0);
}

static int unload(void)
{
	char path[PATH_MAX], buf[32];
	FILE *f;
	int pid = 0;

	rpath(path, sizeof(path), "/fakelt/daemon.pid");
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 0)
		die("FATAL: Module locktorture is not currently loaded");
	fclose(f);
	if (kill(pid, SIGTERM))
		die("FATAL: Module locktorture is not currently loaded");
	rpath(path, sizeof(path), "/sys/module/locktorture");
	for (int i = 0; i < 1000 && !access(path, F_OK); i++)
		usleep(10000);
	if (!access(path, F_OK))
		die("FATAL: Module locktorture is in use");
	(void)buf;
	return 0;
}

int main(int argc, char **argv)
{
	root = getenv("LOCKBENCH_SYSROOT");
	if (!root || !*root)
		die("fake: LOCKBENCH_SYSROOT must name the fake tree");
	if (argc >= 3 && !strcmp(argv[1], "-r") && !strcmp(argv[2], "locktorture"))
		return unload();
	if (argc >= 2 && !strcmp(argv[1], "locktorture"))
		return load(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "-r"))
		die("FATAL: Module %s not found in directory /lib/modules", argv[1]);
	die("usage: fake_modprobe [-r] locktorture [key=value ...]");
	return 1;
}
