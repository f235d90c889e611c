"""`mqcheck match` as a user runs it: the installed console script, exit statuses, messages."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from checker.cli import main


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "checker.cli", *argv], capture_output=True, text=True, check=False
    )


def test_done_when_example_answers_yes():
    # Issue #2 "Done when": mqcheck match 'Sports/#/Leeds' 'Sports/Leeds' answers yes
    proc = run_cli("match", "Sports/#/Leeds", "Sports/Leeds")
    assert proc.returncode == 0
    assert proc.stdout.startswith("yes:")
    assert proc.stderr == ""


@pytest.mark.parametrize(
    "argv,status,first_word",
    [
        (["match", "USA/+", "USA"], 1, "no:"),
        (["match", "USA/#", "USA"], 0, "yes:"),
        (["match", "IBM/*/Results", "IBM/Patents/Software/Results", "--scheme", "char"], 0, "yes:"),
        (["match", "x/*/y", "x/y", "--scheme", "char"], 1, "no:"),
    ],
)
def test_match_exit_status(capsys, argv, status, first_word):
    assert main(argv) == status
    assert capsys.readouterr().out.startswith(first_word)


def test_char_scheme_prints_the_proxy_subscription(capsys):
    assert main(["match", "/aaa/bbb/c*d", "/aaa/bbb/cxd", "--scheme", "char"]) == 0
    out = capsys.readouterr().out
    assert "proxy subscription: '/aaa/bbb/#'" in out


def test_json_output(capsys):
    assert main(["match", "IBM/*ware/Results", "IBM/Hardware/Results", "--scheme", "char", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "subscription": "IBM/*ware/Results",
        "topic": "IBM/Hardware/Results",
        "scheme": "char",
        "matches": True,
        "wildcard": True,
        "proxy_subscription": "IBM/#",
    }


@pytest.mark.parametrize(
    "argv,message",
    [
        (["match", "a%b", "x", "--scheme", "char"], "'%' must be followed by '*', '?' or '%', not 'b'"),
        (["match", "abc%", "x", "--scheme", "char"], "not the end of the string"),
        # which argument is wrong (a user trial: both said only "must not be empty")
        (["match", "#", ""], "<command line>: TOPIC: a topic string must not be empty"),
        (["match", "", "x"], "<command line>: SUBSCRIPTION: a topic string must not be empty"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, message):
    proc = run_cli(*argv)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mqcheck: error: ")
    assert message in lines[0]
    assert "Traceback" not in proc.stderr


def test_control_characters_are_escaped_in_answers_and_errors():
    # a topic string may hold any character (002 §Topic strings); the terminal sees escapes
    proc = run_cli("match", "a/\x1b[2J#", "a/\x1b[2Jb\nno")
    assert proc.returncode == 1
    assert proc.stdout == "no: 'a/\\x1b[2J#' (topic scheme) does not match 'a/\\x1b[2Jb\\nno'\n"
    proc = run_cli("match", "a%\x1b\x9b", "x", "--scheme", "char")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "\x1b" not in proc.stderr and "\x9b" not in proc.stderr and "not '\\x1b'" in proc.stderr
    proc = run_cli("match", "a/\u202e#", "a/\u202eb", "--json")
    assert "\u202e" not in proc.stdout and json.loads(proc.stdout)["topic"] == "a/\u202eb"


@pytest.mark.parametrize("argv, message", [
    ([b"Sports/\xff", b"Sports/x"], "SUBSCRIPTION: not UTF-8 text: byte 0xff at character 8"),
    ([b"Sports/#", b"Sports/caf\xe9"], "TOPIC: not UTF-8 text: byte 0xe9 at character 11"),
])
def test_a_topic_string_that_is_not_utf8_is_bad_input(argv, message):
    # Latin-1 bytes on the command line: the answer was "no: 'Sports/\udcff' ...", exit 1
    proc = subprocess.run([sys.executable, "-m", "checker.cli", "match", *argv], capture_output=True, check=False)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr.decode() == (f"mqcheck: error: <command line>: {message} "
                                    "(topic strings are Unicode: give them as UTF-8)\n")
