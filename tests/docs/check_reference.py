#!/usr/bin/env python3
"""Check the two reference pages against what they describe, so that neither can fall behind.

Contract
--------
Matrix fields (--part fields; needs no binary). schema/matrix.schema.json against
scenarios/README.md, "the reference of every field":
  - top level: the names in the first column of the table under "## Fields" are exactly the
    schema's top-level properties (less "$schema", which the page's prose explains);
  - axes: the names in the first column of the table under "### `axes`" are exactly the
    properties of the schema's "axes";
  - each other object documented in a section of its own ("### `steps`", "### `capacity`",
    "### `gates`", "### `python`"): every key the schema gives it appears on the section as
    `key` (in a table's first column or in the text), and every key in that section's tables'
    first column is in the schema.
A name is read from a first column written `name` or `name.sub`; the part before the first dot
counts.

Command options (--part options; needs --trainbench). `trainbench --help` lists the commands;
for each, `trainbench CMD --help` lists its options (the option tables the parser reads, so the
help is what the command accepts). docs/command-line.md must have a section "### `CMD`" under
"## Options of each command" whose tables' first column names exactly those options (as
`--name` or `--name VALUE`; -h/--help is implied and left out), and a paragraph starting with
"Exit codes:" that names every exit code the help's "exit codes" paragraph gives.

Output: each difference, naming the page, the section and the name; then a summary. Exit
status: 0 the pages match; 1 a difference; 2 bad usage (a page or the schema missing or
unreadable, the binary not runnable).

    tests/docs/check_reference.py                                      # fields only
    tests/docs/check_reference.py --trainbench build/trainbench        # fields and options
    tests/docs/check_reference.py --trainbench build/trainbench --part options
    tests/docs/check_reference.py --self-test                          # the checker's own checks

Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


class Usage(Exception):
    pass


# ---------------------------------------------------------------- Markdown

def sections(text):
    """{heading text: (level, body lines)} of a Markdown file, fenced blocks left out."""
    out, current, level, body, fence = {}, None, 0, [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        h = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if h:
            if current is not None:
                out.setdefault(current, (level, body))
            current, level, body = h.group(2), len(h.group(1)), []
            continue
        body.append(line)
    if current is not None:
        out.setdefault(current, (level, body))
    return out


def section_with_subsections(text, heading):
    """The lines under `heading` up to the next heading of the same or a higher level."""
    lines, inside, level, fence = [], False, 0, None
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence or m:
            if fence and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            elif not fence and m:
                fence = m.group(1)
            if inside:
                lines.append(line)
            continue
        h = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if h and inside and len(h.group(1)) <= level:
            break
        if h and h.group(2) == heading:
            inside, level = True, len(h.group(1))
            continue
        if inside:
            lines.append(line)
    return lines if inside else None


def first_column_names(lines, pattern=r"`([A-Za-z_$][\w$.-]*)`", prefix=""):
    """Names written in code in the first column of the tables among lines (header rows skipped);
    a name written `prefix.name.sub` counts as `name`."""
    return [n[len(prefix):].split(".")[0] if prefix and n.startswith(prefix) else n.split(".")[0] if "--" not in n else n
            for n in _first_column(lines, pattern)]


def _first_column(lines, pattern):
    """Names written in code in the first column of the tables among lines (header rows skipped)."""
    names = []
    rows = [l for l in lines if l.lstrip().startswith("|")]
    for k, row in enumerate(rows):
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if not cells or re.fullmatch(r":?-{3,}:?", cells[0]) or (k + 1 < len(rows) and re.fullmatch(
                r"\|?\s*:?-{3,}.*", rows[k + 1].strip())):
            continue  # the separator, or the header above it
        names += re.findall(pattern, cells[0])
    return names


# ---------------------------------------------------------------- matrix fields

def schema_object(schema, node):
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return node


def check_fields(root):
    schema_path = os.path.join(root, "schema", "matrix.schema.json")
    page_path = os.path.join(root, "scenarios", "README.md")
    try:
        schema = json.load(open(schema_path, encoding="utf-8"))
        text = open(page_path, encoding="utf-8").read()
    except (OSError, ValueError) as e:
        raise Usage(f"check_reference: {e}")
    page = "scenarios/README.md"
    problems = []
    secs = sections(text)

    def compare(what, documented, expected, where):
        documented, expected = set(documented), set(expected)
        for name in sorted(expected - documented):
            problems.append(f"{page}: {where}: `{name}` is in schema/matrix.schema.json ({what}) but not documented")
        for name in sorted(documented - expected):
            problems.append(f"{page}: {where}: `{name}` is documented but schema/matrix.schema.json has no such {what}")

    top = set(schema["properties"]) - {"$schema"}
    if "Fields" not in secs:
        problems.append(f"{page}: no '## Fields' section")
    else:
        compare("top-level property", first_column_names(secs["Fields"][1]), top, "## Fields")
    axes = schema_object(schema, schema["properties"]["axes"]).get("properties", {})
    if "`axes`" not in secs:
        problems.append(f"{page}: no '### `axes`' section")
    else:
        compare("axis", first_column_names(secs["`axes`"][1]), axes, "### `axes`")
    for key in ("steps", "capacity", "gates", "python"):
        node = schema_object(schema, schema["properties"][key])
        if node.get("type") == "array":
            node = schema_object(schema, node["items"])
        keys = set(node.get("properties", {}))
        heading = f"`{key}`"
        if heading not in secs:
            problems.append(f"{page}: no '### `{key}`' section for the schema's {key} keys")
            continue
        body = "\n".join(secs[heading][1])
        in_text = {w for span in re.findall(r"`([^`]+)`", body) for w in re.findall(r"[A-Za-z_]\w*", span)}
        for name in sorted(keys - in_text):
            problems.append(f"{page}: ### `{key}`: `{name}` is in schema/matrix.schema.json ({key} key) but not documented")
        for name in sorted(set(first_column_names(secs[heading][1], prefix=key + ".")) - keys):
            problems.append(f"{page}: ### `{key}`: `{name}` is documented but schema/matrix.schema.json has no such {key} key")
    counted = len(top) + len(axes)
    return problems, f"{counted} fields and axes"


# ---------------------------------------------------------------- command options

def run_help(trainbench, args):
    try:
        p = subprocess.run([trainbench, *args], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise Usage(f"check_reference: --trainbench {trainbench}: {e}")
    if p.returncode != 0:
        raise Usage(f"check_reference: {trainbench} {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout


def listed(help_text, title, pattern):
    """The first group of `pattern` on the lines of a help's section `title` (up to a blank line)."""
    names, inside = [], False
    for line in help_text.split("\n"):
        if line.strip() == title:
            inside = True
            continue
        if inside and not line.strip():
            break
        m = re.match(pattern, line) if inside else None
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def commands_of(top_help):
    return listed(top_help, "commands:", r"^  ([a-z][a-z-]*)(?:\s|$)")


def options_of(help_text):
    """Long option names of a command's --help, without --help."""
    return [o for o in listed(help_text, "options:", r"^  (?:-\w, )?(--[A-Za-z][\w-]*)") if o != "--help"]


def exit_codes_of(help_text):
    at = help_text.lower().find("exit codes")
    if at < 0:
        return []
    text = help_text[at + len("exit codes"):]
    codes = []
    for m in re.finditer(r"(?:^|[:;,(]|\n)\s*(\d{1,3}(?:/\d{1,3})*)\s", text):
        for code in m.group(1).split("/"):
            if code not in codes:
                codes.append(code)
    return codes


def paragraph_starting(lines, prefix):
    """The paragraph (up to a blank line) whose first line starts with prefix, as one line; None if none."""
    for k, line in enumerate(lines):
        if line.startswith(prefix):
            end = next((j for j in range(k, len(lines)) if not lines[j].strip()), len(lines))
            return " ".join(lines[k:end])
    return None


def check_options(root, trainbench):
    page = "docs/command-line.md"
    try:
        text = open(os.path.join(root, page), encoding="utf-8").read()
    except OSError as e:
        raise Usage(f"check_reference: {e}")
    problems = []
    reference = section_with_subsections(text, "Options of each command")
    if reference is None:
        return [f"{page}: no '## Options of each command' section"], "0 commands"
    secs = sections("\n".join(reference))
    commands = commands_of(run_help(trainbench, ["--help"]))
    if not commands:
        raise Usage(f"check_reference: `{trainbench} --help` lists no commands")
    count = 0
    for cmd in commands:
        help_text = run_help(trainbench, [cmd, "--help"])
        heading = f"`{cmd}`"
        if heading not in secs:
            problems.append(f"{page}: no '### `{cmd}`' section under '## Options of each command'")
            continue
        lines = secs[heading][1]
        documented = first_column_names(lines, r"`(--[A-Za-z][\w-]*)")
        wanted = options_of(help_text)
        count += len(wanted)
        for name in [o for o in wanted if o not in documented]:
            problems.append(f"{page}: ### `{cmd}`: {name} is in `trainbench {cmd} --help` but not documented")
        for name in sorted(set(documented) - set(wanted)):
            problems.append(f"{page}: ### `{cmd}`: {name} is documented but `trainbench {cmd} --help` has no such option")
        codes_line = paragraph_starting(lines, "Exit codes:")
        codes = exit_codes_of(help_text)
        if codes and codes_line is None:
            problems.append(f"{page}: ### `{cmd}`: no line starting with 'Exit codes:' "
                            f"(`trainbench {cmd} --help` gives {', '.join(codes)})")
        elif codes_line is not None:
            for code in codes:
                if not re.search(r"(?<![\d.])" + code + r"(?!\d|\.\d)", codes_line):
                    problems.append(f"{page}: ### `{cmd}`: exit code {code} of `trainbench {cmd} --help` "
                                    "is not on the 'Exit codes:' paragraph")
    extra = [h for h, (level, _) in secs.items() if level == 3 and h.startswith("`") and h.strip("`") not in commands]
    for h in extra:
        problems.append(f"{page}: ### {h}: no such command in `trainbench --help`")
    return problems, f"{len(commands)} commands, {count} options"


# ---------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description="Check scenarios/README.md against the matrix schema and "
                                             "docs/command-line.md against each command's --help.")
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")),
                    help="the source tree (default: this checkout)")
    ap.add_argument("--trainbench", help="the built trainbench binary (needed for --part options)")
    ap.add_argument("--part", choices=["fields", "options", "all"], default=None,
                    help="what to check (default: fields, and options when --trainbench is given)")
    ap.add_argument("--self-test", action="store_true", help="check the checker itself, then exit")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    part = args.part or ("all" if args.trainbench else "fields")
    if part in ("options", "all") and not args.trainbench:
        ap.error("--part options needs --trainbench PATH")
    problems, summary = [], []
    try:
        if part in ("fields", "all"):
            p, s = check_fields(os.path.abspath(args.root))
            problems += p
            summary.append(s)
        if part in ("options", "all"):
            p, s = check_options(os.path.abspath(args.root), os.path.abspath(args.trainbench))
            problems += p
            summary.append(s)
    except Usage as e:
        print(e, file=sys.stderr)
        return 2
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"check_reference: {'; '.join(summary)}; {len(problems)} differences")
    return 1 if problems else 0


def self_test():
    tmp = tempfile.mkdtemp(prefix="check-reference-self-")
    problems = []
    schema = {"properties": {"$schema": {}, "name": {}, "axes": {"$ref": "#/$defs/axes"},
                             "steps": {"type": "object", "properties": {"min": {}, "max": {}}},
                             "capacity": {"properties": {"start": {}}},
                             "gates": {"type": "array", "items": {"properties": {"match": {}}}},
                             "python": {"properties": {"file": {}}}},
              "$defs": {"axes": {"properties": {"batch": {}, "loop": {}}}}}
    good = ("# M\n\n## Fields\n\n| Field | Meaning |\n|---|---|\n| `name` | x |\n| `axes` | x |\n| `steps` | x |\n"
            "| `capacity` | x |\n| `gates` | x |\n| `python` | x |\n\n### `steps`\n\n`{\"min\": 1, \"max\": 2}`\n\n"
            "### `axes`\n\n| Axis | Values |\n|---|---|\n| `batch` | n |\n| `loop` | `cpp` |\n\n"
            "### `capacity`\n\n| Key | x |\n|---|---|\n| `start` | 8 |\n\n### `gates`\n\n| key | x |\n|---|---|\n"
            "| `match` | x |\n\n### `python`\n\n| key | x |\n|---|---|\n| `python.file` | x |\n")
    fake_help = {
        "--help": "usage: trainbench <command> [options]\n\ncommands:\n  run [MATRIX]\n      run it\n  models\n      list\n\n",
        "run --help": "usage: trainbench run\n\noptions:\n  --out DIR      where\n                 more --not-this\n"
                      "  -v, --verbose  more\n  -h, --help     this text\n\nexit codes: 0 ok; 1 failed, 2 bad input,\n"
                      "5 not written; 130/143 interrupted (fewer than 3 rounds)\n",
        "models --help": "usage: trainbench models\n\noptions:\n  -h, --help  this text\n\nexit codes: 0 ok, 2 bad input\n",
    }
    script = "#!/bin/sh\ncase \"$*\" in\n" + "".join(
        f"  '{k}') cat <<'EOF'\n{v}EOF\n;;\n" for k, v in fake_help.items()) + "  *) exit 2;;\nesac\n"
    options_good = ("# CLI\n\n## Options of each command\n\n### `run`\n\n| option | meaning |\n|---|---|\n"
                    "| `--out DIR` | where |\n| `--verbose`, `-v` | more |\n\nExit codes: 0, 1, 2,\n5, 130, 143.\n\n"
                    "### `models`\n\nNo options.\n\nExit codes: 0, 2.\n")

    def case(name, readme, cli, expect, want=(), extra=()):
        root = os.path.join(tmp, name)
        for d in ("schema", "scenarios", "docs"):
            os.makedirs(os.path.join(root, d))
        json.dump(schema, open(os.path.join(root, "schema", "matrix.schema.json"), "w"))
        open(os.path.join(root, "scenarios", "README.md"), "w").write(readme)
        open(os.path.join(root, "docs", "command-line.md"), "w").write(cli)
        fake = os.path.join(root, "trainbench")
        open(fake, "w").write(script)
        os.chmod(fake, 0o755)
        sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        from check_docs import check_case
        check_case(problems, name, main, ["--root", root, "--trainbench", fake, *extra], expect, want)

    case("all-documented", good, options_good, 0, ["0 differences", "2 commands, 2 options"])
    case("field-missing", good.replace("| `gates` | x |\n", ""), options_good, 1,
         ["## Fields: `gates` is in schema/matrix.schema.json (top-level property) but not documented"])
    case("axis-missing-and-extra", good.replace("| `loop` | `cpp` |", "| `compile` | x |"), options_good, 1,
         ["`loop` is in schema/matrix.schema.json (axis) but not documented",
          "`compile` is documented but schema/matrix.schema.json has no such axis"])
    case("key-missing", good.replace("\"max\": 2", "\"maxx\": 2"), options_good, 1,
         ["### `steps`: `max` is in schema/matrix.schema.json (steps key) but not documented"])
    case("option-missing", good, options_good.replace("| `--out DIR` | where |\n", ""), 1,
         ["### `run`: --out is in `trainbench run --help` but not documented"])
    case("option-extra", good, options_good.replace("| `--out DIR` | where |", "| `--out DIR` | where |\n| `--old` | x |"), 1,
         ["### `run`: --old is documented but `trainbench run --help` has no such option"])
    case("exit-code-missing", good, options_good.replace("2,\n5, 130, 143.", "2,\n5."), 1,
         ["exit code 130 of `trainbench run --help` is not on the 'Exit codes:' paragraph"])
    case("command-missing", good, options_good.split("### `models`")[0], 1,
         ["no '### `models`' section under '## Options of each command'"])
    case("fields-only", good, "", 0, ["0 differences"], extra=["--part", "fields"])
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print("check_reference self-test FAILED:\n" + "\n\n".join(problems))
        return 1
    print("check_reference self-test: 9 cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
