/* SPDX-License-Identifier: MIT */
/*
 * machine_env.c - the kernel's configuration and environment as JSON,
 * the part of the machine description (machine_describe()) that
 * explains a difference between two runs without being a frequency:
 * clocksource, preemption model, kernel command line, cpuidle, the
 * hypervisor, transparent huge pages.  Every file is read through the
 * sysfs root (tests point it at a fake tree); a missing one is null.
 * docs/json.md documents each member.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine_impl.h"
#include "sysfs.h"
#include "text.h"

#define CLOCKSOURCE_DIR "/sys/devices/system/clocksource/clocksource0"
#define CPUIDLE_DIR CPU_DIR "/cpuidle"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* A file's content as a JSON string, null when unreadable. */
static json_t *str_at(const char *path)
{
	char buf[512];

	return sysfs_read_str(path, buf, sizeof(buf)) ? json_null() : json_text(buf);
}

/* The [bracketed] choice of a sysfs selector ("always [madvise] never")
 * into @out; -ENOENT when there is none. */
static int selected(const char *text, char *out, size_t len)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;

	if (!a || !b || (size_t)(b - a - 1) >= len)
		return -ENOENT;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = '\0';
	return 0;
}

/* {current, available}: the clock every timestamp of a run reads. */
static json_t *describe_clocksource(void)
{
	json_t *cur = str_at(CLOCKSOURCE_DIR "/current_clocksource");

	if (json_is_null(cur))
		return cur;
	return json_pack("{s:o, s:o}", "current", cur, "available",
			 str_at(CLOCKSOURCE_DIR "/available_clocksource"));
}

/* The value of the first "key=" word of the command line @cmd into
 * @out ("" for a bare "key"); -ENOENT when absent. */
static int cmdline_value(const char *cmd, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	for (const char *p = cmd; *p;) {
		size_t w;

		while (isspace((unsigned char)*p))
			p++;
		w = strcspn(p, " \t\n");
		if (w >= k && !strncmp(p, key, k) && (w == k || p[k] == '=')) {
			size_t v = w == k ? 0 : w - k - 1;

			if (v >= len)
				v = len - 1;
			memcpy(out, p + k + (w > k), v);
			out[v] = '\0';
			return 0;
		}
		p += w;
	}
	return -ENOENT;
}

/* The command-line parameters that change lock timings. */
static const char *const notable[] = {
	"mitigations", "nohz_full", "isolcpus", "rcu_nocbs", "nosmt", "idle",
	"intel_idle.max_cstate", "processor.max_cstate", "cpuidle.off",
	"preempt", "threadirqs", "transparent_hugepage", "nohz", "irqaffinity",
	"intel_pstate", "amd_pstate", "skew_tick", "clocksource", "tsc",
};

/* {line, notable: {key: value}} from /proc/cmdline, or null. */
static json_t *describe_cmdline(char *cmd, size_t len)
{
	json_t *o, *n;
	char v[256];

	if (sysfs_read_str("/proc/cmdline", cmd, len))
		return json_null();
	n = json_object();
	for (size_t i = 0; n && i < sizeof(notable) / sizeof(notable[0]); i++)
		if (!cmdline_value(cmd, notable[i], v, sizeof(v)))
			json_object_set_new(n, notable[i], json_text(v));
	o = json_pack("{s:o, s:o}", "line", json_text(cmd), "notable", n);
	return o;
}

/* The default model of /boot/config-RELEASE (CONFIG_PREEMPT_NONE,
 * _VOLUNTARY, CONFIG_PREEMPT) into @out; -ENOENT when unknown. */
static int boot_config_preempt(char *out, size_t len)
{
	static const char *const opts[][2] = {
		{"CONFIG_PREEMPT_NONE=y", "none"},
		{"CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"},
		{"CONFIG_PREEMPT=y", "full"},
	};
	char rel[128], rpath[256], *line = NULL;
	size_t cap = 0;
	int found = -ENOENT;
	FILE *f;

	if (sysfs_read_str("/proc/sys/kernel/osrelease", rel, sizeof(rel)))
		return -ENOENT;
	snprintf(rpath, sizeof(rpath), "/boot/config-%s", rel);
	if (!(f = sysfs_fopen(rpath)))
		return -ENOENT;
	while (found && getline(&line, &cap, f) > 0)
		for (size_t i = 0; found && i < 3; i++)
			if (!strncmp(line, opts[i][0], strlen(opts[i][0]))) {
				snprintf(out, len, "%s", opts[i][1]);
				found = 0;
			}
	free(line);
	fclose(f);
	return found;
}

/*
 * The preemption model: the current choice of debugfs's sched/preempt
 * (PREEMPT_DYNAMIC kernels, "none voluntary (full)"), else preempt= on
 * the command line of a dynamic kernel, else what the version string
 * (uname -v) says: PREEMPT_RT, PREEMPT_DYNAMIC (default unknown),
 * PREEMPT (full) or neither (none or voluntary, not told apart there).
 */
static json_t *describe_preemption(const char *cmd)
{
	char buf[256], model[32];
	bool dynamic;

	if (!sysfs_read_str("/sys/kernel/debug/sched/preempt", buf, sizeof(buf))) {
		char *a = strchr(buf, '('), *b = a ? strchr(a, ')') : NULL;

		if (a && b && b - a - 1 < (long)sizeof(model)) {
			memcpy(model, a + 1, (size_t)(b - a - 1));
			model[b - a - 1] = '\0';
			return json_pack("{s:o, s:b, s:s}", "model", json_text(model),
					 "dynamic", true, "source", "debugfs sched/preempt");
		}
	}
	if (sysfs_read_str("/proc/sys/kernel/version", buf, sizeof(buf)))
		return json_null();
	dynamic = strstr(buf, "PREEMPT_DYNAMIC") != NULL;
	if (strstr(buf, "PREEMPT_RT"))
		return json_pack("{s:s, s:b, s:s}", "model", "rt", "dynamic", false,
				 "source", "kernel version");
	if (dynamic && cmd && !cmdline_value(cmd, "preempt", model, sizeof(model)))
		return json_pack("{s:o, s:b, s:s}", "model", json_text(model), "dynamic", true,
				 "source", "command line");
	if (dynamic && !boot_config_preempt(model, sizeof(model)))
		return json_pack("{s:o, s:b, s:s}", "model", json_text(model), "dynamic", true,
				 "source", "boot config default");
	if (dynamic)
		return json_pack("{s:n, s:b, s:s}", "model", "dynamic", true,
				 "source", "kernel version");
	return json_pack("{s:s, s:b, s:s}", "model",
			 strstr(buf, "PREEMPT") ? "full" : "none or voluntary",
			 "dynamic", false, "source", "kernel version");
}

/* cpu0's idle states: [{name, latency_us, disabled}]. */
static json_t *idle_states(void)
{
	json_t *a = json_array();
	char p[160], name[64];

	for (int i = 0; a && i < 16; i++) {
		uint64_t lat, dis;

		snprintf(p, sizeof(p), CPU_DIR "/cpu0/cpuidle/state%d/name", i);
		if (sysfs_read_str(p, name, sizeof(name)))
			break;
		snprintf(p, sizeof(p), CPU_DIR "/cpu0/cpuidle/state%d/latency", i);
		if (sysfs_read_u64(p, &lat))
			lat = UINT64_MAX;
		snprintf(p, sizeof(p), CPU_DIR "/cpu0/cpuidle/state%d/disable", i);
		if (sysfs_read_u64(p, &dis))
			dis = 0;
		json_array_append_new(a, json_pack("{s:o, s:o, s:b}", "name", json_text(name),
			"latency_us", lat == UINT64_MAX ? json_null() : json_integer((json_int_t)lat),
			"disabled", dis != 0));
	}
	return a;
}

/* {driver, governor, states}, or null without cpuidle. */
static json_t *describe_cpuidle(void)
{
	json_t *drv = str_at(CPUIDLE_DIR "/current_driver");
	json_t *gov = str_at(CPUIDLE_DIR "/current_governor");

	if (json_is_null(gov)) {
		json_decref(gov);
		gov = str_at(CPUIDLE_DIR "/current_governor_ro");
	}
	if (json_is_null(drv) && json_is_null(gov))
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "driver", drv, "governor", gov,
			 "states", idle_states());
}

/* Whether /proc/cpuinfo's flags carry `hypervisor` (x86): 1, 0, -errno. */
static int cpuinfo_hypervisor(void)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f;

	f = sysfs_fopen("/proc/cpuinfo");
	if (!f)
		return -errno;
	while (!found && getline(&line, &cap, f) > 0)
		found = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
	free(line);
	fclose(f);
	return found;
}

/*
 * {detected, type, vendor, product}: /sys/hypervisor/type (Xen and
 * others that export it), the x86 `hypervisor` CPU flag, and DMI's
 * system vendor and product (e.g. "QEMU", "KVM", "VMware, Inc.",
 * "Microsoft Corporation" / "Virtual Machine", "Amazon EC2").
 */
static json_t *describe_hypervisor(void)
{
	json_t *type = str_at("/sys/hypervisor/type");
	json_t *vendor = str_at("/sys/class/dmi/id/sys_vendor");
	json_t *product = str_at("/sys/class/dmi/id/product_name");
	int flag = cpuinfo_hypervisor();
	static const char *const vm_words[] = {"QEMU", "KVM", "VMware", "VirtualBox",
					       "Virtual Machine", "Xen", "Amazon EC2",
					       "Google Compute Engine", "Bochs",
					       "Cloud Hypervisor", "Firecracker", "Oxide"};
	bool dmi_vm = false;
	json_t *detected;

	for (size_t i = 0; i < sizeof(vm_words) / sizeof(vm_words[0]); i++)
		dmi_vm |= (json_is_string(vendor) &&
			   strstr(json_string_value(vendor), vm_words[i])) ||
			  (json_is_string(product) &&
			   strstr(json_string_value(product), vm_words[i]));
	if (flag > 0 || json_is_string(type) || dmi_vm)
		detected = json_true();
	else if (flag == 0)
		detected = json_false();
	else
		detected = json_null(); /* no cpuinfo: cannot tell */
	return json_pack("{s:o, s:o, s:o, s:o}", "detected", detected, "type", type,
			 "vendor", vendor, "product", product);
}

/* {enabled, defrag}: the selected choice of each, or null without THP. */
static json_t *describe_thp(void)
{
	char buf[256], en[32], df[32];

	if (sysfs_read_str(THP_DIR "/enabled", buf, sizeof(buf)) ||
	    selected(buf, en, sizeof(en)))
		return json_null();
	if (sysfs_read_str(THP_DIR "/defrag", buf, sizeof(buf)) ||
	    selected(buf, df, sizeof(df)))
		return json_pack("{s:o, s:n}", "enabled", json_text(en), "defrag");
	return json_pack("{s:o, s:o}", "enabled", json_text(en), "defrag", json_text(df));
}

json_t *machine_environment(void)
{
	json_t *o = json_object();

	if (o && machine_describe_env(o)) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

int machine_describe_env(json_t *o)
{
	char cmd[4096];
	json_t *line = describe_cmdline(cmd, sizeof(cmd));
	int bad = 0;

	bad |= json_object_set_new(o, "clocksource", describe_clocksource());
	bad |= json_object_set_new(o, "preemption",
				   describe_preemption(json_is_null(line) ? NULL : cmd));
	bad |= json_object_set_new(o, "cmdline", line);
	bad |= json_object_set_new(o, "cpuidle", describe_cpuidle());
	bad |= json_object_set_new(o, "hypervisor", describe_hypervisor());
	bad |= json_object_set_new(o, "thp", describe_thp());
	return bad ? -ENOMEM : 0;
}
