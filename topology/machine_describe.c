/* SPDX-License-Identifier: MIT */
/*
 * machine_describe.c - the machine state that matters to lock timings,
 * as JSON (machine_describe(), carried by the results as "machine"):
 * kernel, CPU model, each used CPU's cpufreq policy and SMT siblings,
 * boost, isolated CPUs, NUMA balancing, irqbalance, load average.  It
 * formats nothing: output/render/render_machine.c prints it.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpulist.h"
#include "machine_impl.h"
#include "sysfs.h"
#include "text.h"

/* ---- where things are ----------------------------------------------- */

int machine_cpufreq_dir(int cpu, char *dir, size_t len)
{
	char rel[CHG_PATH_LEN], full[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq", cpu);
	if (!sysfs_exists(rel) || sysfs_path(rel, full, sizeof(full)))
		return -ENOENT;
	n = readlink(full, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (!strncmp(base, "policy", 6)) {
			n = snprintf(dir, len, CPU_DIR "/cpufreq/%s", base);
			return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
		}
	}
	return copy_str(dir, len, rel) ? -ENAMETOOLONG : 0;
}

int machine_attr_path(char *out, size_t len, const char *dir, const char *attr)
{
	size_t d = strlen(dir), a = strlen(attr);

	if (d + 1 + a + 1 > len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(out, dir, d);
	out[d] = '/';
	memcpy(out + d + 1, attr, a + 1);
	return 0;
}

int machine_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char p[CHG_PATH_LEN];
	int err = machine_attr_path(p, sizeof(p), dir, attr);

	return err ? err : sysfs_read_str(p, buf, len);
}

/*
 * The kernel CPU list @list ("0-3,8") as a new array of ints (*@cpus,
 * *@n entries; topology/cpulist.c parses it).  Returns 0, -EINVAL for a
 * malformed list or -ENOMEM.
 */
static int cpulist_ints(const char *list, int **cpus, unsigned *n)
{
	unsigned *v = NULL, k = 0;
	int *out;
	int err = cpulist_parse(list, &v, &k, NULL, 0);

	if (err)
		return err;
	out = calloc(k ? k : 1, sizeof(*out));
	if (!out) {
		free(v);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < k; i++)
		out[i] = (int)v[i];
	free(v);
	*cpus = out;
	*n = k;
	return 0;
}

int machine_online_cpus(int **cpus, unsigned *n)
{
	char online[1024];
	int err = sysfs_read_str(CPU_DIR "/online", online, sizeof(online));

	return err ? err : cpulist_ints(online, cpus, n);
}

/* 1 when @cpu is in the kernel CPU list @list, else 0 (also malformed). */
static int cpulist_has(const char *list, int cpu)
{
	int *v = NULL, found = 0;
	unsigned n = 0;

	if (cpulist_ints(list, &v, &n))
		return 0;
	for (unsigned i = 0; i < n && !found; i++)
		found = v[i] == cpu;
	free(v);
	return found;
}

/* Read a number into a JSON integer, or JSON null when unreadable. */
static json_t *json_u64_at(const char *path)
{
	uint64_t v;

	return sysfs_read_u64(path, &v) ? json_null() :
					  json_integer((json_int_t)v);
}

/* Read a string into JSON, or JSON null when unreadable. */
static json_t *json_str_at(const char *path)
{
	char buf[256];

	return sysfs_read_str(path, buf, sizeof(buf)) ? json_null() :
							json_text(buf);
}

/* ---- describe ------------------------------------------------------- */

/* json_object_set_new() that remembers a failure (out of memory) in *@ok. */
static void set(json_t *obj, const char *key, json_t *val, bool *ok)
{
	if (!val || json_object_set_new(obj, key, val))
		*ok = false;
}

/* Kernel release/version/arch: procfs under the root, else uname(2). */
static json_t *describe_kernel(void)
{
	struct utsname u;
	json_t *o = json_object();
	bool ok = o != NULL;
	json_t *rel = json_str_at("/proc/sys/kernel/osrelease");
	json_t *ver = json_str_at("/proc/sys/kernel/version");
	json_t *arch = json_str_at("/proc/sys/kernel/arch");

	if (!uname(&u)) {
		if (json_is_null(rel))
			rel = json_text(u.release);
		if (json_is_null(ver))
			ver = json_text(u.version);
		if (json_is_null(arch))
			arch = json_text(u.machine);
	}
	if (o) {
		set(o, "release", rel, &ok);
		set(o, "version", ver, &ok);
		set(o, "arch", arch, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Names of a few arm64 cores by "CPU implementer"/"CPU part" (MIDR). */
static const struct {
	unsigned impl, part;
	const char *name;
} arm_cores[] = {
	{ 0x41, 0xd08, "ARM Cortex-A72" }, { 0x41, 0xd0c, "ARM Neoverse-N1" },
	{ 0x41, 0xd40, "ARM Neoverse-V1" }, { 0x41, 0xd49, "ARM Neoverse-N2" },
	{ 0x41, 0xd4f, "ARM Neoverse-V2" }, { 0x48, 0xd01, "HiSilicon TSV110" },
	{ 0xc0, 0xac3, "Ampere-1" }, { 0xc0, 0xac4, "Ampere-1a" },
};

/* The model name of an arm64 CPU from its MIDR fields. */
static json_t *arm_model(unsigned impl, unsigned part)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(arm_cores) / sizeof(arm_cores[0]); i++)
		if (arm_cores[i].impl == impl && arm_cores[i].part == part)
			return json_string(arm_cores[i].name);
	snprintf(buf, sizeof(buf), "implementer 0x%02x part 0x%03x", impl,
		 part);
	return json_string(buf);
}

/*
 * The CPU model from /proc/cpuinfo: the first "model name" (x86, some
 * arm64), else "CPU implementer"/"CPU part" (arm64); JSON null if none.
 */
static json_t *describe_cpu_model(void)
{
	char *line = NULL, *colon;
	unsigned impl = 0, part = 0;
	bool has_impl = false, has_part = false;
	json_t *model = NULL;
	size_t cap = 0;
	FILE *f;

	f = sysfs_fopen("/proc/cpuinfo");
	if (!f)
		return json_null();
	while (!model && getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		if (!strncmp(line, "model name", 10))
			model = json_text(colon);
		else if (!strncmp(line, "CPU implementer", 15) && !has_impl)
			has_impl = sscanf(colon, "%x", &impl) == 1;
		else if (!strncmp(line, "CPU part", 8) && !has_part)
			has_part = sscanf(colon, "%x", &part) == 1;
	}
	free(line);
	fclose(f);
	if (model)
		return model;
	return has_impl && has_part ? arm_model(impl, part) : json_null();
}

bool machine_cpu_model(char *buf, size_t len)
{
	json_t *m = describe_cpu_model();
	bool ok = json_is_string(m) && *json_string_value(m);

	if (ok)
		snprintf(buf, len, "%s", json_string_value(m));
	json_decref(m);
	return ok;
}

/* scaling_available_governors as a JSON array of names, or null. */
static json_t *governors_json(const char *dir)
{
	char buf[256], *save = NULL;
	json_t *arr;

	if (machine_read_attr(dir, "scaling_available_governors", buf, sizeof(buf)))
		return json_null();
	arr = json_array();
	for (char *w = strtok_r(buf, " ", &save); arr && w;
	     w = strtok_r(NULL, " ", &save))
		json_array_append_new(arr, json_text(w));
	return arr;
}

/* The cpufreq state of @cpu as JSON, null when it has no cpufreq. */
static json_t *describe_cpufreq(int cpu)
{
	static const char *const num[][2] = {
		{ "scaling_min_khz", "scaling_min_freq" },
		{ "scaling_max_khz", "scaling_max_freq" },
		{ "scaling_cur_khz", "scaling_cur_freq" },
		{ "cpuinfo_min_khz", "cpuinfo_min_freq" },
		{ "cpuinfo_max_khz", "cpuinfo_max_freq" },
		{ "base_khz", "base_frequency" },
		{ "setspeed_khz", "scaling_setspeed" },
	};
	char dir[CHG_PATH_LEN], p[CHG_PATH_LEN];
	json_t *o;
	bool ok = true;

	if (machine_cpufreq_dir(cpu, dir, sizeof(dir)))
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	set(o, "policy", json_text(dir), &ok);
	machine_attr_path(p, sizeof(p), dir, "scaling_driver");
	set(o, "driver", json_str_at(p), &ok);
	machine_attr_path(p, sizeof(p), dir, "scaling_governor");
	set(o, "governor", json_str_at(p), &ok);
	set(o, "available_governors", governors_json(dir), &ok);
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
		machine_attr_path(p, sizeof(p), dir, num[i][1]);
		set(o, num[i][0], json_u64_at(p), &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The thread siblings list of @cpu ("0,2"), JSON null when unknown. */
static json_t *siblings_json(int cpu)
{
	char p[CHG_PATH_LEN];

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/topology/thread_siblings_list",
		 cpu);
	return json_str_at(p);
}

/* One "cpus" entry: {cpu, cpufreq, siblings}. */
static json_t *describe_cpu(int cpu)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (o) {
		set(o, "cpu", json_integer(cpu), &ok);
		set(o, "cpufreq", describe_cpufreq(cpu), &ok);
		set(o, "siblings", siblings_json(cpu), &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * The used CPUs that share a core with another used CPU, as a JSON
 * array; null when no CPU's thread_siblings_list is readable.
 */
static json_t *smt_shared_json(const json_t *cpus)
{
	json_t *out = json_array(), *a, *b;
	bool known = false;
	size_t i, j;

	json_array_foreach(cpus, i, a) {
		const char *sib = json_string_value(json_object_get(a, "siblings"));
		int me = (int)json_integer_value(json_object_get(a, "cpu"));

		if (!sib)
			continue;
		known = true;
		json_array_foreach(cpus, j, b) {
			int other = (int)json_integer_value(json_object_get(b, "cpu"));

			if (other != me && cpulist_has(sib, other)) {
				json_array_append_new(out, json_integer(me));
				break;
			}
		}
	}
	if (known)
		return out;
	json_decref(out);
	return json_null();
}

/* The boost state: {path, on} from cpufreq/boost or intel_pstate, or null. */
static json_t *describe_boost(void)
{
	uint64_t v;

	if (!sysfs_read_u64(BOOST_PATH, &v))
		return json_pack("{s:s, s:b}", "path", BOOST_PATH, "on", v != 0);
	if (!sysfs_read_u64(NO_TURBO_PATH, &v))
		return json_pack("{s:s, s:b}", "path", NO_TURBO_PATH, "on",
				 v == 0);
	return json_null();
}

/* /sys/devices/system/cpu/smt/active as a JSON boolean, or null. */
static json_t *describe_smt(void)
{
	uint64_t v;

	if (sysfs_read_u64(CPU_DIR "/smt/active", &v))
		return json_null();
	return json_boolean(v != 0);
}

static int is_irqbalance(int pid, const char *comm, void *arg)
{
	(void)pid, (void)arg;
	return !strcmp(comm, "irqbalance");
}

/* 1 if a process named irqbalance is in <root>/proc, 0 if not, -errno. */
static int irqbalance_running(void)
{
	return sysfs_each_process(is_irqbalance, NULL);
}

/* /proc/loadavg's three averages as a JSON array, or null. */
static json_t *describe_loadavg(void)
{
	char buf[128];
	double a, b, c;

	if (sysfs_read_str("/proc/loadavg", buf, sizeof(buf)) ||
	    sscanf(buf, "%lf %lf %lf", &a, &b, &c) != 3)
		return json_null();
	return json_pack("[f, f, f]", a, b, c);
}

/* The used CPUs: @cpus, or every online CPU when @ncpus is 0. */
static json_t *describe_cpus(const int *cpus, unsigned ncpus)
{
	json_t *arr = json_array();
	int *all = NULL;
	unsigned n = ncpus;

	if (!arr)
		return NULL;
	if (ncpus == 0 && !machine_online_cpus(&all, &n))
		cpus = all;
	for (unsigned i = 0; cpus && i < n; i++) {
		if (json_array_append_new(arr, describe_cpu(cpus[i]))) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	free(all);
	return arr;
}

json_t *machine_describe(const int *cpus, unsigned ncpus)
{
	json_t *o = json_object(), *list = describe_cpus(cpus, ncpus);
	int irq = irqbalance_running();
	bool ok = o && list;

	if (!ok) {
		json_decref(o);
		json_decref(list);
		return NULL;
	}
	set(o, "kernel", describe_kernel(), &ok);
	set(o, "cpu_model", describe_cpu_model(), &ok);
	set(o, "cpus", list, &ok);
	set(o, "boost", describe_boost(), &ok);
	set(o, "smt_active", describe_smt(), &ok);
	set(o, "smt_shared", smt_shared_json(list), &ok);
	set(o, "isolated", json_str_at(CPU_DIR "/isolated"), &ok);
	set(o, "numa_balancing", json_u64_at(NUMA_BAL_PATH), &ok);
	set(o, "irqbalance", irq < 0 ? json_null() : json_boolean(irq), &ok);
	set(o, "loadavg", describe_loadavg(), &ok);
	if (ok && machine_describe_env(o))
		ok = false;
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}
