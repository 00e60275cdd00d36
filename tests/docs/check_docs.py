#!/usr/bin/env python3
"""Run every shell command shown in README.md and docs/*.md, so the documentation cannot go stale.

Contract
--------
Input: the Markdown files README.md and docs/*.md under --root (default: this checkout).

Blocks. Every fenced block whose language is sh, bash, shell or console is a block of commands.
In a block with lines that start with "$ " (a console transcript), those lines are the commands
and every other line is output; otherwise every line is a command. Comment lines ("# ...") and
blank lines are not commands; a trailing " # comment" is dropped; a line ending in a backslash
continues on the next. Blocks in other languages are not run (see `file` below).

Markers. A block is marked by HTML comments on the lines directly above its opening fence (seen
in the Markdown source, not in the rendered page), each of the form
    <!-- docs-test: DIRECTIVE ARGS -->        (several directives may be joined with ";")
    skip (REASON)          do not run the block; REASON is required and is printed
    set K=V [K=V ...]      append `--set K=V` to each trainbench run/capacity/ab command of the
                           block (not to `run --resume`), so that it is cheap; pairs are separated
                           by spaces and written without shell quoting (axes.model=["mlp"])
    expect-exit N[,N...]   the block's last command must exit N, or one of the listed codes
                           (a gate whose verdict depends on the machine); the others exit 0
    file NAME              write the block (any language) to NAME in the scratch folder; not run
    timeout SECONDS        the block's time limit (default 300)
    output [W|W... ...]    a console block whose shown output must match the real one (see below);
                           each argument is a set of words, separated by "|", any of which may
                           stand for any other (verdicts that depend on the machine:
                           faster|same|noisy|slower)
Shown output. Without `output`, the lines of a console transcript that do not start with "$ " are
shown to the reader and not compared. With it, the lines below each command, up to the next
"$ " line, must match what that command printed (stdout and stderr together), line by line,
after both sides are normalized: every number (digits with an optional sign and decimals, so
figures, durations, dates, run ids and pids) becomes N, every hexadecimal id of 7 to 40 digits
(a commit) becomes N, the words of one `output` set become the set's first word, runs of blanks
become one blank and runs of 3 or more "-", "=" or "─" become "---" (column widths follow the
numbers), the scratch folder's path becomes "." and the binary's path build/trainbench, and
blank lines at the start and end are dropped. A shown line that is exactly "..." stands for any
number of lines (none included). So a changed figure passes; a changed word, column, line or
order fails, with the first line that differs. A command shown with no output lines is not
compared, and neither is a command that exits with another of its block's `expect-exit` codes
than the first: the page shows the answer of the first code, and the others are the machine's way
of saying it could not judge (a gate's exit 4 on a loaded machine). The model is
google/benchmark's output tests: they survive new numbers and catch changed wording and
structure.

A docs-test comment that is not directly above a block, an unknown directive, a skip without
a reason, or a malformed argument is an error (exit 2): a typo must not silently skip a check.
Other HTML comments (e.g. <!-- python-model-commands -->) are left alone.

Commands the test never runs, whatever the marks: builds and the test suite (scripts/test,
cmake, ctest, ...), package installs (apt-get, sudo, pip), cluster and GPU tools (srun, sbatch,
torchrun, nsys, scripts/device-*.sh) and servers (tensorboard); each is reported as skipped,
with its reason.

Where commands run. Each Markdown file gets its own scratch folder (a temporary directory) with
scenarios/, examples/, schema/ and tests/ linked to the source tree, a copy of results/reference/,
scripts/ linked file by file except scripts/trainbench, which, like `trainbench` on PATH, runs
the binary given with --trainbench (so the test never starts a build), build/ linked to that
binary's folder, `python` on PATH being a Python with torch ($TRAINBENCH_PYTHON, else the
trainbench venv) when one exists, and TRAINBENCH_HISTORY in the scratch folder. The blocks of a
file run in order in that folder (a later block may read what an earlier one wrote); the
commands of one block run in order in one bash process. No command writes into the source tree;
the linked folders are checked after each file.

Links. Every relative link and image in those files (and in scenarios/README.md,
results/README.md and CHANGELOG.md) must point to an existing file, and an anchor (#heading) to
an existing heading of the target, slugged as GitHub does.

Output: every failure with its file, line, command, exit code and the tail of its output; every
skipped command with its reason; a summary (ran N, skipped M, failed F, seconds). Exit status:
0 every command ran as expected; 1 a command failed or wrote into the source tree; 2 bad usage
or a marker error.

    tests/docs/check_docs.py --trainbench build/trainbench            # run them all
    tests/docs/check_docs.py --trainbench build/trainbench --only docs/gating-ci.md
    tests/docs/check_docs.py --list                                   # what would run, nothing run
    tests/docs/check_docs.py --self-test                              # the checker's own checks

Python 3 standard library only.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
DEFAULT_TIMEOUT = 300
OUTPUT_TAIL_LINES = 40

# First word of a command -> why the docs test never runs it.
NEVER_RUN = [
    (re.compile(r"^(\./)?scripts/test(-sanitize)?$"), "builds and runs the whole test suite (the docs test runs inside it)"),
    (re.compile(r"^(\./)?scripts/setup\.sh$|^source$|^\.$"), "installs packages and builds"),
    (re.compile(r"^(cmake|ctest|ninja|make)$"), "builds or installs trainbench (the docs test never starts a build)"),
    (re.compile(r"^(sudo|apt-get|apt|dpkg)$"), "installs system packages (needs root and the network)"),
    (re.compile(r"(^|/)pip3?$"), "installs Python packages (needs the network)"),
    (re.compile(r"^(srun|sbatch|salloc)$"), "needs a Slurm cluster"),
    (re.compile(r"(^|/)torchrun$"), "launches ranks through torchrun (tests/cli/torch/test_distributed_run.cpp runs that path)"),
    (re.compile(r"^nsys$"), "needs Nsight Systems and a GPU"),
    (re.compile(r"^tensorboard$"), "starts a server that does not exit"),
    (re.compile(r"^(\./)?scripts/(device-check|device-pack|fetch-device-debs)\.sh$"),
     "the GPU check: needs a GPU machine, a build and downloaded packages (docs/gpu-check.md)"),
]
WRAPPERS = {"env", "time", "nohup", "command", "exec"}
TIMEOUT_OPTIONS_WITH_VALUE = {"-s", "--signal", "-k", "--kill-after"}
TRAINBENCH_NAMES = {"trainbench", "scripts/trainbench", "./scripts/trainbench", "build/trainbench"}
SET_COMMANDS = {"run", "capacity", "ab"}
# Documentation whose links are checked but whose commands are not run (reference pages).
LINKS_ONLY = ["scenarios/README.md", "results/README.md", "CHANGELOG.md"]


class MarkerError(Exception):
    pass


class Block:
    def __init__(self, path, line, language, lines):
        self.path, self.line, self.language, self.lines = path, line, language, lines
        self.skip = None          # reason
        self.sets = []            # ["k=v", ...]
        self.expect_exit = (0,)
        self.file = None
        self.timeout = DEFAULT_TIMEOUT
        self.output = None        # None, or the word sets of an `output` marker: [["faster", "noisy"], ...]
        self.commands = []        # [Command]


class Command:
    def __init__(self, block, line, text):
        self.block, self.line, self.text = block, line, text
        self.skip = None
        self.run_text = text
        self.expect = (0,)
        self.shown = []           # (line number, text) of the output shown below it (console blocks)


# ---------------------------------------------------------------- parsing

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
COMMENT = re.compile(r"^\s*<!--(.*?)-->\s*$")


def parse_markdown(path, text):
    """Blocks of one Markdown file, with their markers applied. Raises MarkerError."""
    lines = text.split("\n")
    blocks, errors = [], []
    attached = set()  # line indexes of docs-test comments directly above a fence
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, language = m.group(1), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines):
            close = re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", lines[i])
            if close:
                break
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        block = Block(path, start + 1, language, body)
        # markers: the comment lines directly above the fence
        j = start - 1
        directives = []
        while j >= 0 and COMMENT.match(lines[j]):
            content = COMMENT.match(lines[j]).group(1).strip()
            if content.startswith("docs-test:"):
                attached.add(j)
                directives = [(j + 1, d.strip()) for d in split_directives(content[len("docs-test:"):]) if d.strip()] + directives
            j -= 1
        for line_no, directive in directives:
            try:
                apply_directive(block, directive)
            except MarkerError as e:
                errors.append(f"{path}:{line_no}: {e}")
        blocks.append(block)
    for k, line in enumerate(lines):
        m = COMMENT.match(line)
        if m and m.group(1).strip().startswith("docs-test:") and k not in attached:
            errors.append(f"{path}:{k + 1}: docs-test marker not directly above a code block")
        elif not m and line.lstrip().startswith("<!--") and "docs-test:" in line:
            errors.append(f"{path}:{k + 1}: docs-test marker must be a one-line HTML comment")
    for block in blocks:
        if block.language not in SHELL_LANGUAGES and block.file is None:
            if block.sets or block.expect_exit != (0,) or block.output is not None:
                errors.append(f"{path}:{block.line}: set/expect-exit/output on a '{block.language or 'plain'}' block, which is not run")
            continue
        if block.file is None:
            try:
                block.commands = extract_commands(block)
            except MarkerError as e:
                errors.append(f"{path}:{block.line}: {e}")
                continue
            if block.output is not None and not any(c.shown for c in block.commands):
                errors.append(f"{path}:{block.line}: 'output' on a block that shows no output under a '$ ' command")
    if errors:
        raise MarkerError("\n".join(errors))
    return blocks


def split_directives(text):
    """Directives separated by ';' outside parentheses (a skip reason may contain ';')."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")" and depth > 0
        if c == ";" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def apply_directive(block, directive):
    name, _, rest = directive.partition(" ")
    rest = rest.strip()
    if name == "skip":
        m = re.fullmatch(r"\((.+)\)", rest)
        if not m or not m.group(1).strip():
            raise MarkerError(f"'skip' needs a reason in parentheses: <!-- docs-test: skip (why) -->, got '{directive}'")
        block.skip = m.group(1).strip()
    elif name == "set":
        pairs = rest.split()  # written as on a command line, without shell quoting: axes.model=["mlp"]
        if not pairs or any("=" not in p or p.startswith("=") for p in pairs):
            raise MarkerError(f"'set' takes KEY=VALUE pairs, got '{rest}'")
        block.sets += pairs
    elif name == "expect-exit":
        if not re.fullmatch(r"\d{1,3}(,\d{1,3})*", rest):
            raise MarkerError(f"'expect-exit' takes exit codes separated by commas, got '{rest}'")
        block.expect_exit = tuple(int(x) for x in rest.split(","))
    elif name == "file":
        if not re.fullmatch(r"[A-Za-z0-9._/-]+", rest) or rest.startswith("/") or ".." in rest.split("/"):
            raise MarkerError(f"'file' takes a relative file name, got '{rest}'")
        block.file = rest
    elif name == "output":
        sets = [w.split("|") for w in rest.split()]
        if any(not all(re.fullmatch(r"[\w.%+-]+", x) for x in ws) or len(ws) < 2 for ws in sets):
            raise MarkerError(f"'output' takes sets of interchangeable words such as faster|same|noisy|slower, got '{rest}'")
        block.output = sets
    elif name == "timeout":
        if not re.fullmatch(r"\d+", rest) or int(rest) == 0:
            raise MarkerError(f"'timeout' takes seconds, got '{rest}'")
        block.timeout = int(rest)
    else:
        raise MarkerError(f"unknown docs-test directive '{name}' (known: skip, set, expect-exit, file, timeout, output)")


def extract_commands(block):
    console = any(l.startswith("$ ") or l == "$" for l in block.lines)
    commands = []
    k = 0
    while k < len(block.lines):
        raw = block.lines[k]
        line_no = block.line + 1 + k
        k += 1
        if console:
            if not raw.startswith("$ "):
                if commands:
                    commands[-1].shown.append((line_no, raw))  # output
                continue
            raw = raw[2:]
        if not raw.strip() or raw.lstrip().startswith("#") and not raw.lstrip().startswith("#!"):
            continue
        text = raw.rstrip()
        while text.endswith("\\"):
            if k >= len(block.lines):
                raise MarkerError(f"line {line_no}: a continuation backslash ends the block")
            text = text[:-1].rstrip() + " " + block.lines[k].strip()
            k += 1
        commands.append(Command(block, line_no, strip_comment(text)))
    return commands


def strip_comment(text):
    """The command without a trailing ' # comment' (quote-aware)."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                continue
        elif c in "'\"":
            quote = c
        elif c == "#" and i > 0 and text[i - 1] in " \t":
            return text[:i].rstrip()
    return text


def split_segments(text):
    """[(start, end)] of the simple commands in text, split at | || && ; outside quotes."""
    segments, quote, start, i = [], None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c in "|&;":
            if c == "&" and text[i + 1:i + 2] != "&":
                i += 1
                continue
            segments.append((start, i))
            i += 2 if text[i + 1:i + 2] in ("|", "&") and c != ";" else 1
            start = i
            continue
        i += 1
    segments.append((start, len(text)))
    return segments


def words(segment):
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def program(argv):
    """The command a line runs: argv without leading VAR=value, env/time/nohup, or timeout or taskset and
    their options."""
    k = 0
    while k < len(argv):
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[k]) or argv[k] in WRAPPERS:
            k += 1
        elif argv[k] in ("timeout", "taskset"):
            k += 1
            while k < len(argv) and argv[k].startswith("-"):
                k += 2 if argv[k] in TIMEOUT_OPTIONS_WITH_VALUE else 1
            k += 1  # timeout's duration, taskset's CPU mask or list
        else:
            break
    return argv[k:]


def classify(command):
    """Sets command.skip (never-run rules) and command.run_text (set overrides appended)."""
    block = command.block
    command.expect = (0,)
    text = command.text
    if text.startswith("#!"):
        command.skip = "a script's first line, not a command"
        return
    out, last = [], 0
    for start, end in split_segments(text):
        seg = text[start:end]
        argv = program(words(seg))
        inner = re.findall(r"\$\(\s*([^\s)]+)", seg)  # $(command ...) substitutions
        for name in argv[:1] + inner:
            for pattern, reason in NEVER_RUN:
                if pattern.search(name):
                    command.skip = reason
                    return
        if not argv:
            continue
        if block.sets and argv[0] in TRAINBENCH_NAMES and len(argv) > 1 and argv[1] in SET_COMMANDS \
                and "--resume" not in argv and "--help" not in argv and "-h" not in argv:
            stripped = seg.rstrip()
            out.append(text[last:start] + stripped + "".join(" --set " + shlex.quote(s) for s in block.sets)
                       + seg[len(stripped):])
            last = end
    out.append(text[last:])
    command.run_text = "".join(out)


# ---------------------------------------------------------------- shown output

NUMBER = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z])"
                    r"|[+\-−±]?\d+(?:[.,]\d+)*(?:e[+-]?\d+)?")
RULE = re.compile(r"[-=─]{3,}")


def normalize_output(line, word_sets=(), paths=()):
    """One output line as the comparison sees it (the contract's "Shown output")."""
    for path, replacement in paths:
        if path:
            line = line.replace(path.rstrip("/") + "/", replacement + "/" if replacement != "." else "")
            line = line.replace(path.rstrip("/"), replacement)
    line = NUMBER.sub("N", line)
    for words in word_sets:
        line = re.sub(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                      + r")(?![\w-])", words[0], line)
    line = RULE.sub("---", line)
    return " ".join(line.split())


def trim_blank(lines):
    while lines and not lines[0][1]:
        lines = lines[1:]
    while lines and not lines[-1][1]:
        lines = lines[:-1]
    return lines


def output_mismatch(shown, actual, word_sets=(), paths=()):
    """None when the shown lines [(line number, text)] match the actual output text, else a message
    naming the first shown line that differs and what was printed there."""
    want = trim_blank([(n, normalize_output(t, word_sets, paths)) for n, t in shown])
    got = trim_blank([(k + 1, normalize_output(t, word_sets, paths)) for k, t in enumerate(actual.split("\n"))])
    best = [0, 0]  # the furthest shown line matched, for the message

    def match(i, j):
        if (i, j) > tuple(best):
            best[:] = [i, j]
        if i == len(want):
            return j == len(got)
        if want[i][1] == "...":
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and want[i][1] == got[j][1] and match(i + 1, j + 1)

    import functools
    match = functools.lru_cache(maxsize=None)(match)
    if match(0, 0):
        return None
    i, j = best
    if i >= len(want):
        return f"the page shows nothing more, but the command printed more from its line {got[j][0]}: {got[j][1]!r}"
    printed = f"printed line {got[j][0]}: {got[j][1]!r}" if j < len(got) else "printed nothing more"
    return f"shown output line {want[i][0]} differs: the page has {want[i][1]!r}, the command {printed} (numbers read as N)"


# ---------------------------------------------------------------- links

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose_lines(text, keep_code=False):
    """(line number, line) of the lines outside fenced blocks, inline code removed unless keep_code."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if re.match(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", line):
                fence = None
            continue
        if m:
            fence = m.group(2)
            continue
        yield n, line if keep_code else re.sub(r"`+[^`]*`+", "", line)


def slugs(text):
    """GitHub's anchors of a Markdown file's headings."""
    seen, out = {}, set()
    for _, line in prose_lines(text, keep_code=True):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(root, files):
    """Broken relative links and anchors in the given Markdown files: ['file:line: ...']."""
    problems, cache = [], {}

    def anchors(path):
        if path not in cache:
            cache[path] = slugs(open(path, encoding="utf-8").read())
        return cache[path]

    for f in files:
        text = open(f, encoding="utf-8").read()
        for n, line in prose_lines(text):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                where = f"{rel(root, f)}:{n}"
                if not os.path.exists(dest):
                    problems.append(f"{where}: link to a missing file: {target}")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{where}: link to a missing heading: {target}")
    return problems


# ---------------------------------------------------------------- running

def find_python():
    candidates = []
    if os.environ.get("TRAINBENCH_PYTHON"):
        candidates.append(os.environ["TRAINBENCH_PYTHON"])
    venv = os.environ.get("TRAINBENCH_VENV", os.path.expanduser("~/.cache/trainbench/venv"))
    candidates.append(os.path.join(venv, "bin", "python"))
    for c in candidates:
        exe = shutil.which(c)
        if exe and subprocess.run([exe, "-c", "import torch"], capture_output=True).returncode == 0:
            return exe
    return None


def write_exec(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)


def make_scratch(root, trainbench, python):
    scratch = tempfile.mkdtemp(prefix="trainbench-docs-")
    for name in ("scenarios", "examples", "schema", "tests"):
        if os.path.isdir(os.path.join(root, name)):
            os.symlink(os.path.join(root, name), os.path.join(scratch, name))
    os.makedirs(os.path.join(scratch, "results"))
    ref = os.path.join(root, "results", "reference")
    if os.path.isdir(ref):
        shutil.copytree(ref, os.path.join(scratch, "results", "reference"), symlinks=True)
    os.makedirs(os.path.join(scratch, "scripts"))
    scripts = os.path.join(root, "scripts")
    if os.path.isdir(scripts):
        for name in os.listdir(scripts):
            if name != "trainbench":
                os.symlink(os.path.join(scripts, name), os.path.join(scratch, "scripts", name))
    tools = os.path.join(scratch, ".docs-test", "bin")
    os.makedirs(tools)
    if trainbench:
        write_exec(os.path.join(scratch, "scripts", "trainbench"), f'exec {shlex.quote(trainbench)} "$@"')
        write_exec(os.path.join(tools, "trainbench"), f'exec {shlex.quote(trainbench)} "$@"')
        os.symlink(os.path.dirname(trainbench), os.path.join(scratch, "build"))
    if python:
        write_exec(os.path.join(tools, "python"), f'exec {shlex.quote(python)} "$@"')
    return scratch


def snapshot(root):
    state = {}
    for name in ("scenarios", "examples", "schema", "scripts", "tests"):
        for dirpath, _, files in os.walk(os.path.join(root, name)):
            if "__pycache__" in dirpath:
                continue
            for f in files:
                p = os.path.join(dirpath, f)
                try:
                    st = os.stat(p)
                    state[p] = (st.st_size, st.st_mtime_ns)
                except OSError:
                    pass
    return state


def run_block(block, scratch, env, log_dir):
    """Runs the block's commands in one bash; returns [(command, rc, seconds, output)] up to the first failure."""
    to_run = [c for c in block.commands if not c.skip]
    if not to_run:
        return []
    script = ["set +e", f"cd {shlex.quote(scratch)}"]
    for n, c in enumerate(to_run):
        out = shlex.quote(os.path.join(log_dir, f"{n}.out"))
        rcf = shlex.quote(os.path.join(log_dir, f"{n}.rc"))
        script.append(f"t0=$EPOCHREALTIME; {{ {c.run_text}\n}} > {out} 2>&1 < /dev/null; rc=$?")
        ok = " || ".join(f'[ "$rc" -eq {e} ]' for e in c.expect)
        script.append(f'echo "$rc $t0 $EPOCHREALTIME" > {rcf}; {{ {ok}; }} || exit 0')
    path = os.path.join(log_dir, "block.sh")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    proc = subprocess.Popen(["bash", path], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    timed_out = False
    try:
        proc.wait(timeout=block.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    results = []
    for n, c in enumerate(to_run):
        rcf, out = os.path.join(log_dir, f"{n}.rc"), os.path.join(log_dir, f"{n}.out")
        output = open(out, errors="replace").read() if os.path.exists(out) else ""
        if not os.path.exists(rcf):
            if os.path.exists(out) or timed_out:
                results.append((c, None if timed_out else -1, None, output))
            break
        rc, t0, t1 = open(rcf).read().split()
        results.append((c, int(rc), float(t1.replace(",", ".")) - float(t0.replace(",", ".")), output))
        if int(rc) not in c.expect:
            break
    return results


def rel(root, path):
    return os.path.relpath(path, root)


def collect(root, only):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    files = [f for f in files if os.path.isfile(f)]
    if only:
        wanted = {os.path.normpath(o) for o in only}
        files = [f for f in files if rel(root, f) in wanted or os.path.basename(f) in wanted
                 or os.path.abspath(f) in {os.path.abspath(o) for o in only}]
        if not files:
            raise SystemExit(f"check_docs: --only {' '.join(only)}: no such Markdown file under {root}")
    pages, errors = [], []
    for f in files:
        try:
            blocks = parse_markdown(rel(root, f), open(f, encoding="utf-8").read())
        except MarkerError as e:
            errors.append(str(e))
            continue
        for b in blocks:
            if b.commands:
                for c in b.commands:
                    classify(c)
                last = [c for c in b.commands if not c.skip]
                if last:
                    last[-1].expect = b.expect_exit
        pages.append((f, blocks))
    return pages, errors, files


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run the commands shown in README.md and docs/*.md.")
    ap.add_argument("--trainbench", help="the built trainbench binary (scripts/trainbench and trainbench run it)")
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")),
                    help="the source tree (default: this checkout)")
    ap.add_argument("--only", action="append", default=[], metavar="FILE", help="only this Markdown file (repeatable)")
    ap.add_argument("--list", action="store_true", help="print what would run and what is skipped; run nothing")
    ap.add_argument("--links-only", action="store_true",
                    help="check the links of every page (and of %s); run nothing" % ", ".join(LINKS_ONLY))
    ap.add_argument("--keep", action="store_true", help="keep the scratch folders")
    ap.add_argument("--verbose", "-v", action="store_true", help="print each command with its time as it ran")
    ap.add_argument("--self-test", action="store_true", help="check the checker itself, then exit")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    root = os.path.abspath(args.root)
    pages, errors, files = collect(root, args.only)
    if errors:
        print("check_docs: marker errors:\n" + "\n".join(errors), file=sys.stderr)
        return 2
    if args.links_only:
        link_only = [os.path.join(root, f) for f in LINKS_ONLY if os.path.isfile(os.path.join(root, f))]
        problems = check_links(root, files + link_only)
        for problem in problems:
            print(f"FAIL {problem}")
        print(f"check_docs: links of {len(files) + len(link_only)} files, {len(problems)} broken")
        return 1 if problems else 0
    if args.list:
        for f, blocks in pages:
            for b in blocks:
                if b.file:
                    print(f"{b.path}:{b.line}: file {b.file}")
                for c in b.commands:
                    reason = b.skip or c.skip
                    if reason:
                        print(f"{b.path}:{c.line}: SKIP ({reason}): {c.text}")
                    else:
                        extra = f"  [expect exit {','.join(map(str, c.expect))}]" if c.expect != (0,) else ""
                        extra += "  [output checked]" if b.output is not None and c.shown else ""
                        print(f"{b.path}:{c.line}: run: {c.run_text}{extra}")
        return 0
    if not args.trainbench:
        ap.error("--trainbench PATH is needed to run the commands (or --list)")
    trainbench = os.path.abspath(args.trainbench)
    if not os.access(trainbench, os.X_OK):
        ap.error(f"--trainbench {args.trainbench}: not an executable")
    needs_python = any(c.run_text.split()[0] == "python" for _, bl in pages for b in bl for c in b.commands
                       if not (b.skip or c.skip) and c.run_text.split())
    python = find_python() if needs_python else None
    ran, skipped, failures = 0, [], []
    begin = time.monotonic()
    link_only = [os.path.join(root, f) for f in LINKS_ONLY if not args.only and os.path.isfile(os.path.join(root, f))]
    for problem in check_links(root, files + link_only):
        failures.append((None, problem, ""))
    for f, blocks in pages:
        before = snapshot(root)
        scratch = make_scratch(root, trainbench, python)
        env = dict(os.environ)
        env.update({"PATH": os.path.join(scratch, ".docs-test", "bin") + os.pathsep + env.get("PATH", ""),
                    "TRAINBENCH_HISTORY": os.path.join(scratch, "history.sqlite"), "NO_COLOR": "1"})
        page_start = time.monotonic()
        for n, b in enumerate(blocks):
            if b.file:
                target = os.path.join(scratch, b.file)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w") as out:
                    out.write("\n".join(b.lines) + "\n")
                continue
            reason = b.skip
            if not reason and python is None and any(c.run_text.split()[:1] == ["python"] for c in b.commands if not c.skip):
                reason = "needs a python that imports torch (TRAINBENCH_PYTHON or the trainbench venv); none found"
            for c in b.commands:
                argv = program(words(c.run_text))
                if not (reason or c.skip) and argv and argv[0].startswith("build/") \
                        and not os.path.exists(os.path.join(os.path.dirname(trainbench), argv[0][len("build/"):])):
                    c.skip = f"{argv[0]} is not in this build (a target the build was configured without)"
                if reason or c.skip:
                    skipped.append((c, reason or c.skip))
            if reason:
                continue
            log_dir = os.path.join(scratch, ".docs-test", f"block-{n}")
            os.makedirs(log_dir)
            for c, rc, seconds, output in run_block(b, scratch, env, log_dir):
                ran += 1
                if args.verbose:
                    shown = "timed out" if rc is None else f"exit {rc}, {seconds:.1f} s" if seconds is not None else f"exit {rc}"
                    print(f"  {c.block.path}:{c.line}: {shown}: {c.run_text}", flush=True)
                if rc not in c.expect:
                    failures.append((c, rc, output))
                elif b.output is not None and c.shown and rc == c.expect[0]:
                    why = output_mismatch(c.shown, output, b.output, [(scratch, "."), (trainbench, "build/trainbench")])
                    if why:
                        failures.append((c, ("output", why), output))
        after = snapshot(root)
        if before != after:
            changed = sorted(set(after.items()) ^ set(before.items()))
            failures.append((None, f"{rel(root, f)}'s commands changed the source tree: "
                             + ", ".join(sorted({rel(root, p) for p, _ in changed})[:10]), ""))
        if args.verbose:
            print(f"{rel(root, f)}: {time.monotonic() - page_start:.1f} s", flush=True)
        if args.keep or any(fc and fc.block.path == rel(root, f) for fc, _, _ in failures):
            print(f"check_docs: scratch folder of {rel(root, f)} kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    for c, rc, output in failures:
        if c is None:
            print(f"FAIL {rc}")
            continue
        what = (f"timed out after {c.block.timeout} s" if rc is None
                else f"the output differs from the page's: {rc[1]}" if isinstance(rc, tuple)
                else f"exit {rc}, expected {' or '.join(map(str, c.expect))}")
        print(f"\nFAIL {c.block.path}:{c.line}: {what}\n  $ {c.run_text}")
        # the whole output when it is what differs, to copy into the page
        tail = output.rstrip("\n").split("\n")[-(200 if isinstance(rc, tuple) else OUTPUT_TAIL_LINES):]
        print("\n".join("  | " + l for l in tail))
    if skipped:
        print(f"\nskipped {len(skipped)} commands:")
        for c, reason in skipped:
            print(f"  {c.block.path}:{c.line}: {c.text}\n      ({reason})")
    print(f"\ncheck_docs: ran {ran} commands from {len(pages)} files, skipped {len(skipped)}, "
          f"failed {len(failures)}, {time.monotonic() - begin:.0f} s")
    return 1 if failures else 0


# ---------------------------------------------------------------- self-test

def check_case(problems, name, main_fn, argv, expect, want):
    """Runs main_fn(argv) with its output captured; appends to problems how the exit status or the
    output differ from `expect` and the strings in `want` (tests/docs/check_reference.py uses it too)."""
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = main_fn(argv)
        except SystemExit as e:
            rc = e.code
    text = buf.getvalue()
    if rc != expect:
        problems.append(f"{name}: exit {rc}, expected {expect}\n{text}")
    for w in want:
        if w not in text:
            problems.append(f"{name}: output lacks {w!r}\n{text}")


def self_test():
    """The checker's own checks, on small documents in a temporary folder, with a fake trainbench."""
    tmp = tempfile.mkdtemp(prefix="check-docs-self-")
    tempfile.tempdir = tmp  # the scratch folders kept for failing cases go with it
    problems = []

    cases = [0]

    def case(name, readme, docs=None, expect=0, extra=(), want=()):
        cases[0] += 1
        root = os.path.join(tmp, name)
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "scenarios"))
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write(readme)
        for fname, text in (docs or {}).items():
            with open(os.path.join(root, "docs", fname), "w") as f:
                f.write(text)
        fake = os.path.join(root, "fake-build", "trainbench")
        os.makedirs(os.path.dirname(fake))
        write_exec(fake, 'echo "trainbench $*"; case "$*" in *fail*) exit 3;; esac; exit 0')
        check_case(problems, name, main, ["--root", root, "--trainbench", fake, *extra], expect, want)

    case("no-shell-blocks", "# Title\n\nText.\n\n```json\n{\"a\": 1}\n```\n", want=["ran 0 commands"])
    case("unknown-marker", "<!-- docs-test: skipp (typo) -->\n```sh\ntrue\n```\n", expect=2,
         want=["unknown docs-test directive 'skipp'"])
    case("skip-without-reason", "<!-- docs-test: skip -->\n```sh\ntrue\n```\n", expect=2, want=["needs a reason"])
    case("stray-marker", "<!-- docs-test: skip (x) -->\n\ntext\n", expect=2, want=["not directly above a code block"])
    case("skip-with-reason", "<!-- docs-test: skip (needs a GPU) -->\n```sh\nfalse\n```\n",
         want=["skipped 1", "(needs a GPU)", "ran 0 commands"])
    case("failure-located", "# T\n\n```bash\ntrue\nfalse # fails\ntrue\n```\n", expect=1,
         want=["FAIL README.md:5: exit 1, expected 0", "ran 2 commands"])
    case("expect-exit", "<!-- docs-test: expect-exit 3 -->\n```sh\ntrue\n(exit 3)\n```\n", want=["ran 2 commands", "failed 0"])
    case("expect-exit-list", "<!-- docs-test: expect-exit 0,4 -->\n```sh\n(exit 4)\n```\n\n"
         "<!-- docs-test: expect-exit 0,4 -->\n```sh\n(exit 1)\n```\n", expect=1, want=["exit 1, expected 0 or 4"])
    case("console-and-continuation", "```console\n$ echo a \\\n    b > out.txt\nsome output\n$ grep -q 'a b' out.txt\n```\n",
         want=["ran 2 commands"])
    case("set-appended", "<!-- docs-test: set steps.min=4 axes.workers=[0] -->\n```sh\n"
         "scripts/trainbench run scenarios/x.json --out results/a   # comment\n"
         "scripts/trainbench run scenarios/x.json | grep -q -- '--set steps.min=4 --set axes.workers=\\[0\\]'\n"
         "scripts/trainbench list scenarios/x.json | grep -vq -- --set\n```\n",
         extra=["--list"], want=["run: scripts/trainbench run scenarios/x.json --out results/a --set steps.min=4 --set 'axes.workers=[0]'"])
    case("set-after-timeout", "<!-- docs-test: set axes.model=[\"mlp\"] -->\n```sh\n"
         "timeout --preserve-status -s INT 1 scripts/trainbench run m.json\n```\n",
         extra=["--list"], want=["run: timeout --preserve-status -s INT 1 scripts/trainbench run m.json --set 'axes.model=[\"mlp\"]'"])
    case("set-after-taskset", "<!-- docs-test: set steps.min=4 -->\n```sh\n"
         "OMP_NUM_THREADS=1 taskset -c 0 scripts/trainbench run m.json\n```\n",
         extra=["--list"], want=["run: OMP_NUM_THREADS=1 taskset -c 0 scripts/trainbench run m.json --set steps.min=4"])
    case("set-runs", "<!-- docs-test: set steps.min=4 -->\n```sh\n"
         "scripts/trainbench run x.json | grep -q -- '--set steps.min=4'\ntrainbench list x.json | grep -vq -- --set\n```\n",
         want=["ran 2 commands", "failed 0"])
    case("never-run", "```sh\nscripts/test -R Foo\nsudo apt-get install x\npip install y\ntrue\n```\n",
         want=["ran 1 commands", "skipped 3", "builds and runs the whole test suite"])
    case("one-shell-per-block", "```sh\nmkdir d && cd d\ntouch here\n```\n\n```sh\ntest -f d/here\n```\n", want=["ran 3 commands"])
    case("file-marker", "<!-- docs-test: file m.json -->\n```json\n{\"name\": \"m\"}\n```\n\n```sh\ngrep -q '\"m\"' m.json\n```\n",
         want=["ran 1 commands"])
    case("no-writes-into-source", "```sh\ntouch scenarios/new.json\n```\n", expect=1, want=["changed the source tree"])
    case("only-filter", "```sh\nfalse\n```\n", docs={"a.md": "```sh\ntrue\n```\n"}, extra=["--only", "docs/a.md"],
         want=["ran 1 commands from 1 files"])
    case("links", "# Title\n\n## A `code` heading: yes\n\n[ok](#a-code-heading-yes) [ok](docs/a.md#b) [bad](#nope) [bad](docs/x.md)\n"
         "`[not a link](nowhere.md)`\n", docs={"a.md": "# B\n"}, expect=1,
         want=["README.md:5: link to a missing heading: #nope", "README.md:5: link to a missing file: docs/x.md", "ran 0 commands"])
    # `output`: figures may change, words, lines and their order may not
    case("output-numbers-vary", "<!-- docs-test: output -->\n```console\n$ printf 'run 2026-12-03 took 53 s\\n  a    1.24x [1.09, 1.43]\\n----\\n'\n"
         "run 2025-01-01 took 7 s\n  a  13.5x [-0.2, +7]\n--------\n```\n", want=["ran 1 commands", "failed 0"])
    case("output-word-differs", "<!-- docs-test: output -->\n```console\n$ echo 'verdict: faster by 3%'\nverdict: slower by 3%\n```\n",
         expect=1, want=["FAIL README.md:3: the output differs from the page's: shown output line 4 differs",
                         "'verdict: slower by N%'", "'verdict: faster by N%'"])
    case("output-word-sets", "<!-- docs-test: output faster|same|slower -->\n```console\n$ echo 'a faster'; echo 'b same'\n"
         "a slower\nb faster\n```\n", want=["failed 0"])
    case("output-line-missing", "<!-- docs-test: output -->\n```console\n$ printf 'a\\nb\\n'\na\n```\n", expect=1,
         want=["the page shows nothing more, but the command printed more from its line 2: 'b'"])
    case("output-ellipsis", "<!-- docs-test: output -->\n```console\n$ printf 'head\\nx 1\\ny 2\\ntail 3\\n'\nhead\n...\ntail 9\n"
         "$ echo 'a b'\na b\n$ true\n```\n", want=["ran 3 commands", "failed 0"])
    case("output-paths-and-commits", "<!-- docs-test: output -->\n```console\n$ echo \"wrote $PWD/results/x at 1a2b3c4d5e\"\n"
         "wrote results/x at 9f8e7d6\n```\n", want=["failed 0"])
    case("output-only-for-the-first-exit-code", "<!-- docs-test: expect-exit 0,4; output -->\n```console\n"
         "$ echo 'not distinguishable'; (exit 4)\nfirst slower commit: c5\n```\n", want=["failed 0"])
    case("output-not-checked-without-marker", "```console\n$ echo real\nsomething else\n```\n", want=["failed 0"])
    case("output-needs-console", "<!-- docs-test: output -->\n```sh\necho a\n```\n", expect=2,
         want=["'output' on a block that shows no output"])
    case("output-bad-set", "<!-- docs-test: output faster -->\n```console\n$ echo a\na\n```\n", expect=2,
         want=["'output' takes sets of interchangeable words"])
    tempfile.tempdir = None
    shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print("check_docs self-test FAILED:\n" + "\n\n".join(problems))
        return 1
    print(f"check_docs self-test: {cases[0]} cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
