/* SPDX-License-Identifier: MIT */
/*
 * The machine description (machine_describe()'s JSON, which the results
 * carry as "machine") as `lockbench system show` prints it: one line per
 * item, then one "warning: ..." line per noise source.  It reads only
 * the JSON; CPU lists are printed as ranges ("0-3,8") by hwloc's bitmap
 * list format.
 */
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* @n CPUs of @v as a CPU list with ranges ("0-3,8") into @buf[@len]. */
static void cpus_format(const int *v, unsigned n, char *buf, size_t len)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	buf[0] = '\0';
	if (!set)
		return;
	for (unsigned i = 0; i < n; i++)
		if (v[i] >= 0)
			hwloc_bitmap_set(set, (unsigned)v[i]);
	if (hwloc_bitmap_list_snprintf(buf, len, set) < 0)
		buf[0] = '\0';
	hwloc_bitmap_free(set);
}

/* The governor of a "cpus" entry, or NULL without cpufreq. */
static const char *entry_governor(const json_t *e)
{
	return json_string_value(json_object_get(json_object_get(e, "cpufreq"),
						 "governor"));
}

/* Print one "cpuN" line of the report. */
static void report_cpu(const json_t *e, FILE *out)
{
	const json_t *f = json_object_get(e, "cpufreq");
	char name[32];

	snprintf(name, sizeof(name), "cpu%lld",
		 (long long)json_integer_value(json_object_get(e, "cpu")));
	if (!json_is_object(f)) {
		fprintf(out, "%-16s no cpufreq\n", name);
		return;
	}
	fprintf(out, "%-16s governor %s, %lld-%lld kHz, now %lld kHz (%s)\n",
		name, entry_governor(e) ? entry_governor(e) : "?",
		(long long)json_integer_value(json_object_get(f, "scaling_min_khz")),
		(long long)json_integer_value(json_object_get(f, "scaling_max_khz")),
		(long long)json_integer_value(json_object_get(f, "scaling_cur_khz")),
		json_string_value(json_object_get(f, "driver")) ?
		json_string_value(json_object_get(f, "driver")) : "driver ?");
}

/* 1 when @gov keeps the frequency where it was put. */
static int governor_ok(const char *gov)
{
	return !strcmp(gov, "performance") || !strcmp(gov, "userspace");
}

/*
 * One warning per governor that lets the frequency move, naming the CPUs
 * that run it.  Returns the number of warnings printed.
 */
static int warn_governors(const json_t *cpus, FILE *out)
{
	size_t n = json_array_size(cpus), i, j;
	int *list = calloc(n ? n : 1, sizeof(*list)), warnings = 0;
	char buf[256];

	for (i = 0; list && i < n; i++) {
		const char *g = entry_governor(json_array_get(cpus, i));
		unsigned k = 0;

		if (!g || governor_ok(g))
			continue;
		for (j = 0; j < i; j++) {
			const char *h = entry_governor(json_array_get(cpus, j));

			if (h && !strcmp(g, h))
				break;
		}
		if (j < i)
			continue;	/* already reported */
		for (j = i; j < n; j++) {
			const json_t *e = json_array_get(cpus, j);
			const char *h = entry_governor(e);

			if (h && !strcmp(g, h))
				list[k++] = (int)json_integer_value(
					json_object_get(e, "cpu"));
		}
		cpus_format(list, k, buf, sizeof(buf));
		fprintf(out,
			"warning: governor %s on cpus %s lets the frequency follow the load; freeze it with --freq\n",
			g, buf);
		warnings++;
	}
	free(list);
	return warnings;
}

/* The report's CPU lines and the no-cpufreq warning; returns warnings. */
static int report_cpus(const json_t *cpus, FILE *out)
{
	size_t i;
	const json_t *e;
	int nofreq = 0;

	json_array_foreach(cpus, i, e) {
		report_cpu(e, out);
		nofreq |= !json_is_object(json_object_get(e, "cpufreq"));
	}
	return nofreq;
}

/* Print the kernel and CPU model lines of the report. */
static void report_head(const json_t *d, FILE *out)
{
	const json_t *k = json_object_get(d, "kernel");
	const char *s;

	fprintf(out, "%-16s %s (%s)\n", "kernel",
		json_string_value(json_object_get(k, "release")) ?: "?",
		json_string_value(json_object_get(k, "arch")) ?: "?");
	s = json_string_value(json_object_get(d, "cpu_model"));
	fprintf(out, "%-16s %s\n", "cpu model", s ? s : "unknown");
}

/* Print the machine-wide lines after the CPUs. */
static void report_machine(const json_t *d, FILE *out)
{
	const json_t *b, *la, *v;
	const char *s;

	b = json_object_get(d, "boost");
	if (json_is_object(b))
		fprintf(out, "%-16s %s (%s)\n", "boost",
			json_is_true(json_object_get(b, "on")) ? "on" : "off",
			json_string_value(json_object_get(b, "path")));
	else
		fprintf(out, "%-16s %s\n", "boost", "unknown (no control)");
	v = json_object_get(d, "smt_active");
	fprintf(out, "%-16s %s\n", "smt", json_is_boolean(v) ?
		(json_is_true(v) ? "active" : "off") : "unknown");
	s = json_string_value(json_object_get(d, "isolated"));
	fprintf(out, "%-16s %s\n", "isolated cpus", !s ? "unknown" :
		*s ? s : "none");
	v = json_object_get(d, "numa_balancing");
	if (json_is_integer(v))
		fprintf(out, "%-16s %lld\n", "numa_balancing",
			(long long)json_integer_value(v));
	else
		fprintf(out, "%-16s %s\n", "numa_balancing", "not built in");
	v = json_object_get(d, "irqbalance");
	fprintf(out, "%-16s %s\n", "irqbalance", !json_is_boolean(v) ?
		"unknown" : json_is_true(v) ? "running" : "not running");
	la = json_object_get(d, "loadavg");
	if (json_array_size(la) == 3)
		fprintf(out, "%-16s %.2f %.2f %.2f\n", "load average",
			json_number_value(json_array_get(la, 0)),
			json_number_value(json_array_get(la, 1)),
			json_number_value(json_array_get(la, 2)));
}

/* A string member of @o, or @def. */
static const char *str_or(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : def;
}

/* The clocksource, preemption and command-line lines. */
static void report_kernel_env(const json_t *d, FILE *out)
{
	const json_t *cs = json_object_get(d, "clocksource");
	const json_t *pr = json_object_get(d, "preemption");
	const json_t *cl = json_object_get(json_object_get(d, "cmdline"), "notable");
	const char *key;
	json_t *v;

	if (json_is_object(cs))
		fprintf(out, "%-16s %s (available: %s)\n", "clocksource",
			str_or(cs, "current", "?"), str_or(cs, "available", "?"));
	else
		fprintf(out, "%-16s unknown\n", "clocksource");
	if (json_is_object(pr))
		fprintf(out, "%-16s %s%s (%s)\n", "preemption",
			str_or(pr, "model", "dynamic, current model unknown"),
			json_is_true(json_object_get(pr, "dynamic")) &&
			json_string_value(json_object_get(pr, "model")) ? ", dynamic" : "",
			str_or(pr, "source", "?"));
	else
		fprintf(out, "%-16s unknown\n", "preemption");
	if (!json_is_object(cl)) {
		fprintf(out, "%-16s unknown\n", "cmdline");
		return;
	}
	fprintf(out, "%-16s", "cmdline");
	json_object_foreach((json_t *)cl, key, v)
		fprintf(out, " %s%s%s", key, *json_string_value(v) ? "=" : "",
			json_string_value(v));
	fprintf(out, "%s\n", json_object_size(cl) ? "" : " none of the parameters lock timings depend on");
}

/* The cpuidle, hypervisor and transparent huge page lines. */
static void report_env(const json_t *d, FILE *out)
{
	const json_t *ci = json_object_get(d, "cpuidle"), *st, *e;
	const json_t *hv = json_object_get(d, "hypervisor");
	const json_t *thp = json_object_get(d, "thp"), *det;
	size_t i;

	if (json_is_object(ci)) {
		fprintf(out, "%-16s %s, governor %s, states:", "cpuidle",
			str_or(ci, "driver", "driver ?"), str_or(ci, "governor", "?"));
		st = json_object_get(ci, "states");
		json_array_foreach(st, i, e)
			fprintf(out, "%s %s %lld us%s", i ? "," : "", str_or(e, "name", "?"),
				(long long)json_integer_value(json_object_get(e, "latency_us")),
				json_is_true(json_object_get(e, "disabled")) ? " (disabled)" : "");
		fprintf(out, "%s\n", json_array_size(st) ? "" : " none");
	} else {
		fprintf(out, "%-16s %s\n", "cpuidle", "none");
	}
	det = json_object_get(hv, "detected");
	if (json_is_true(det))
		fprintf(out, "%-16s yes (%s%s%s)\n", "hypervisor",
			str_or(hv, "type", str_or(hv, "vendor", "type unknown")),
			json_string_value(json_object_get(hv, "product")) ? ", " : "",
			str_or(hv, "product", ""));
	else
		fprintf(out, "%-16s %s\n", "hypervisor", json_is_false(det) ? "none" : "unknown");
	if (json_is_object(thp))
		fprintf(out, "%-16s %s (defrag %s)\n", "huge pages", str_or(thp, "enabled", "?"),
			str_or(thp, "defrag", "?"));
	else
		fprintf(out, "%-16s %s\n", "huge pages", "no transparent huge pages");
}

/* The machine-wide warnings; returns how many were printed. */
static int warn_machine(const json_t *d, FILE *out)
{
	const json_t *shared = json_object_get(d, "smt_shared"), *v;
	const char *iso = json_string_value(json_object_get(d, "isolated")), *s;
	int n = 0;

	if (json_is_true(json_object_get(json_object_get(d, "boost"), "on")))
		n += fprintf(out, "warning: boost/turbo is on (%s): the frequency depends on temperature and on the other cores\n",
			     json_string_value(json_object_get(json_object_get(d, "boost"), "path"))) > 0;
	if (json_array_size(shared)) {
		int list[64];
		char buf[256];
		unsigned k = 0;
		size_t i;

		json_array_foreach(shared, i, v)
			if (k < 64)
				list[k++] = (int)json_integer_value(v);
		cpus_format(list, k, buf, sizeof(buf));
		n += fprintf(out, "warning: SMT siblings in use (cpus %s): threads share a core's pipeline and caches\n",
			     buf) > 0;
	}
	if (iso && !*iso)
		n += fprintf(out, "warning: no isolated CPUs (isolcpus=): other tasks may run on the measured CPUs\n") > 0;
	v = json_object_get(d, "numa_balancing");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		n += fprintf(out, "warning: kernel.numa_balancing is %lld: pages and tasks migrate during the run\n",
			     (long long)json_integer_value(v)) > 0;
	s = json_string_value(json_object_get(json_object_get(d, "clocksource"), "current"));
	if (s && (!strcmp(s, "hpet") || !strcmp(s, "acpi_pm") || !strcmp(s, "jiffies")))
		n += fprintf(out, "warning: clocksource %s is slow to read: every timestamp of a run costs far more than with tsc or arch_sys_counter\n",
			     s) > 0;
	if (json_is_true(json_object_get(json_object_get(d, "hypervisor"), "detected")))
		n += fprintf(out, "warning: running under a hypervisor: the host can deschedule a vCPU holding a lock (lock-holder preemption; see steal time)\n") > 0;
	if (json_is_true(json_object_get(d, "irqbalance")))
		n += fprintf(out, "warning: irqbalance is running: it moves interrupts between CPUs during the run\n") > 0;
	v = json_array_get(json_object_get(d, "loadavg"), 0);
	if (v && json_number_value(v) > 0.5)
		n += fprintf(out, "warning: load average %.2f > 0.5: other work competes with the run\n",
			     json_number_value(v)) > 0;
	return n;
}

void render_machine_summary(const json_t *machine, FILE *out)
{
	const json_t *env = json_object_get(machine, "environment");
	const json_t *pr = json_object_get(env, "preemption");
	const json_t *hv = json_object_get(env, "hypervisor");
	const json_t *cl = json_object_get(json_object_get(env, "cmdline"), "notable");
	const char *key;
	json_t *v;

	if (!json_is_object(env))
		return;
	fprintf(out, "machine: %s, kernel %s, clocksource %s, preemption %s, cpuidle %s, "
		"THP %s, hypervisor %s, cmdline:",
		str_or(machine, "cpu_model", "?"), str_or(machine, "kernel", "?"),
		str_or(json_object_get(env, "clocksource"), "current", "?"),
		str_or(pr, "model", json_is_object(pr) ? "dynamic" : "?"),
		str_or(json_object_get(env, "cpuidle"), "governor", "none"),
		str_or(json_object_get(env, "thp"), "enabled", "none"),
		json_is_true(json_object_get(hv, "detected")) ?
		str_or(hv, "type", str_or(hv, "vendor", "yes")) :
		json_is_false(json_object_get(hv, "detected")) ? "none" : "?");
	json_object_foreach((json_t *)cl, key, v)
		fprintf(out, " %s%s%s", key, *json_string_value(v) ? "=" : "",
			json_string_value(v));
	fprintf(out, "%s\n", json_object_size(cl) ? "" : " -");
}

int render_machine_report(const json_t *desc, FILE *out)
{
	const json_t *cpus = json_object_get(desc, "cpus");
	int n;

	report_head(desc, out);
	n = report_cpus(cpus, out);
	report_machine(desc, out);
	report_kernel_env(desc, out);
	report_env(desc, out);
	if (n)
		fprintf(out, "warning: frequency cannot be controlled on this machine (no cpufreq)\n");
	n += warn_governors(cpus, out);
	n += warn_machine(desc, out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return n;
}
