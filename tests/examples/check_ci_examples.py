#!/usr/bin/env python3
"""Check the CI configurations under examples/ci/, so that a team copying one gets a file that parses
and commands that exist.

Contract
--------
Input: --root (this checkout) and --trainbench (the built binary).
- examples/ci/github-actions.yml: YAML; `on`, `jobs`; every job has `runs-on` and `steps`; every
  step has exactly one of `run` and `uses`; every `${{ ... }}` expression is closed.
- examples/ci/gitlab-ci.yml: YAML; `stages`; every job (a top-level key that is not a GitLab
  keyword and does not start with ".") has a `script` and a `stage` listed in `stages`, and any
  `extends` names a template defined in the file.
- In both, every command line that calls trainbench (a word ending in "trainbench", then a
  subcommand) uses a subcommand that `trainbench SUBCOMMAND --help` knows, and every --option it
  passes appears in that help.
Output: each problem with its file and job; exit 0 when there is none, 1 otherwise, 2 on bad usage,
77 (skipped) without PyYAML.
Needs PyYAML (Debian's python3-yaml, installed by scripts/setup.sh).
"""
import argparse
import re
import shlex
import subprocess
import sys

try:
    import yaml
except ImportError:  # ctest reads 77 as skipped (SKIP_RETURN_CODE)
    print("skipped: PyYAML is missing (Debian: apt-get install python3-yaml; scripts/setup.sh installs it)")
    sys.exit(77)

GITLAB_KEYWORDS = {"stages", "variables", "default", "workflow", "include", "image", "services", "cache",
                   "before_script", "after_script"}


def lines_of(value):
    """The shell lines of a `run` string or a GitLab `script` list."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        out.extend(str(item).splitlines())
    return out


def trainbench_calls(line):
    """(subcommand, [--options]) for each trainbench call on one shell line."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return []
    calls, i = [], 0
    while i < len(words):
        if words[i].endswith("trainbench") and i + 1 < len(words):
            sub, options, j = words[i + 1], [], i + 2
            while j < len(words) and words[j] not in ("&&", "||", ";", "|"):
                if words[j].startswith("--"):
                    options.append(words[j].split("=", 1)[0])
                j += 1
            calls.append((sub, options))
            i = j
        else:
            i += 1
    return calls


class Checker:
    def __init__(self, trainbench):
        self.trainbench = trainbench
        self.helps = {}
        self.problems = []

    def help_of(self, sub):
        if sub not in self.helps:
            r = subprocess.run([self.trainbench, sub, "--help"], capture_output=True, text=True)
            self.helps[sub] = r.stdout if r.returncode == 0 else None
        return self.helps[sub]

    def check_commands(self, where, shell_lines):
        for line in shell_lines:
            for sub, options in trainbench_calls(line):
                if sub.startswith("--"):  # trainbench --version
                    continue
                text = self.help_of(sub)
                if text is None:
                    self.problems.append(f"{where}: 'trainbench {sub}': no such command")
                    continue
                for option in options:
                    if not re.search(re.escape(option) + r"\b", text):
                        self.problems.append(f"{where}: 'trainbench {sub} {option}': no such option")

    def load(self, path):
        try:
            with open(path) as f:
                doc = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            self.problems.append(f"{path}: {e}")
            return None
        if not isinstance(doc, dict):
            self.problems.append(f"{path}: not a YAML mapping")
            return None
        return doc

    def check_github(self, path):
        doc = self.load(path)
        if doc is None:
            return
        # YAML 1.1 reads the key `on` as true.
        if "on" not in doc and True not in doc:
            self.problems.append(f"{path}: no 'on' (the events that start the workflow)")
        jobs = doc.get("jobs") or {}
        if not jobs:
            self.problems.append(f"{path}: no jobs")
        for name, job in jobs.items():
            where = f"{path}: job {name}"
            if "runs-on" not in job:
                self.problems.append(f"{where}: no runs-on")
            for k, step in enumerate(job.get("steps") or []):
                if ("run" in step) == ("uses" in step):
                    self.problems.append(f"{where}, step {k + 1}: needs exactly one of run and uses")
                self.check_commands(f"{where}, step {k + 1}", lines_of(step.get("run")))
        text = open(path).read()
        if text.count("${{") != text.count("}}"):
            self.problems.append(f"{path}: an unclosed ${{{{ ... }}}} expression")

    def check_gitlab(self, path):
        doc = self.load(path)
        if doc is None:
            return
        stages = doc.get("stages") or []
        if not stages:
            self.problems.append(f"{path}: no stages")
        jobs = {k: v for k, v in doc.items() if k not in GITLAB_KEYWORDS and not str(k).startswith(".")}
        if not jobs:
            self.problems.append(f"{path}: no jobs")
        for name, job in doc.items():
            if name in GITLAB_KEYWORDS or not isinstance(job, dict):
                continue
            where = f"{path}: job {name}"
            extends = job.get("extends")
            for parent in ([extends] if isinstance(extends, str) else extends or []):
                if parent not in doc:
                    self.problems.append(f"{where}: extends '{parent}', which is not defined")
            if name in jobs:
                merged = dict(doc.get(extends, {})) if isinstance(extends, str) else {}
                merged.update(job)
                if "script" not in merged:
                    self.problems.append(f"{where}: no script")
                if merged.get("stage") not in stages:
                    self.problems.append(f"{where}: stage '{merged.get('stage')}' is not in stages")
            for key in ("before_script", "script", "after_script"):
                self.check_commands(f"{where}, {key}", lines_of(job.get(key)))
        for key in ("before_script", "after_script"):
            self.check_commands(f"{path}: {key}", lines_of(doc.get(key)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--trainbench", required=True)
    args = parser.parse_args()
    checker = Checker(args.trainbench)
    checker.check_github(f"{args.root}/examples/ci/github-actions.yml")
    checker.check_gitlab(f"{args.root}/examples/ci/gitlab-ci.yml")
    for p in checker.problems:
        print(p)
    print(f"{len(checker.problems)} problem(s) in examples/ci/ ({len(checker.helps)} trainbench commands checked)")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
