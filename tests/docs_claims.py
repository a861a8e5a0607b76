#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The claims of the docs that a program can check, checked.

usage: tests/docs_claims.py ROOT FACTS [KIND...]

ROOT is a source tree (README.md, docs/*.md, lockbench.1, the sources);
FACTS a directory of what the binary said, gathered by tests/e2e_docs.sh:
help/*.txt (`--help` and `lockbench help CMD`), config.json (the JSON
`config` of a run with the defaults), exits.txt ("COMMAND CODE" per
line: exit statuses the binary was seen to return) and schemas.txt
("NAME VERSION" per line: the schemas of the JSON it wrote).

Each disagreement is one line "KIND: FILE:LINE: what", KIND one of
option, default, exit, schema, path, section, diff; exit status 1 when
there is one.  With KINDs, only those checks run.
"""
import bisect
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT, FACTS = sys.argv[1], sys.argv[2]
problems = []
# Per kind, the claims compared, printed on stderr at the end: a check
# that finds no claim is broken (e2e_docs.sh fails it).
checked = {}


def count(kind):
    checked[kind] = checked.get(kind, 0) + 1


# The repository's top folders; kernel/ and scripts/ are also folders of
# a Linux tree, so a path there is only checked when its folder is ours.
TOP = ("cli", "docs", "examples", "kernel", "lib", "locks", "output", "scripts",
       "tests", "topology", "workloads")
AMBIGUOUS = ("kernel", "scripts")
TOPFILES = ("README.md", "Makefile", "main.c", "lockbench.1", "lockbench.pc.in")

# Options the docs name that are not lockbench's, each with whose it is.
FOREIGN = {
    "--at-threads": "scripts/plot", "--ignore-label": "scripts/plot",
    "--x": "scripts/plot", "--arm64": "tests/e2e_ktree_real.sh",
    "--self-test": "tests/e2e_vm.sh", "--prepare": "scripts/vm.sh", "--skip-base": "lkp install",
    "--cflags": "pkg-config", "--variable": "pkg-config",
    "--outp": "the man page's example of an abbreviated option, refused",
}


def report(kind, path, line, what):
    problems.append("%s: %s:%d: %s" % (kind, os.path.relpath(path, ROOT), line, what))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def lineno(text, pos):
    return text.count("\n", 0, pos) + 1


def man_text(s):
    """Man source as text: escapes and fonts gone."""
    s = re.sub(r"\\f[BIRP]", "", s)
    return s.replace("\\-", "-").replace("\\(em", "-").replace("\\&", "")


DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
MAN = "lockbench.1"

# ---- what the binary says ---------------------------------------------------
help_text = {}
for p in sorted(glob.glob(os.path.join(FACTS, "help", "*.txt"))):
    help_text[os.path.basename(p)[:-4]] = open(p, encoding="utf-8").read()
OPT_LINE = re.compile(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)\b(.*)$")


def help_options():
    """{option: {command: default or None}} from every help text."""
    opts = {}
    for cmd, text in help_text.items():
        for line in text.splitlines():
            m = OPT_LINE.match(line)
            if not m:
                continue
            d = re.search(r"\[([^\]]*)\]\s*$", m.group(2))
            opts.setdefault(m.group(1), {})[cmd] = d.group(1) if d else None
        for o in re.findall(r"--[a-z][a-z0-9-]*", text):
            opts.setdefault(o, {})
    return opts


HELP = help_options()


def defaults_of(opt):
    """The defaults --help gives OPT: run's first, then the others'."""
    d = HELP.get(opt, {})
    vals = [d.get("run")] + [v for c, v in sorted(d.items()) if c != "run"]
    return [v for v in vals if v]


def same_value(doc, helpval):
    def norm(s):   # "1, 2, 4, ... up to max" is "1,2,4,..,max"
        s = re.sub(r"\s|\u2026|\.\.", "", s.strip().rstrip(".,;:").lower())
        return re.sub(r",+", ",", s.replace("upto", ","))
    a, b = norm(doc), norm(helpval)
    if a == b or a == b.rstrip("%") or a.rstrip("%") == b:
        return True
    try:
        return float(a.rstrip("%sm")) == float(b.rstrip("%sm"))
    except ValueError:
        return False


# ---- option names --------------------------------------------------------------
def code_spans(text):
    """(position, span) of each `code` span and each indented code line of
    a Markdown text, fenced blocks included; a diff block is skipped (the
    options it adds are the example's)."""
    out, pos, fence = [], 0, None
    for line in text.splitlines(True):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
        elif fence is not None:
            if fence != "diff":
                out.append((pos, line.strip()))
        elif line.startswith("    ") and line.strip():
            out.append((pos, line.strip()))
        else:
            for m in re.finditer(r"`([^`]+)`", line):
                out.append((pos + m.start(1), m.group(1)))
        pos += len(line)
    return out


def command_word(span):
    """The command a code span runs: its first word past sudo, env
    settings and a prompt; "" when it starts with an option."""
    words = [w for w in span.split() if w not in ("$", "sudo", "#")]
    while words and re.match(r"^[A-Z_]+=", words[0]):
        words.pop(0)
    if not words or words[0].startswith("-") or words[0].startswith("["):
        return ""
    return words[0]


def lockbench_spans(text):
    """The code spans whose options are lockbench's: a lockbench command
    line, or options alone (`--lat-sample N`)."""
    for pos, span in code_spans(text):
        w = command_word(span)
        if w == "" or w.endswith("lockbench") or w in ("run", "compare", "import"):
            yield pos, span


# Options that an example diff of the docs adds (the trylock workload's).
EXAMPLE_OPTIONS = set()
for _rel in DOCS:
    for _d in re.findall(r"```diff\n(.*?)```", read(_rel), re.S):
        EXAMPLE_OPTIONS |= {"--" + n for n in re.findall(r'^\+.*\.name = "([a-z-]+)"', _d, re.M)}


def check_doc_options():
    for rel in DOCS:
        text = read(rel)
        for pos, span in lockbench_spans(text):
            for m in re.finditer(r"(?<![\w,-])(--[a-z][a-z0-9-]*)", span):
                o = m.group(1)
                count("option")
                if o not in HELP and o not in FOREIGN and o not in EXAMPLE_OPTIONS:
                    report("option", os.path.join(ROOT, rel), lineno(text, pos),
                           "%s is not an option of lockbench (--help, help CMD)" % o)


def man_options():
    """{option: line} of every option the man page names."""
    src = read(MAN)
    opts = {}
    for i, line in enumerate(src.splitlines(), 1):
        for o in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", man_text(line)):
            opts.setdefault(o, i)
    return opts


def check_man_options():
    man = man_options()
    path = os.path.join(ROOT, MAN)
    for o, line in sorted(man.items()):
        if o not in HELP and o not in FOREIGN:
            report("option", path, line, "%s is not an option of lockbench (--help, help CMD)" % o)
    for o in sorted(HELP):
        if o not in man:
            report("option", path, 1, "%s of --help is not in the man page" % o)


# ---- defaults ------------------------------------------------------------------
SPAN = r"`(--[a-z][a-z0-9-]*)(?: ([^`]*))?`"
# Sentences that state a default, each giving (option, value); the text
# is a paragraph with its lines joined.
DEFAULT_FORMS = [
    # `--long-hold` is 0 by default; `--lat-sample N`, 1 in 256 by default
    re.compile(SPAN + r"[^.;`]{0,30}?([\w./%]+) by default"),
    # `--opt` defaults to N; `--opt` (default N)
    re.compile(SPAN + r"[^.;`]{0,20}?\bdefaults? (?:to |is )?([\d][\w./%]*)"),
    # `--lat-sample` (256)
    re.compile(SPAN + r" \((\d[\w.%]*)\)"),
]
# the default `--ncs-ns 100`; `--freq auto`, the default; by default
# (`--freq auto --numa-balancing auto`)
DEFAULT_SPANS = [
    re.compile(r"\bthe default `(--[^`]*)`"),
    re.compile(r"`(--[^`]*)`,? \(?the default\b"),
    re.compile(r"\bby default,? \(`(--[^`]*)`"),
]


def paragraphs(text):
    """(position, paragraph with its lines joined) of a Markdown text."""
    pos = 0
    for block in re.split(r"(\n\s*\n)", text):
        if block.strip():
            yield pos, re.sub(r"\s*\n\s*", " ", block)
        pos += len(block)


def check_default(path, text, pos, opt, val):
    helps = defaults_of(opt)
    count("default")
    if opt in HELP and helps and not any(same_value(val, h) for h in helps):
        report("default", path, lineno(text, pos),
               "%s: the docs say %s by default, --help says [%s]" % (opt, val, helps[0]))


def check_doc_defaults():
    for rel in DOCS:
        text = read(rel)
        path = os.path.join(ROOT, rel)
        for pos, para in paragraphs(text):
            for form in DEFAULT_FORMS:
                for m in form.finditer(para):
                    check_default(path, text, pos, m.group(1), m.group(3))
            for form in DEFAULT_SPANS:
                for m in form.finditer(para):
                    for o, v in re.findall(r"(--[a-z][a-z0-9-]*) ([^-\s]\S*)", m.group(1)):
                        check_default(path, text, pos, o, v)


def man_paragraphs():
    """(line, heading option, text) of each .TP item of the man page whose
    heading names one long option."""
    lines = read(MAN).splitlines()
    for i, line in enumerate(lines):
        if line != ".TP" or i + 1 >= len(lines):
            continue
        opts = re.findall(r"--[a-z][a-z0-9-]*", man_text(lines[i + 1]))
        body = []
        for l in lines[i + 2:]:
            if l.startswith((".TP", ".SH", ".SS", ".PP")):
                break
            body.append(man_text(l))
        if len(opts) == 1:
            yield i + 2, opts[0], " ".join(body)


def check_man_defaults():
    path = os.path.join(ROOT, MAN)
    for line, opt, body in man_paragraphs():
        m = re.search(r"\bDefault:? (.+?)(?:\.(?:\s|$)|;|\(|,(?= [a-z])|$)", body.replace("...", "\u2026"))
        helps = defaults_of(opt)
        if not m or not helps or m.group(1).startswith(("the ", "from ", "this ")):
            continue
        val = m.group(1)
        count("default")
        if not any(same_value(val, h) for h in helps):
            report("default", path, line, "%s: the man page says Default %s, --help says [%s]"
                   % (opt, val, helps[0]))


# --help's default against the configuration a run with the defaults records
CONFIG_KEYS = {
    "--lat-sample": "lat_sample", "--ncs-ns": "ncs_ns", "--cs-ns": "cs_ns",
    "--cs-lines": "cs_lines", "--ncs-dist": "ncs_dist", "--read-pct": "read_pct",
    "--long-hold": "long_hold_ms", "--stutter": "stutter_s", "--placement": "placement",
    "--stat-interval": "stat_interval_s", "--watchdog": "watchdog_s", "--order": "order",
    "--unit": "unit", "--fake-nodes": "fake_nodes", "--workload": "workload",
}


def check_help_defaults():
    cfg = json.load(open(os.path.join(FACTS, "config.json")))
    for opt, key in sorted(CONFIG_KEYS.items()):
        h = HELP.get(opt, {}).get("run")
        count("default")
        if h is None or key not in cfg or not same_value(str(cfg[key]), h):
            problems.append("default: --help: %s [%s], but a run with the defaults records %s: %s"
                            % (opt, h, key, cfg.get(key)))


# ---- exit statuses ------------------------------------------------------------------
def seen_exits():
    """{command: set of exit statuses} the binary was seen to return."""
    seen = {}
    for line in open(os.path.join(FACTS, "exits.txt")):
        cmd, code = line.split()
        seen.setdefault(cmd, set()).add(int(code))
    return seen


def codes_in(text):
    """The exit statuses a sentence lists: each number that starts a
    clause ("0 success; 1 ..."), and "N or M", "0, 2, 4 or 5"."""
    nums = re.findall(r"(?:^|[;:(,]\s*|\bor\s+|\band\s+)(\d{1,3})\b(?![.\d]| *[-+*/%] *\d| KiB| s\b)", text)
    return {int(n) for n in nums if int(n) < 128}


def check_exit_table():
    seen = seen_exits()
    every = set().union(*seen.values())
    man = man_text(read(MAN))
    m = re.search(r"^\.SH EXIT STATUS\n(.*?)^\.SH ", man, re.S | re.M)
    table = codes_in(re.sub(r"\s+", " ", m.group(1))) if m else set()
    path = os.path.join(ROOT, MAN)
    line = lineno(man, m.start()) if m else 1
    checked["exit"] = len(table & every)
    for c in sorted(every - table):
        report("exit", path, line, "the binary returns %d (%s), EXIT STATUS does not list it"
               % (c, ", ".join(k for k in sorted(seen) if c in seen[k])))
    for rel in ["docs/guide.md", "README.md"]:
        text = read(rel)
        for m2 in re.finditer(r"Exit status: ([^\n]*(?:\n[^\n]+)*)", text):
            for c in sorted(codes_in(m2.group(1)) - table):
                report("exit", os.path.join(ROOT, rel), lineno(text, m2.start()),
                       "exit status %d is not in the man page's EXIT STATUS" % c)
    said = help_text.get("run", "").split("Exit status:")[-1].split(".\n")[0]
    for c in sorted(codes_in(re.sub(r"\s+", " ", said)) - table):
        problems.append("exit: --help: exit status %d is not in the man page's EXIT STATUS" % c)


def check_exit_comments():
    """The comment over each command's declaration in cli/cmds.h that says
    what it returns names every status the command was seen to return."""
    text = read("cli/cmds.h")
    for cmd, codes in sorted(seen_exits().items()):
        fn = "cmd_" + cmd.replace("-", "_")
        m = re.search(r"/\*((?:(?!\*/).)*)\*/\s*(?:[^;{/]*;\s*)*?int %s\(" % fn, text, re.S)
        if not m or "Return" not in m.group(1):
            continue
        count("exit")
        said = re.sub(r"\s*\n\s*\*\s*", " ", m.group(1).split("Return", 1)[1])
        for c in sorted(codes - codes_in(said)):
            report("exit", os.path.join(ROOT, "cli/cmds.h"), lineno(text, m.start()),
                   "%s() returns %d, its comment does not say so" % (fn, c))


# ---- schema versions -------------------------------------------------------------
def check_schemas():
    seen = dict(line.split() for line in open(os.path.join(FACTS, "schemas.txt")))
    rel = "docs/json.md"
    text = read(rel)
    claims = []   # (position, schema name, version)
    title = re.match(r"# .*\bschema (\d+\.\d+)", text)
    if title:
        claims.append((0, "lockbench-results", title.group(1)))
    for m in re.finditer(r"^#+ .*\(schema `([\w-]+)` (\d+\.\d+)\)", text, re.M):
        claims.append((m.start(), m.group(1), m.group(2)))
    for m in re.finditer(r"^\| `schema`, `schema_version` \| string \| `\"([\w-]+)\"`, `\"(\d+\.\d+)\"`", text, re.M):
        claims.append((m.start(), m.group(1), m.group(2)))
    for m in re.finditer(r"^\| `schema_version` \| string \| `\"(\d+\.\d+)\"`", text, re.M):
        claims.append((m.start(), "lockbench-results", m.group(1)))
    for pos, name, v in claims:
        count("schema")
        if seen.get(name) != v:
            report("schema", os.path.join(ROOT, rel), lineno(text, pos),
                   "%s %s, but the binary writes %s" % (name, v, seen.get(name, "no such schema")))
    for name in sorted(set(seen) - {n for _, n, _ in claims}):
        problems.append("schema: docs/json.md: no version given for %s (the binary writes %s)"
                        % (name, seen[name]))


# ---- paths of the tree ------------------------------------------------------------
PATH = re.compile(r"^(?:\./)?((?:%s)/[\w./*\[\]{},+-]*[\w*\]}]|%s)(?::(\d+))?(?:[-,]\d+)*$"
                  % ("|".join(TOP), "|".join(re.escape(f) for f in TOPFILES)))


def path_exists(p):
    built = re.sub(r"\.so$", "", p)   # a plugin or test binary: its source
    if built != p or re.match(r"tests/test_\w+$", p):
        p = built + ".c"
    if re.search(r"[*\[{]", p):
        return bool(glob.glob(os.path.join(ROOT, re.sub(r"\{[^}]*\}", "*", p))))
    return os.path.exists(os.path.join(ROOT, p.rstrip("/")))


def ours(p):
    """Whether a path names a file of this tree, not of a kernel tree (nor
    of lkp-tests, whose lib/ holds its Ruby and shell: ours holds C)."""
    parts = p.split("/")
    if parts[0] == "lib" and not re.search(r"^lib/?$|\.(c|h|\[ch\])$", p):
        return False
    if parts[0] not in AMBIGUOUS or len(parts) < 3:
        return True
    return os.path.isdir(os.path.join(ROOT, os.path.dirname(p)))


def check_path(path, text, pos, token):
    token = token.strip("(),;:.\"'")
    if token.count("[") != token.count("]"):
        token = token.strip("[]")
    m = PATH.match(token)
    # NAME, TAG: a placeholder; build/: made by make
    if not m or re.search(r"[A-Z]{3}", m.group(1)) or "build/" in m.group(1) or not ours(m.group(1)):
        return
    p, line = m.group(1), m.group(2)
    count("path")
    if not path_exists(p):
        report("path", path, lineno(text, pos), "`%s` is not in the tree" % p)
    elif line and os.path.isfile(os.path.join(ROOT, p)):
        n = read(p).count("\n")
        if int(line) > n:
            report("path", path, lineno(text, pos), "`%s:%s`: the file has %d lines" % (p, line, n))


def check_paths():
    for rel in DOCS:
        text = read(rel)
        for pos, span in code_spans(text):
            for tok in span.split():
                check_path(os.path.join(ROOT, rel), text, pos, tok)
    man = man_text(read(MAN))
    for m in re.finditer(r"[\w./*+-]+", man):
        if "/" in m.group(0):
            check_path(os.path.join(ROOT, MAN), man, m.start(), m.group(0))


# ---- section references -------------------------------------------------------------
def norm_title(s):
    return re.sub(r"\s+", " ", s.replace("`", "").replace("*", "")).strip().lower()


def sections_of(rel):
    """Titles a reference may name: headings, and the bold words that
    open a paragraph or list item ("**Units.**"); for the man page its
    .SH and .SS titles."""
    text = read(rel)
    if rel == MAN:
        return [norm_title(t) for t in re.findall(r"^\.S[HS] (.*)$", man_text(text), re.M)]
    heads = re.findall(r"^#+ (.*)$", text, re.M)
    bold = re.findall(r"^(?:[-*] |\d+\. )?\*\*([^*]+?)[.:]?\*\*", text, re.M)
    keys = re.findall(r"^\| `([^`]+)`", text, re.M)   # a table's entries (json.md)
    return [norm_title(t) for t in heads + bold + keys]


def has_section(rel, title):
    want = norm_title(title).rstrip(".")
    for t in sections_of(rel):
        if t == want or (t.startswith(want) and not t[len(want)].isalnum()):
            return True
    return False


REF_FILE = r"(docs/[\w-]+\.md|README(?:\.md)?|lockbench\(1\))"
REF_FORMS = [
    # docs/method.md, "Noise"; README section "X"; lockbench(1), "X"
    re.compile(REF_FILE + r",?:? (?:section |the section )?\"([^\"]+)\""),
    # the README reports ("Performance of the harness")
    re.compile(REF_FILE + r"[\w ]{0,30} \(\"([^\"]+)\"[;:,)]"),
    # lockbench(1), ENVIRONMENT
    re.compile(r"(lockbench\(1\)),? ([A-Z][A-Z ]+[A-Z])\b"),
]


def target(ref):
    if ref.startswith("README"):
        return "README.md"
    return MAN if ref == "lockbench(1)" else ref


def flatten(text):
    """TEXT with its line breaks and comment marks (" * ", "# ", "//",
    the man page's .\") taken out, so that a reference split over two
    lines is seen; and where each line starts in it."""
    out, starts, pos = [], [], 0
    for i, l in enumerate(text.split("\n")):
        if i:
            l = re.sub(r'^[ \t]*(?:\*(?!\*)|#+(?= )|//|\.\\"|)[ \t]*', "", l)
        starts.append(pos)
        out.append(l)
        pos += len(l) + 1
    return " ".join(out), starts


def check_refs_in(rel, text):
    flat, starts = flatten(text)
    at = lambda pos: bisect.bisect_right(starts, pos)
    path = os.path.join(ROOT, rel)
    for form in REF_FORMS:
        for m in form.finditer(flat):
            t = target(m.group(1))
            count("section")
            if os.path.exists(os.path.join(ROOT, t)) and not has_section(t, m.group(2)):
                report("section", path, at(m.start()), "%s has no section \"%s\"" % (t, m.group(2)))
    if rel.endswith(".md"):
        for m in re.finditer(r"\"([A-Z][^\"]{2,60})\" (?:below|above)\b", flat):
            if not has_section(rel, m.group(1)):
                report("section", path, at(m.start()), "no section \"%s\" here" % m.group(1))


def sources():
    """The files whose section references are checked: the docs, and the
    comments of the code, the tests and the scripts (not this test's
    own examples)."""
    out = list(DOCS) + [MAN, "Makefile"]
    for top in TOP:
        if top in ("docs",):
            continue
        for dirpath, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("fixtures", "golden", "data")]
            for f in files:
                if f in ("docs_claims.py", "e2e_docs.sh"):
                    continue
                if f.endswith((".c", ".h", ".sh", ".py", ".def")) or "." not in f:
                    out.append(os.path.relpath(os.path.join(dirpath, f), ROOT))
    return out


def check_sections():
    for rel in sources():
        try:
            text = read(rel)
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        check_refs_in(rel, text)


# ---- an example diff said to apply ---------------------------------------------------
def claimed_diffs():
    """(file, line, diff) of each ```diff block that the paragraph before it
    says `git apply` takes as it stands."""
    for rel in DOCS:
        text = read(rel)
        for m in re.finditer(r"as it stands.*?\n```diff\n(.*?)\n```", text, re.S):
            if "```" not in text[m.start():m.start(1) - 8]:
                yield rel, lineno(text, m.start(1)), m.group(1) + "\n"


def try_diff(rel, line, diff):
    """Apply DIFF to a copy of the tree, then compile the C files it adds
    or changes with the build's warnings (syntax and types only)."""
    tmp = tempfile.mkdtemp()
    try:
        for top in TOP:
            if top not in ("docs", "tests", "examples") and os.path.isdir(os.path.join(ROOT, top)):
                shutil.copytree(os.path.join(ROOT, top), os.path.join(tmp, top))
        for f in TOPFILES:
            if os.path.exists(os.path.join(ROOT, f)):
                shutil.copy(os.path.join(ROOT, f), tmp)
        r = subprocess.run(["git", "apply", "-"], cwd=tmp, input=diff, text=True,
                           capture_output=True)
        if r.returncode:
            report("diff", os.path.join(ROOT, rel), line, "git apply refuses the diff: "
                   + " | ".join(r.stderr.strip().splitlines()[-2:]))
            return
        compile_diff(rel, line, diff, tmp)
    finally:
        shutil.rmtree(tmp)


def compile_diff(rel, line, diff, tmp):
    files = sorted(set(re.findall(r"^\+\+\+ b/(\S+\.c)$", diff, re.M)))
    defs = re.findall(r"^\+\+\+ b/(\S+)/registry\.def$", diff, re.M)
    files += [d + "/workload.c" for d in defs if os.path.exists(os.path.join(tmp, d, "workload.c"))]
    pkg = subprocess.run(["pkg-config", "--cflags", "hwloc", "jansson"],
                         capture_output=True, text=True).stdout.split()
    for f in files:
        r = subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-fsyntax-only", "-Wall",
                            "-Wextra", "-Werror", "-pthread", "-Ilocks", "-Ioutput/results",
                            "-Ioutput/render"] + pkg + [f], cwd=tmp, capture_output=True, text=True)
        if r.returncode:
            report("diff", os.path.join(ROOT, rel), line, "with the diff applied %s does not compile: %s"
                   % (f, " | ".join(r.stderr.strip().splitlines()[:2])))


def check_diffs():
    for rel, line, diff in claimed_diffs():
        count("diff")
        try_diff(rel, line, diff)


CHECKS = {
    "option": (check_doc_options, check_man_options),
    "default": (check_doc_defaults, check_man_defaults, check_help_defaults),
    "exit": (check_exit_table, check_exit_comments),
    "schema": (check_schemas,), "path": (check_paths,), "section": (check_sections,),
    "diff": (check_diffs,),
}
for kind in sys.argv[3:] or sorted(CHECKS):
    for check in CHECKS[kind]:
        check()
for p in problems:
    print(p)
print("checked: " + ", ".join("%s %d" % kv for kv in sorted(checked.items())), file=sys.stderr)
sys.exit(1 if problems else 0)
