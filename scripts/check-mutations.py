#!/usr/bin/env python3
"""Grades a chapter's mutations: known wrong and right fixes, applied to its solution.

usage: scripts/check-mutations.py NN-Name [mutation-name ...]

Each `Mutations/NN-Name/*.mutation` file is applied on top of `Solutions/NN-Name`
in a scratch copy of the repository (`$TMPDIR/workshop-mutations/NN-Name`, the
checkout itself is never touched). The copy is built with the solutions, the
runner left out and the other chapters skipped, once plain and once under
Thread Sanitizer, and every check of the chapter runs alone in both builds.
A wrong fix must fail at least one check (a failed expectation, a crash, a hang
or a TSan report); a right fix must pass all of them, in both builds.

The format of a mutation file:

    # One line: the mistake a learner would make (or the approach).
    kind: wrong            (or: kind: right)
    --- File.swift
    <<<<<<< find
    exact text from the solution file (must occur exactly once)
    =======
    replacement text
    >>>>>>> replace

A section may hold several blocks; a section with no block replaces the whole
file with its body. Needs rsync. A maintainer's aid: `workshop verify` does not
run it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ESC = re.compile(r"\x1b\[[0-9;]*m")


def parse(path):
    text = open(path).read()
    title = next((l.lstrip("# ").strip() for l in text.split("\n") if l.startswith("#")), "")
    kind = re.search(r"^kind:\s*(\w+)", text, re.M).group(1)
    sections, current = {}, None
    for line in text.split("\n"):
        match = re.match(r"^--- (\S+)$", line)
        if match:
            current = match.group(1)
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return title, kind, {name: "\n".join(body) for name, body in sections.items()}


def apply(sections, folder):
    for name, body in sections.items():
        path = os.path.join(folder, name)
        if "<<<<<<< find" not in body:
            open(path, "w").write(body.strip("\n") + "\n")
            continue
        content = open(path).read()
        for find, replace in re.findall(r"<<<<<<< find\n(.*?)\n=======\n(.*?)>>>>>>> replace", body + "\n", re.S):
            replace = replace[:-1] if replace.endswith("\n") else replace
            count = content.count(find)
            if count != 1:
                raise SystemExit(f"{name}: the find text occurs {count} times, not once:\n{find}")
            content = content.replace(find, replace)
        open(path, "w").write(content)


def main():
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    folder, only = sys.argv[1], sys.argv[2:]
    number, module = int(folder.split("-")[0]), folder.split("-", 1)[1]
    work = os.path.join(tempfile.gettempdir(), "workshop-mutations", folder)
    os.makedirs(work, exist_ok=True)
    subprocess.run(["rsync", "-a", "--delete", "--exclude", ".build", "--exclude", ".git",
                    repo + "/", work + "/src/"], check=True)
    src = work + "/src"
    numbers = [c["number"] for c in json.load(open(src + "/curriculum.json"))["chapters"]]
    env = dict(os.environ, WORKSHOP_GRADING="1", WORKSHOP_SOLUTIONS="1",
               WORKSHOP_SKIP=",".join(str(n) for n in numbers if n != number),
               TSAN_OPTIONS="halt_on_error=0", SWIFT_BACKTRACE="enable=no")
    stamp = [time.time() + 5]

    def reset(sections):
        solution = f"{src}/Solutions/{folder}"
        shutil.rmtree(solution)
        shutil.copytree(f"{repo}/Solutions/{folder}", solution)
        if sections:
            apply(sections, solution)
        # SwiftPM compares file dates to the second: give every variant a new one.
        stamp[0] += 2
        for name in os.listdir(solution):
            os.utime(os.path.join(solution, name), (stamp[0], stamp[0]))

    def build(tsan):
        scratch = f"{src}/.build/{'tsan' if tsan else 'plain'}"
        command = ["swift", "build", "--build-tests", "--scratch-path", scratch]
        result = subprocess.run(command + (["--sanitize=thread"] if tsan else []), cwd=src, env=env,
                                capture_output=True, text=True)
        if result.returncode != 0:
            errors = [l for l in (result.stdout + result.stderr).split("\n") if "error:" in l]
            return None, "\n".join(errors[:5])
        return f"{scratch}/debug/WorkshopPackageTests.xctest", ""

    def checks(binary):
        result = subprocess.run([binary, "--testing-library", "swift-testing", "--list-tests"], env=env,
                                capture_output=True, text=True)
        return [l.strip() for l in result.stdout.split("\n") if l.strip().startswith(module + "Tests.")]

    def run(binary, check):
        try:
            result = subprocess.run([binary, "--testing-library", "swift-testing", "--filter", re.escape(check)],
                                    env=env, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "hang"
        out = ESC.sub("", result.stdout + result.stderr)
        races = "WARNING: ThreadSanitizer" in out
        if result.returncode < 0 or result.returncode > 128:
            return "crash"
        failed = re.search(r"✘ Test .* failed", out) is not None
        if failed and races:
            return "fail+race"
        if races:
            return "race"
        if failed:
            return "fail"
        if "✔ Test run with 1 test" in out:
            return "pass"
        return f"exit {result.returncode}"

    mutations = f"{repo}/Mutations/{folder}"
    names = sorted(f[:-len(".mutation")] for f in os.listdir(mutations) if f.endswith(".mutation"))
    if only:
        names = [n for n in names if n in only]
    ok = True
    try:
        for name in ["(solution)"] + names:
            if name == "(solution)":
                title, kind, sections = "the reference solution", "right", None
            else:
                title, kind, sections = parse(f"{mutations}/{name}.mutation")
            reset(sections)
            results = {}
            for tsan in (False, True):
                binary, errors = build(tsan)
                if binary is None:
                    results = None
                    print(f"{name} ({kind}): does not compile\n{errors}", flush=True)
                    break
                for check in checks(binary):
                    short = re.sub(r"\(\).*", "", check.split("/")[-1])
                    results.setdefault(short, {})["tsan" if tsan else "plain"] = run(binary, check)
            if results is None:
                ok = False
                continue
            failing = {c: r for c, r in results.items() if r["plain"] != "pass" or r["tsan"] != "pass"}
            good = bool(failing) if kind == "wrong" else not failing
            ok = ok and good
            verdict = ("caught" if failing else "NOT CAUGHT") if kind == "wrong" else (
                "passes every check" if not failing else "FAILS")
            print(f"{'ok ' if good else 'BAD'} {name} ({kind}): {verdict}", flush=True)
            print(f"    {title}")
            for check, result in failing.items():
                print(f"    {check}: plain {result['plain']}, tsan {result['tsan']}")
    finally:
        reset(None)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
