/* SPDX-License-Identifier: MIT */
/*
 * A kernel tree's git state, read without running anything the tree
 * configures (docs/kernel-tree.md, "The cache and what is trusted").
 * `git describe --dirty` refreshes the index, and a refresh runs the
 * tree's core.fsmonitor command and clean filters (git-config(1),
 * gitattributes(5)).  Here HEAD, its ref and packed-refs are read as
 * files (gitrepository-layout(5)); the dirty state compares the blob
 * ids of the files a build reads (git hash-object --no-filters) with
 * the commit's (git ls-tree), two commands that read no index, run with
 * the settings that could run a command overridden.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktree_cache.h"
#include "../../lib/progpath.h"

struct gitdirs {
	char git[PATH_MAX];     /* the work tree's git directory */
	char common[PATH_MAX];  /* where refs live (a worktree's commondir) */
};

/* `path` opened for reading when it is a regular file, without blocking
 * on a FIFO (open(2), O_NONBLOCK; a regular file ignores it); NULL
 * otherwise. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* The first line of `dir`/`rel` into buf (no newline); false if none. */
static bool read_line(const char *dir, const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX * 2];
	FILE *f;
	bool ok;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	if (!(f = open_regular(p)))
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\r\n")] = 0;
	return ok && buf[0];
}

/* A path read from a git file, relative to `base` unless absolute. */
static bool resolve(const char *base, const char *p, char *out)
{
	char tmp[PATH_MAX * 3];

	snprintf(tmp, sizeof(tmp), "%s%s%s", *p == '/' ? "" : base, *p == '/' ? "" : "/", p);
	return realpath(tmp, out) != NULL;
}

/* root/.git: a directory, or a file "gitdir: PATH" (a worktree); the
 * common directory from its "commondir" file. */
static bool git_dirs(const char *root, struct gitdirs *d)
{
	char p[PATH_MAX + 8], line[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/.git", root);
	if (stat(p, &st))
		return false;
	if (S_ISDIR(st.st_mode)) {
		if (!realpath(p, d->git))
			return false;
	} else if (!read_line(root, ".git", line, sizeof(line)) ||
		   strncmp(line, "gitdir: ", 8) || !resolve(root, line + 8, d->git)) {
		return false;
	}
	if (!read_line(d->git, "commondir", line, sizeof(line)) ||
	    !resolve(d->git, line, d->common))
		memcpy(d->common, d->git, sizeof(d->git));
	return true;
}

/* Is s an object id (40 or 64 hex digits, then the end or a space)? */
static bool is_oid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return (n == 40 || n == 64) && (!s[n] || s[n] == ' ');
}

/* A ref name lockbench will open as a file under the git directory. */
static bool ref_ok(const char *r)
{
	return !strncmp(r, "refs/", 5) && !strstr(r, "..") && !strstr(r, "//") &&
	       strspn(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789/._-+@") == strlen(r);
}

/* The commit of ref `ref`: its loose file, else packed-refs.  With
 * `tag`, also a packed tag's peeled id ("^ID" on the next line). */
static bool ref_oid(const struct gitdirs *d, const char *ref, char oid[65])
{
	char line[PATH_MAX + 80], p[PATH_MAX + 16];
	FILE *f;
	bool found = false;

	if (!ref_ok(ref))
		return false;
	if ((read_line(d->git, ref, line, sizeof(line)) ||
	     read_line(d->common, ref, line, sizeof(line))) && is_oid(line)) {
		snprintf(oid, 65, "%.*s", (int)strspn(line, "0123456789abcdef"), line);
		return true;
	}
	snprintf(p, sizeof(p), "%s/packed-refs", d->common);
	f = open_regular(p);
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t n = strspn(line, "0123456789abcdef");

		line[strcspn(line, "\r\n")] = 0;
		if (is_oid(line) && line[n] == ' ' && !strcmp(line + n + 1, ref)) {
			snprintf(oid, 65, "%.*s", (int)n, line);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* HEAD's commit: detached (an id), or "ref: NAME" resolved. */
static bool head_oid(const struct gitdirs *d, char oid[65])
{
	char line[PATH_MAX + 16];

	if (!read_line(d->git, "HEAD", line, sizeof(line)))
		return false;
	if (is_oid(line)) {
		snprintf(oid, 65, "%.64s", line);
		return true;
	}
	return !strncmp(line, "ref: ", 5) && ref_oid(d, line + 5, oid);
}

/* A tag naming commit `oid` exactly (packed, or a loose lightweight
 * one) into tag[len]; false if none. */
static bool exact_tag(const struct gitdirs *d, const char *oid, char *tag, size_t len)
{
	char line[PATH_MAX + 80], p[PATH_MAX + 16], last[PATH_MAX + 80] = "", o[65];
	struct dirent **ents;
	FILE *f;
	int n;

	snprintf(p, sizeof(p), "%s/packed-refs", d->common);
	f = open_regular(p);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (is_oid(line) && !strncmp(line + strspn(line, "0123456789abcdef"), " refs/tags/", 11))
			snprintf(last, sizeof(last), "%s", line + strspn(line, "0123456789abcdef") + 11);
		else if (line[0] != '^')
			last[0] = 0;
		if (last[0] && !strncmp(line + (line[0] == '^'), oid, strlen(oid))) {
			snprintf(tag, len, "%s", last);
			fclose(f);
			return true;
		}
	}
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "%s/refs/tags", d->common);
	n = scandir(p, &ents, NULL, alphasort);
	tag[0] = 0;
	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "refs/tags/%s", ents[i]->d_name);
		if (!tag[0] && ents[i]->d_name[0] != '.' && ref_oid(d, line, o) && !strcmp(o, oid))
			snprintf(tag, len, "%s", ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return tag[0] != 0;
}

/*
 * The environment of every git run, which no git version's reading of
 * the tree's configuration can undo (git(1), "ENVIRONMENT VARIABLES"):
 * GIT_ALLOW_PROTOCOL set to no protocol at all overrides every
 * protocol.*.allow (since git 2.6.1, before protocol.allow existed), so
 * no transport runs (an ext:: remote is a command; a promisor remote's
 * lazy fetch is a transport), and GIT_NO_LAZY_FETCH (recent git, and
 * security updates of older ones) says so again; no system or global configuration or
 * attributes, no replace objects, no prompt, no optional locks.
 */
static const char *const git_env[][2] = {
	{"GIT_ALLOW_PROTOCOL", "none"}, {"GIT_PROTOCOL_FROM_USER", "0"},
	{"GIT_NO_LAZY_FETCH", "1"}, {"GIT_CONFIG_NOSYSTEM", "1"},
	{"GIT_CONFIG_GLOBAL", "/dev/null"}, {"GIT_CONFIG_SYSTEM", "/dev/null"},
	{"GIT_ATTR_NOSYSTEM", "1"}, {"GIT_NO_REPLACE_OBJECTS", "1"},
	{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_ASKPASS", "/bin/false"},
	{"SSH_ASKPASS", "/bin/false"}, {"GIT_OPTIONAL_LOCKS", "0"},
	{"LC_ALL", "C"}, {"", ""},
};

/*
 * Run git in `root` on its git directory with `args` (NULL-ended) then
 * `files`, stdout into `log`; every setting that could make these
 * commands run something overridden (git-config(1)).  Exit status, or
 * -1.
 */
static int git_run(const char *root, const struct gitdirs *d, const char *const *args,
		   const char *const *files, const char *log)
{
	static const char *const neutral[] = {
		"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-c", "protocol.allow=never", "-c", "protocol.ext.allow=never",
		"-c", "protocol.file.allow=never", "-c", "protocol.ssh.allow=never",
		"-c", "protocol.git.allow=never", "-c", "protocol.http.allow=never",
		"-c", "protocol.https.allow=never", "-c", "core.pager=cat",
		"-c", "core.askPass=", "-c", "credential.helper=",
		"-c", "core.sshCommand=false",
		"-c", "diff.external=", "-c", "core.attributesFile=/dev/null", NULL};
	char gd[PATH_MAX + 16], wt[PATH_MAX + 16], git[PATH_MAX];
	const char *argv[256];
	unsigned n = 0;

	snprintf(gd, sizeof(gd), "--git-dir=%s", d->git);
	snprintf(wt, sizeof(wt), "--work-tree=%s", root);
	argv[n++] = "git";
	argv[n++] = gd;
	argv[n++] = wt;
	for (unsigned i = 0; neutral[i]; i++)
		argv[n++] = neutral[i];
	for (unsigned i = 0; args[i] && n < 80; i++)
		argv[n++] = args[i];
	for (unsigned i = 0; files[i]; i++)
		if (n < 254)
			argv[n++] = files[i];
	argv[n] = NULL;
	/* git found before the chdir into root, never in a relative PATH entry */
	if (prog_resolve("git", git, sizeof(git)))
		return -1;
	argv[0] = git;
	return kcache_run((char *const *)argv, log, false, root, git_env);
}

/* The whole of file `path` (NUL-ended) or NULL; *n its length. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = open_regular(path);
	char *s = NULL;
	size_t cap = 0;

	*n = 0;
	if (f && (s = malloc(cap = 65536)))
		for (size_t k; (k = fread(s + *n, 1, cap - *n - 1, f)) > 0;) {
			char *t;

			*n += k;
			if (cap - *n > 1 || !(t = realloc(s, cap * 2)))
				continue;
			s = t;
			cap *= 2;
		}
	if (f)
		fclose(f);
	if (s)
		s[*n] = 0;
	return s;
}

/* Does every file hash (blob id, hash-object's lines in `ids`) as the
 * commit holds it (ls-tree -z records in `tree`, n bytes)? */
static bool files_clean(const char *const *files, const char *ids, const char *tree,
			size_t n)
{
	for (unsigned i = 0; files[i]; i++) {
		const char *id = ids, *rec = tree;
		bool same = false;

		for (unsigned k = 0; k < i && id; k++)
			id = (id = strchr(id, '\n')) ? id + 1 : NULL;
		for (; !same && id && rec < tree + n; rec += strlen(rec) + 1) {
			const char *tab = strchr(rec, '\t'), *oid = tab ? tab - 1 : NULL;

			while (oid && oid > rec && oid[-1] != ' ')
				oid--;
			same = tab && !strcmp(tab + 1, files[i]) &&
			       (size_t)(tab - oid) == strcspn(id, "\n") &&
			       !strncmp(oid, id, (size_t)(tab - oid));
		}
		if (!same)
			return false;
	}
	return true;
}

/* Do the files differ from the commit?  1, 0, -1 when git cannot tell
 * (not installed, or it refuses the repository), -2 when it was killed
 * at the time limit. */
static int dirty(const char *root, const struct gitdirs *d, const char *oid,
		 const char *const *files, const char *tmp)
{
	const char *lst[] = {"ls-tree", "-z", "--full-name", oid, "--", NULL};
	const char *hob[] = {"hash-object", "--no-filters", "--", NULL};
	char la[PATH_MAX + 16], lb[PATH_MAX + 16], *tree = NULL, *ids = NULL;
	size_t nt = 0, ni;
	int rc = -1;

	snprintf(la, sizeof(la), "%s/git-tree.log", tmp);
	snprintf(lb, sizeof(lb), "%s/git-ids.log", tmp);
	int st = git_run(root, d, lst, files, la);

	if (!st)
		st = git_run(root, d, hob, files, lb);
	if (!st && (tree = slurp(la, &nt)) && (ids = slurp(lb, &ni)))
		rc = !files_clean(files, ids, tree, nt);
	else if (st == KCACHE_LATE)
		rc = -2;
	free(tree);
	free(ids);
	unlink(la);
	unlink(lb);
	return rc;
}

/* ---- files git would block on ------------------------------------- */

/* kcache_irregular(), said of git. */
static bool special(const char *path, const char *name, bool dir_ok, char *why, size_t len)
{
	size_t n;

	if (!kcache_irregular(path, name, dir_ok, why, len))
		return false;
	n = strlen(why);
	snprintf(why + n, len - n, " (git would wait on it)");
	return true;
}

/* The value of a "path = VALUE" line of an include section, unquoted,
 * into out; false for another line. */
static bool include_path(char *line, char *out, size_t len)
{
	char *p = line + strspn(line, " \t"), *e;

	if (strncasecmp(p, "path", 4) || !strchr(" \t=", p[4]))
		return false;
	p += 4 + strspn(p + 4, " \t");
	if (*p++ != '=')
		return false;
	p += strspn(p, " \t");
	e = p + strcspn(p, "\r\n");
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e - p >= 2 && *p == '"' && e[-1] == '"') {
		p++;
		e--;
	}
	snprintf(out, len, "%.*s", (int)(e - p), p);
	return out[0] != 0;
}

/* A configuration file and every file its include.path and
 * includeIf.*.path name (git-config(1), "Includes": relative to the
 * including file's directory, "~/" the home directory), to `depth`
 * levels: any that is not a regular file refused, named in why. */
static bool config_special(const char *cfg, int depth, char *why, size_t len)
{
	char line[PATH_MAX + 64], val[PATH_MAX], next[PATH_MAX * 2 + 8];
	const char *home = getenv("HOME"), *slash = strrchr(cfg, '/');
	bool in_include = false, bad = special(cfg, cfg, false, why, len);
	FILE *f = bad || depth < 0 ? NULL : open_regular(cfg);

	while (f && !bad && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		if (*p == '[') {
			in_include = !strncasecmp(p + 1, "include", 7);
			p = strchr(p, ']');
			if (!p)
				continue;
			p++;
		}
		if (!in_include || !include_path(p, val, sizeof(val)))
			continue;
		if (!strncmp(val, "~/", 2))
			snprintf(next, sizeof(next), "%s/%s", home ? home : "", val + 2);
		else
			snprintf(next, sizeof(next), "%s%.*s%s", val[0] == '/' ? "" : "",
				 val[0] == '/' ? 0 : (int)(slash ? slash - cfg + 1 : 0), cfg, val);
		bad = config_special(next, depth - 1, why, len);
	}
	if (f)
		fclose(f);
	return bad;
}

/* Any entry of directory `dir` that is not a regular file (nor a
 * directory); the first one named in why. */
static bool dir_special(const char *dir, char *why, size_t len)
{
	char p[PATH_MAX * 2];
	DIR *d = opendir(dir);
	struct dirent *e;
	bool bad = false;

	while (d && !bad && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type == DT_REG || e->d_type == DT_DIR)
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < sizeof(p))
			bad = special(p, p, true, why, len);
	}
	if (d)
		closedir(d);
	return bad;
}

/* Files of the git directories that git (or lockbench) reads and that
 * are not regular files: its configuration with what it includes,
 * HEAD, packed-refs, the loose objects and packs, the alternates. */
static bool git_special(const struct gitdirs *d, char *why, size_t len)
{
	static const char *const plain[] = {"HEAD", "packed-refs", "commondir",
		"objects/info/alternates", "index", NULL};
	char p[PATH_MAX * 2], name[PATH_MAX];
	const char *dirs[2] = {d->git, d->common};

	for (unsigned k = 0; k < 2; k++) {
		snprintf(p, sizeof(p), "%s/config", dirs[k]);
		if (config_special(p, 5, why, len))
			return true;
		for (unsigned i = 0; plain[i]; i++) {
			snprintf(p, sizeof(p), "%s/%s", dirs[k], plain[i]);
			if (special(p, p, false, why, len))
				return true;
		}
	}
	for (unsigned i = 0; i < 257; i++) {
		if (i < 256)
			snprintf(name, sizeof(name), "objects/%02x", i);
		else
			snprintf(name, sizeof(name), "objects/pack");
		snprintf(p, sizeof(p), "%s/%s", d->common, name);
		if (dir_special(p, why, len))
			return true;
	}
	return false;
}

json_t *kcache_git_state(const char *root, const char *const *files, const char *tmp,
			 char *why, size_t len)
{
	struct gitdirs *d = calloc(1, sizeof(*d));
	char oid[65], tag[256], desc[320], dotgit[PATH_MAX + 8];
	json_t *o = NULL;
	int dt;

	snprintf(dotgit, sizeof(dotgit), "%s/.git", root);
	if (d && (special(dotgit, ".git", true, why, len) ||
		  (git_dirs(root, d) && git_special(d, why, len)))) {
		free(d);
		return NULL;
	}
	if (!d || !git_dirs(root, d) || !head_oid(d, oid)) {
		free(d);
		return json_null();
	}
	if (!exact_tag(d, oid, tag, sizeof(tag)))
		snprintf(tag, sizeof(tag), "%.12s", oid);
	dt = dirty(root, d, oid, files, tmp);
	free(d);
	if (dt == -2) {
		snprintf(why, len, "git did not finish in %u s on the tree and was killed "
			 "(LOCKBENCH_KTREE_TIMEOUT sets the limit)", kcache_child_limit());
		return NULL;
	}
	snprintf(desc, sizeof(desc), "%s%s", tag, dt > 0 ? "-dirty" : "");
	o = json_pack("{s:s, s:s, s:o}", "describe", desc, "commit", oid, "dirty",
		      dt < 0 ? json_null() : json_boolean(dt > 0));
	return o ? o : json_null();
}

/* The id line `i` of hash-object's output (`ids`), or NULL. */
static const char *id_line(const char *ids, unsigned i)
{
	for (unsigned k = 0; k < i && ids; k++)
		ids = (ids = strchr(ids, '\n')) ? ids + 1 : NULL;
	return ids;
}

int kcache_git_changed(const char *root, const char *const *files, const char *tmp,
		       bool *changed)
{
	const char *hob[] = {"hash-object", "--no-filters", "--", NULL};
	struct gitdirs *d = calloc(1, sizeof(*d));
	char oid[65], la[PATH_MAX + 16], lb[PATH_MAX + 16], *tree = NULL, *ids = NULL;
	const char *lst[] = {"ls-tree", "-z", "--full-name", oid, "--", NULL};
	size_t nt = 0, ni;
	int rc = -1;

	for (unsigned i = 0; files[i]; i++)
		changed[i] = false;
	snprintf(la, sizeof(la), "%s/git-tree.log", tmp);
	snprintf(lb, sizeof(lb), "%s/git-ids.log", tmp);
	if (d && files[0] && git_dirs(root, d) && head_oid(d, oid) &&
	    !git_run(root, d, lst, files, la) && !git_run(root, d, hob, files, lb) &&
	    (tree = slurp(la, &nt)) && (ids = slurp(lb, &ni))) {
		for (unsigned i = 0; files[i]; i++) {
			const char *one[] = {files[i], NULL}, *id = id_line(ids, i);

			changed[i] = !id || !files_clean(one, id, tree, nt);
		}
		rc = 0;
	}
	free(tree);
	free(ids);
	free(d);
	unlink(la);
	unlink(lb);
	return rc;
}
