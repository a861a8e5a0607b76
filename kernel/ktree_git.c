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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktree_cache.h"
#include "progpath.h"

struct gitdirs {
	char git[PATH_MAX];     /* the work tree's git directory */
	char common[PATH_MAX];  /* where refs live (a worktree's commondir) */
};

/* The first line of `dir`/`rel` into buf (no newline); false if none. */
static bool read_line(const char *dir, const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX * 2];
	struct stat st;
	FILE *f;
	bool ok;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	if (stat(p, &st) || !S_ISREG(st.st_mode) || !(f = fopen(p, "r")))
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
	f = fopen(p, "r");
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
	f = fopen(p, "r");
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
		"-c", "protocol.allow=never", "-c", "core.pager=cat", NULL};
	char gd[PATH_MAX + 16], wt[PATH_MAX + 16], git[PATH_MAX];
	const char *argv[256];
	unsigned n = 0;
	int st;
	pid_t pid;

	snprintf(gd, sizeof(gd), "--git-dir=%s", d->git);
	snprintf(wt, sizeof(wt), "--work-tree=%s", root);
	argv[n++] = "git";
	argv[n++] = gd;
	argv[n++] = wt;
	for (unsigned i = 0; neutral[i]; i++)
		argv[n++] = neutral[i];
	for (unsigned i = 0; args[i] && n < 32; i++)
		argv[n++] = args[i];
	for (unsigned i = 0; files[i]; i++)
		if (n < 254)
			argv[n++] = files[i];
	argv[n] = NULL;
	/* git found before the chdir below, never in a relative PATH entry */
	if (prog_resolve("git", git, sizeof(git)) || (pid = fork()) < 0)
		return -1;
	kcache_sig_child(pid);
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd < 0 || null < 0 || dup2(fd, 1) < 0 || dup2(null, 2) < 0 ||
		    dup2(null, 0) < 0 || chdir(root))
			_exit(127);
		setenv("GIT_OPTIONAL_LOCKS", "0", 1);
		setenv("GIT_NO_LAZY_FETCH", "1", 1);
		setenv("GIT_TERMINAL_PROMPT", "0", 1);
		setenv("LC_ALL", "C", 1);
		execv(git, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			kcache_sig_child(0);
			return -1;
		}
	kcache_sig_child(0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole of file `path` (NUL-ended) or NULL; *n its length. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
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

/* Do the files differ from the commit?  1, 0, or -1 when git cannot
 * tell (not installed, or it refuses the repository). */
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
	if (!git_run(root, d, lst, files, la) && !git_run(root, d, hob, files, lb) &&
	    (tree = slurp(la, &nt)) && (ids = slurp(lb, &ni)))
		rc = !files_clean(files, ids, tree, nt);
	free(tree);
	free(ids);
	unlink(la);
	unlink(lb);
	return rc;
}

json_t *kcache_git_state(const char *root, const char *const *files, const char *tmp)
{
	struct gitdirs *d = calloc(1, sizeof(*d));
	char oid[65], tag[256], desc[320];
	json_t *o = NULL;
	int dt;

	if (!d || !git_dirs(root, d) || !head_oid(d, oid)) {
		free(d);
		return json_null();
	}
	if (!exact_tag(d, oid, tag, sizeof(tag)))
		snprintf(tag, sizeof(tag), "%.12s", oid);
	dt = dirty(root, d, oid, files, tmp);
	snprintf(desc, sizeof(desc), "%s%s", tag, dt > 0 ? "-dirty" : "");
	o = json_pack("{s:s, s:s, s:o}", "describe", desc, "commit", oid, "dirty",
		      dt < 0 ? json_null() : json_boolean(dt > 0));
	free(d);
	return o ? o : json_null();
}
