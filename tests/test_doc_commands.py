"""Every command a page of the documentation shows names options that exist.

The README, ``docs/`` and ``docs/results/`` pages give the commands that reproduce their
figures.  A renamed or removed option would leave a command that fails for the reader who
copies it.  Commands are read from the fenced code blocks of every tracked ``.md`` file
(continuation lines joined, comments and ``$`` prompts dropped):

* ``structpred SUBCOMMAND [ACTION] --opt ...`` (also in an inline code span): every ``--opt`` must be an option of that
  subcommand's parser (the real ``argparse`` parser of :func:`structpred.cli.build_parser`,
  full names only, no abbreviations) and the action must exist;
* ``python scripts/X.py --opt ...`` and ``python benchmarks/X.py --opt ...``: the script must
  exist and every ``--opt`` must be declared in it or in a module of ``scripts/`` or
  ``benchmarks/`` it imports (read statically: the scripts are not run).
"""

import argparse
import re
import shlex
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
OPTION = re.compile(r"^--[A-Za-z][\w-]*")
DECLARED = re.compile(r"""["'](--[A-Za-z][\w-]*)["']""")
INLINE = re.compile(r"(?<!`)`(structpred [^`\n]+)`(?!`)")


def _pages():
    out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    return [ROOT / f for f in out if (ROOT / f).is_file()]


def _commands():
    """``(page, line number, words)`` of each command in a fenced block."""
    found = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for block in FENCE.finditer(text):
            start = text.count("\n", 0, block.start(1)) + 1
            lines = block.group(1).split("\n")
            i = 0
            while i < len(lines):
                first = i
                line = lines[i]
                while line.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line.rstrip()[:-1] + " " + lines[i].strip()
                i += 1
                line = line.strip()
                if line.startswith("$ "):
                    line = line[2:]
                line = line.split(" #", 1)[0].strip()
                if not line or line.startswith("#"):
                    continue
                for part in re.split(r"\s*(?:&&|\|\||;|\|)\s*", line):
                    try:
                        words = shlex.split(part)
                    except ValueError:
                        continue
                    words = _command_words(words)
                    if words and (words[0] == "structpred" or _script(words)):
                        found.append((page.relative_to(ROOT), start + first, words))
    return found


#: commands that run the command after them (with their own options and numbers first)
WRAPPERS = ("nice", "time", "env", "timeout")


def _command_words(words):
    """``words`` without leading ``NAME=value`` settings and wrapper commands (``nice -n
    10``, ``timeout 600``): the command itself."""
    while words and ("=" in words[0] and not words[0].startswith("-")
                     or words[0] in WRAPPERS):
        words = words[1:]
        while words and (words[0].startswith("-") or words[0].isdigit()):
            words = words[1:]   # the wrapper's options and their values
    return words


def _inline_commands():
    """``(page, line number, words)`` of each inline code span ```structpred ...``` outside
    the fenced blocks."""
    found = []
    for page in _pages():
        text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
        for m in INLINE.finditer(text):
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                continue
            found.append((page.relative_to(ROOT), text.count("\n", 0, m.start()) + 1, words))
    return found


def _script(words):
    return (len(words) > 1 and Path(words[0]).name.startswith("python")
            and re.match(r"(scripts|benchmarks)/\w+\.py$", words[1]) is not None)


@lru_cache(maxsize=None)
def _parser():
    return argparse_tree(__import__("structpred.cli", fromlist=["build_parser"])
                         .build_parser(load="all"))


def argparse_tree(parser):
    """``{path of subcommand names: set of option strings}`` of an argparse parser."""
    tree = {}

    def walk(p, path):
        opts = set()
        for action in p._actions:
            opts.update(s for s in action.option_strings if s.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, path + (name,))
        tree[path] = opts

    walk(parser, ())
    return tree


@lru_cache(maxsize=None)
def _declared(script):
    """The ``--options`` declared in ``script`` and the scripts' modules it imports."""
    path = ROOT / script
    text = path.read_text(encoding="utf-8")
    opts = set(DECLARED.findall(text))
    for mod in re.findall(r"^\s*from (\w+) import|^\s*import (\w+)", text, re.M):
        name = mod[0] or mod[1]
        for folder in ("scripts", "benchmarks"):
            other = ROOT / folder / f"{name}.py"
            if other.is_file() and other != path:
                opts |= set(DECLARED.findall(other.read_text(encoding="utf-8")))
    return opts


#: script options whose following words are options of a structpred command
PASS_THROUGH = {"--train-args": ("align", "train")}

COMMANDS = _commands() + _inline_commands()


def test_the_pages_show_commands():
    assert sum(w[0] == "structpred" for _, _, w in COMMANDS) >= 20
    assert sum(w[0] != "structpred" for _, _, w in COMMANDS) >= 20


@pytest.mark.parametrize("page,line,words", [c for c in COMMANDS if c[2][0] == "structpred"],
                         ids=lambda v: str(v) if not isinstance(v, list) else "")
def test_structpred_commands_name_options_that_exist(page, line, words):
    tree = _parser()
    path = ()
    words = [words[0]] + [w for w in words[1:] if w not in ("--debug",)]
    if words[1:2] in (["COMMAND"], ["..."], []):   # a placeholder: no command to check
        return
    for w in words[1:]:
        if w.startswith("-") or path + (w,) not in tree:
            break
        path += (w,)
    where = f"{page}:{line}: {' '.join(words)[:120]}"
    assert path, f"{where}: no such subcommand {words[1:2]}"
    subs = {k[len(path)] for k in tree if len(k) > len(path) and k[:len(path)] == path}
    if subs and not any(w in subs for w in words[1 + len(path):2 + len(path)]):
        nxt = words[1 + len(path)] if len(words) > 1 + len(path) else None
        if nxt not in ("-h", "--help", None):   # None: the group itself ("structpred tag")
            assert nxt in subs, f"{where}: '{' '.join(path)}' has no action {nxt!r} ({sorted(subs)})"
    known = tree[path] | {"--help", "--version", "--debug"}
    for w in words[1 + len(path):]:
        m = OPTION.match(w)
        if m:
            assert m.group(0) in known, f"{where}: {' '.join(path)} has no option {m.group(0)}"


@pytest.mark.parametrize("page,line,words", [c for c in COMMANDS if c[2][0] != "structpred"],
                         ids=lambda v: str(v) if not isinstance(v, list) else "")
def test_script_commands_name_options_that_exist(page, line, words):
    where = f"{page}:{line}: {' '.join(words)[:120]}"
    script = words[1]
    assert (ROOT / script).is_file(), f"{where}: no such script {script}"
    known = _declared(script) | {"--help"}
    for i, w in enumerate(words[2:], 2):
        if w in PASS_THROUGH:   # the rest are options of a structpred command
            path = PASS_THROUGH[w]
            rest = [o for o in words[i + 1:] if OPTION.match(o)]
            missing = [o for o in rest if OPTION.match(o).group(0) not in _parser()[path]]
            assert not missing, f"{where}: structpred {' '.join(path)} has no option {missing}"
            break
        m = OPTION.match(w)
        if m:
            assert m.group(0) in known, f"{where}: {script} declares no option {m.group(0)}"
