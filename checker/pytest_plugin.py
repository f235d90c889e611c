"""pytest collects mqcheck scenario files as tests (entry point ``pytest11``: ``mqcheck``).

An MQ team keeps its queue managers' MQSC in a repository and runs ``pytest`` in CI: every
scenario file becomes test items, and a change that breaks a property fails the build with
the counterexample in the failure. Shaped like pytest's "Working with non-python tests"
example and tavern's plugin (a ``pytest.File`` per document, marks read from the file, a
failure that shows the user's file and line instead of a traceback).

Which files: a ``.toml`` whose name matches an ``mqcheck_patterns`` ini pattern (default
``*.mqcheck.toml``), or any ``.toml`` under an ``mqcheck_paths`` directory that has an
``[[expect]]``, ``[check]`` or ``[pytest]`` table. Nothing else is opened, and the plugin
changes nothing global (tavern #825): it adds two ini options and the ``mqcheck`` marker,
and every other hook returns at once for files that are not scenarios. spec, properties
and checker.explore are imported only when a scenario file is collected.

Items, from a registry of item kinds (:data:`ITEM_KINDS`):

- ``FILE::run`` — the scenario's ``[[expect]]`` blocks under ``mqcheck run``'s
  deterministic scheduler (only when it has some); a failure lists each failed block with
  its TOML line and what differed.
- ``FILE::PROPERTY-ID`` — one per property of ``mqcheck check``'s catalogue (plus
  ``EXPECT`` when the file has expectations), from one exploration per file shared by its
  items (of the items selected, so ``-k`` narrows the exploration too). A violation shows
  the shortest counterexample trace, each scenario step with its TOML line. A run stopped
  by a bound fails ("incomplete") unless ``[pytest] accept_incomplete = true``. A
  property named in ``[pytest] properties`` must also be non-vacuous (its witness
  reached), and a ``sometimes`` property named there must be witnessed.

- ``FILE::prove[N]`` — one per ``[[prove]]`` claim, decided with Z3 as ``mqcheck prove
  FILE`` does; a refutation (or a "possible" claim without witness, or Z3's unknown) fails
  with the counterexample scenario and its replay command.

``[pytest]`` table (spec.scenario.PytestOptions): ``marks``, ``xfail``/``skip`` (a reason
for every item, or ``{ ITEM = "reason" }``), ``check``, ``properties``, ``backend``,
``max_states``, ``max_depth``, ``timeout``, ``accept_incomplete``.

With pytest-html writing a report (``--html``), each mqcheck item carries a link to the
mqcheck HTML report (``reports``) of its file's run or exploration, written once per file
and kind into ``mqcheck-reports/`` beside pytest-html's file.

After the run, a terminal section lists per file how many property items passed only
vacuously (by family; ``-v``: their ids). Ctrl-C or SIGTERM during an exploration stops the
session (the exploration catches both, to end with what it explored; a pytest session must
stop instead); pytest-timeout cutting an exploration fails that file's property items in a
few lines, without exploring again.

Limits: with pytest-xdist, items of one file on different workers explore separately (the
same verdicts, more work): use ``--dist loadfile``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ITEM_KINDS", "MqcheckFailure", "PropertyItem", "ProveItem", "RunItem", "ScenarioFile", "register_item_kind"]

DEFAULT_PATTERNS = ("*.mqcheck.toml",)
_TABLES = re.compile(r"^[ \t]*(\[\[expect\]\]|\[check\]|\[pytest\])[ \t]*(#.*)?$", re.MULTILINE)
_SNIFF_BYTES = 1 << 20  # a scenario under mqcheck_paths declares its tables within the first MiB


# --------------------------------------------------------------------------- hooks
def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("mqcheck_patterns", type="args", default=list(DEFAULT_PATTERNS),
                  help="mqcheck: file name patterns of scenario files to collect (default *.mqcheck.toml)")
    parser.addini("mqcheck_paths", type="paths", default=[],
                  help="mqcheck: directories under which any .toml with [[expect]], [check] or [pytest] "
                       "is a scenario file to collect")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mqcheck: an item collected from an mqcheck scenario file")


def pytest_collect_file(file_path, parent: pytest.Collector):
    if file_path.suffix != ".toml":
        return None
    config = parent.config
    if any(fnmatch.fnmatch(file_path.name, p) for p in config.getini("mqcheck_patterns")):
        return ScenarioFile.from_parent(parent, path=file_path)
    roots = config.getini("mqcheck_paths")
    if roots and any(_is_under(file_path, r) for r in roots) and _declares_tables(file_path):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Property items that passed only vacuously, per file and catalogue family (session
    36): "45 passed" for a workload scenario read as if its 20 publish/subscribe
    properties had been checked, where nothing they speak of ever happened. Each stays a
    pass (README: a vacuous verdict fails only a property named in ``[pytest]
    properties``); this says which they are, as ``mqcheck check`` groups them."""
    from reports.unexercised import family

    vacuous: dict[str, list[str]] = {}
    items: dict[str, int] = {}
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", ()) or ())
        if "verdict" not in props:
            continue
        file, _, pid = report.nodeid.rpartition("::")
        items[file] = items.get(file, 0) + 1
        if "vacuous" in props:
            vacuous.setdefault(file, []).append(pid)
    if not vacuous:
        return
    total = sum(len(v) for v in vacuous.values())
    verbose = config.getoption("verbose", 0) > 0
    terminalreporter.write_sep("=", f"mqcheck: {total} passed only vacuously", yellow=True)
    terminalreporter.write_line("They hold because what they speak of never happened: their witness was not reached.")
    for file, pids in vacuous.items():
        by_family: dict[str, list[str]] = {}
        for pid in pids:
            by_family.setdefault(family(pid), []).append(pid)
        counts = ", ".join(f"{fam} {len(members)}" for fam, members in by_family.items())
        terminalreporter.write_line(f"{_printable(file)}: {len(pids)} of {items[file]} passed ({counts})")
        if verbose:
            for fam, members in by_family.items():
                terminalreporter.write_line(f"  {fam}: {', '.join(_printable(m) for m in members)}")
    terminalreporter.write_line(("" if verbose else "-v lists them. ") + "A property named in the file's [pytest] "
                                "properties fails when it holds only vacuously.")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """With pytest-html writing a report (``--html``), attach to each mqcheck item a link to
    the mqcheck HTML report of its run or exploration (one per file and kind, written beside
    pytest-html's report in ``mqcheck-reports/``). Inert otherwise."""
    outcome = yield
    if call.when != "call" or not isinstance(item, (RunItem, PropertyItem)):
        return
    html_path = item.config.getoption("htmlpath", default=None)
    if not html_path or not item.config.pluginmanager.hasplugin("html"):
        return
    from pytest_html import extras

    report = outcome.get_result()
    try:
        link = _html_report(item, Path(html_path).parent)
    except Exception as err:  # the attachment never changes the test's outcome
        note = _printable(f"mqcheck report not written: {type(err).__name__}: {err}")
        report.extras = [*getattr(report, "extras", []), extras.text(note, name="mqcheck report")]
        return
    if link is not None:
        report.extras = [*getattr(report, "extras", []), extras.url(link, name="mqcheck report")]


def _html_report(item: pytest.Item, out_dir: Path) -> str | None:
    """Write (once per file and kind) the mqcheck report of ``item``'s run or exploration
    under ``out_dir/mqcheck-reports``; the link relative to ``out_dir``."""
    import types
    from hashlib import blake2b

    import reports
    from checker.cli import _check_report_data, run_report_data

    file: ScenarioFile = item.parent
    scenario = file.scenario
    tag = blake2b(str(file.path.resolve()).encode(), digest_size=4).hexdigest()
    if isinstance(item, RunItem):
        source = getattr(item, "run_report", None)
        if source is None:
            return None
        kind, make = "run", lambda: run_report_data(scenario, source)
    else:
        source = file._exploration
        if source is None:
            return None
        bounds = types.SimpleNamespace(
            max_states=scenario.pytest.max_states if scenario.pytest.max_states is not None else scenario.check.max_states,
            max_depth=scenario.pytest.max_depth if scenario.pytest.max_depth is not None else scenario.check.max_depth,
            faults=None, explore_initial=False)

        def make() -> dict:
            data = source.to_dict()
            data["scenario"] = scenario.name
            data["explore_initial"] = file.model.explore_initial
            return _check_report_data(bounds, scenario, file.model, data)
        kind = "check"
    written = getattr(file, "_html_reports", {})
    file._html_reports = written
    name = f"mqcheck-reports/{file.path.stem}-{tag}-{kind}.html"
    if written.get(kind) is not source:
        target = out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        reports.write(str(target), [make()])
        written[kind] = source
    return name


def _is_under(path, root) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _declares_tables(path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return _TABLES.search(head) is not None


# --------------------------------------------------------------------------- failures
class MqcheckFailure(Exception):
    """A failed item: ``lines`` are shown as the failure, with no traceback."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def _shown(item: pytest.Item | pytest.File, text: str) -> str:
    """``text`` with the scenario's directory written relative to where pytest was started
    (as pytest writes node ids), so messages read ``mesh.mqcheck.toml:36``."""
    base = str(item.path.parent)
    rel = os.path.relpath(base, item.config.invocation_params.dir)
    prefix = "" if rel == "." else (rel + os.sep if not rel.startswith("..") else base + os.sep)
    return text.replace(base + os.sep, prefix)


def _printable(text: str) -> str:
    from spec.errors import printable

    return printable(text)


def _user_error(excinfo) -> str | None:
    """The one line for bad input (spec.errors.InputError), as ``mqcheck`` prints it."""
    from spec.errors import InputError

    if isinstance(excinfo.value, InputError):
        return f"mqcheck: error: {excinfo.value.one_line()}"
    return None


def _nearest_item(name: str, names: Iterable[str]) -> str:
    """``did you mean ITEM?`` for a misspelt item name (case kept: ``run`` is lower case)."""
    import difflib

    by_upper = {n.upper(): n for n in names}
    close = difflib.get_close_matches(name.upper(), sorted(by_upper), n=1, cutoff=0.7)
    return f"did you mean {by_upper[close[0]]}?" if close else ""


# --------------------------------------------------------------------------- the file
class ScenarioFile(pytest.File):
    """One scenario file: loads it once, asks every item kind for its items, applies the
    ``[pytest]`` table's marks, and keeps the exploration its property items share."""

    def collect(self):
        from spec.errors import InputError
        from spec.scenario import load_scenario

        self.scenario = load_scenario(self.path)
        options = self.scenario.pytest
        items = [item for factory in ITEM_KINDS.values() for item in factory(self, self.scenario)]
        if not items:   # a scenario file named as a test that tests nothing would pass unseen
            line, column = options.at("check") if not options.check else options.at("properties")
            raise InputError("this scenario file gives pytest nothing to test: it has no [[expect]] block and no "
                             "[[prove]] claim, and its [pytest] table checks no property",
                             file=str(self.path), line=line, column=column,
                             suggestion="add an [[expect]] block, or drop 'check = false' / 'properties = []' "
                                        "from [pytest]")
        names = {item.name for item in items}
        for what, pairs in (("xfail", options.xfail), ("skip", options.skip)):
            for name, _ in pairs:
                if name and name not in names:
                    line, column = options.at(f"{what}.{name}")
                    raise InputError(f"pytest.{what}: {name} is not an item of this file; its items: "
                                     f"{', '.join(sorted(names)) or 'none'}", file=str(self.path),
                                     line=line, column=column, suggestion=_nearest_item(name, names))
        _register_marks(self.config, options.marks)
        for item in items:
            item.add_marker(pytest.mark.mqcheck)
            for mark in options.marks:
                item.add_marker(getattr(pytest.mark, mark))
            # the reasons are the user's text, which pytest prints as given (-rsx)
            for name, reason in options.xfail:
                if name in ("", item.name):
                    item.add_marker(pytest.mark.xfail(reason=_printable(reason)))
            for name, reason in options.skip:
                if name in ("", item.name):
                    item.add_marker(pytest.mark.skip(reason=_printable(reason)))
        self._exploration = None
        self._explored_ids: frozenset[str] = frozenset()
        self._cut: list[str] | None = None   # pytest stopped the exploration (a timeout): why
        return items

    def repr_failure(self, excinfo, style=None):
        error = _user_error(excinfo)
        return _shown(self, error) if error else super().repr_failure(excinfo)

    def exploration(self, property_id: str):
        """The shared ``check`` exploration: of the property items of this file that the
        session runs (so ``-k`` and ``--lf`` narrow it), explored once."""
        selected = {i.name for i in self.session.items if isinstance(i, PropertyItem) and i.parent is self}
        selected.add(property_id)
        if self._cut is not None:
            raise MqcheckFailure([f"{property_id}: not decided", *self._cut])
        if self._exploration is None or property_id not in self._explored_ids:
            try:
                result = _explore(self.scenario, self.model, sorted(selected))
            except pytest.fail.Exception as err:
                # pytest stopped the exploration from outside (pytest-timeout's --timeout or
                # timeout ini: session 36). Its failure was pytest's whole internal traceback,
                # some 1,400 lines, and every further item of the file explored again until
                # the same timeout: say it once, and fail the file's other items at once.
                self._cut = [f"pytest stopped the exploration of {self.path.name}: {err.msg}",
                             "No property of this file is decided: its other property items fail with this too.",
                             "To bound the exploration itself (the verdicts up to the bound, and what to change to "
                             "finish), give the file's [pytest] table a timeout below pytest's, or max_states; "
                             "add accept_incomplete = true if bounded evidence is enough."]
                raise MqcheckFailure([f"{property_id}: not decided", *self._cut]) from None
            _stop_session_if_signalled(self, result)
            self._explored_ids = frozenset(selected)
            self._exploration = result
        return self._exploration

    @property
    def model(self):
        if getattr(self, "_model", None) is None:
            from checker.cli import _check_properties
            from spec.network import MQNetwork

            self._model = MQNetwork(self.scenario, _check_properties(self.scenario))
        return self._model


def _stop_session_if_signalled(file: "ScenarioFile", result) -> None:
    """Ctrl-C or SIGTERM stopped the exploration (it catches both, to end with what it
    explored): stop the pytest session as the signal would have stopped it without
    mqcheck, instead of failing every property item of the file as "incomplete" (with
    advice to raise the bounds) and going on with the next file (session 36: a CI job
    cancelled with SIGTERM ran on). Ctrl-C is pytest's KeyboardInterrupt (its summary,
    exit status 2); SIGTERM ends the session with the same summary and status."""
    from checker.explore import INTERRUPTED_BY_SIGTERM, stopped_by_signal

    reason = result.statistics.stop_reason
    if not stopped_by_signal(reason):
        return
    st = result.statistics
    what = (f"mqcheck: the exploration of {file.path.name} was {reason} after {st.distinct_states:,} states "
            "(incomplete: no verdict of it is reported)")
    if reason.startswith(INTERRUPTED_BY_SIGTERM):
        pytest.exit(what, returncode=pytest.ExitCode.INTERRUPTED)
    raise KeyboardInterrupt(what)


def _explore(scenario, model, property_ids: list[str]):
    options = scenario.pytest
    bounds = dict(
        max_states=options.max_states if options.max_states is not None else scenario.check.max_states,
        max_depth=options.max_depth if options.max_depth is not None else scenario.check.max_depth,
        property_ids=property_ids,
    )
    if options.backend == "spark":
        from checker.spark import explore_spark

        return explore_spark(model, **bounds)
    from checker.explore import explore

    # one process: no helper outlives the item, and xdist workers do not fork more
    return explore(model, timeout=options.timeout, workers=1, **bounds)


# --------------------------------------------------------------------------- item kinds
ItemFactory = Callable[[ScenarioFile, Any], Iterable[pytest.Item]]
ITEM_KINDS: dict[str, ItemFactory] = {}


def register_item_kind(name: str, factory: ItemFactory) -> None:
    """Add a kind of item every scenario file may produce (``factory(file, scenario)``
    yields items); kinds are collected in registration order."""
    ITEM_KINDS[name] = factory


class RunItem(pytest.Item):
    """``FILE::run``: the ``[[expect]]`` blocks, after ``mqcheck run``'s deterministic run."""

    def runtest(self) -> None:
        from spec.network import run_scenario

        scenario = self.parent.scenario
        report = run_scenario(scenario)
        self.run_report = report   # what pytest-html's attachment draws (pytest_runtest_makereport)
        failed = [r for r in report.expectations if not r.ok]
        if failed:
            lines = [f"{len(failed)} of {len(report.expectations)} [[expect]] blocks failed after `mqcheck run "
                     f"{self.path.name}`"]
            by_index = {e.index: e for e in scenario.expects}
            for r in failed:
                line = by_index[r.index].line if r.index in by_index else 0
                lines.append(f"{scenario.file}:{line}: [[expect]] #{r.index}:")
                lines.extend(f"    - {_printable(f)}" for f in r.failures)
            raise MqcheckFailure(lines)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MqcheckFailure):
            return _shown(self, str(excinfo.value))
        return _user_error(excinfo) or super().repr_failure(excinfo)

    def reportinfo(self):
        line = min((e.line for e in self.parent.scenario.expects), default=1)
        return self.path, line - 1, f"mqcheck run: {self.path.name} [[expect]]"


def _run_items(file: ScenarioFile, scenario) -> Iterable[pytest.Item]:
    if scenario.expects:
        yield RunItem.from_parent(file, name="run")


class PropertyItem(pytest.Item):
    """``FILE::ID``: one property's verdict from the file's shared exploration."""

    def __init__(self, *, property_id: str, explicit: bool, **kwargs) -> None:
        super().__init__(**kwargs)
        self.property_id = property_id
        self.explicit = explicit  # named in [pytest] properties: vacuity and "never reached" fail

    def runtest(self) -> None:
        from checker.model import Status

        scenario = self.parent.scenario
        result = self.parent.exploration(self.property_id)
        verdict = result.verdicts[self.property_id]
        self.user_properties.append(("verdict", verdict.status.value))
        st = result.statistics
        if verdict.status is Status.VIOLATED:
            raise MqcheckFailure(self._violation(verdict, result))
        if verdict.status is Status.NOT_CHECKED:
            pytest.skip(f"{self.property_id}: {verdict.status.value} ({verdict.note or result.backend})")
        if not st.complete and not scenario.pytest.accept_incomplete:
            from checker.advice import incomplete_advice, looping

            model = self.parent.model
            # what `mqcheck check` advises for the same run (session 33): which of the
            # scenario's levers make it finish, not only "raise the bounds"
            advice = incomplete_advice(model, st, looping(model, result))
            raise MqcheckFailure(self._head(verdict, result) + [
                f"The exploration stopped at a bound ({st.stop_reason}) after {st.distinct_states:,} states, depth "
                f"{st.max_depth}: an incomplete run does not pass.",
                "Raise max_states/max_depth/timeout in the file's [pytest] or [check] table, or accept bounded "
                "evidence with [pytest] accept_incomplete = true.", *([""] + advice if advice else [])])
        if self.explicit and verdict.status in (Status.NEVER_REACHED, Status.NOT_REACHED_UP_TO_BOUND):
            raise MqcheckFailure(self._head(verdict, result) + [
                f"{self.property_id} is listed in [pytest] properties but no explored state satisfies it."])
        if self.explicit and verdict.vacuous:
            reached = ("was never reached, so nothing it speaks of happened" if st.complete else
                       f"was not reached within the bound ({st.stop_reason}), so nothing it speaks of happened "
                       "in the states explored")
            raise MqcheckFailure(self._head(verdict, result) + [
                f"{self.property_id} is listed in [pytest] properties but holds vacuously: its witness "
                f"{verdict.witness} {reached}."])
        if verdict.vacuous:
            self.user_properties.append(("vacuous", verdict.witness or ""))

    def _head(self, verdict, result) -> list[str]:
        from checker.model import format_verdict

        scenario, st = self.parent.scenario, result.statistics
        state = "complete" if st.complete else f"INCOMPLETE ({st.stop_reason})"
        return [f"{self.property_id}: {format_verdict(verdict)}",
                _printable(f"{verdict.title} ({verdict.citation})"),
                _printable(f"scenario: {scenario.file} ({scenario.name})"),
                f"explored: {st.distinct_states:,} distinct states, depth {st.max_depth}, {state}, "
                f"{result.backend} backend", ""]

    def _violation(self, verdict, result) -> list[str]:
        from checker.cli import _trace_lines, expect_failures

        scenario = self.parent.scenario
        lines = self._head(verdict, result) + ["Counterexample (shortest; `mqcheck check "
                                       f"{self.path.name} --property {self.property_id}` prints it too):"]
        step_lines = {s.index: s.line for s in scenario.steps}
        for text in _trace_lines(verdict.trace):
            lines.append(_STEP_REF.sub(lambda m: _with_line(m, step_lines, scenario.file), text, count=1))
        if self.property_id == "EXPECT":
            why = expect_failures(self.parent.model, verdict.trace, result.statistics.fingerprint_bits)
            lines += ["At its last state:", *(f"    - {w}" for w in why)] if why else []
            lines.append("")
            lines.append("[[expect]] blocks: " + ", ".join(f"#{e.index} at {scenario.file}:{e.line}"
                                                            for e in scenario.expects))
        lines += ["", "MQSC of the queue managers: " + ", ".join(f"{q.name} at {q.source}:{q.line}"
                                                                     if q.source == scenario.file else
                                                                     f"{q.name} in {q.source}"
                                                                     for q in scenario.qmgrs)]
        return lines

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MqcheckFailure):
            return _shown(self, str(excinfo.value))
        return _user_error(excinfo) or super().repr_failure(excinfo)

    def reportinfo(self):
        return (self.path, max(self.parent.scenario.pytest.line - 1, 0),
                f"mqcheck check: {self.path.name} {self.property_id}")


def _register_marks(config: pytest.Config, marks: Iterable[str]) -> None:
    """Register the marks a scenario's ``[pytest] marks`` names, as a conftest would: they
    are declared in the file itself, so neither PytestUnknownMarkWarning nor
    ``--strict-markers`` should object to them (``-m`` selects them as any mark)."""
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    for mark in marks:
        if mark not in known:
            config.addinivalue_line("markers", f"{mark}: set by the [pytest] marks of an mqcheck scenario file")
            known.add(mark)


_STEP_REF = re.compile(r"steps\[(\d+)\]")


def _with_line(m: re.Match, step_lines: dict[int, int], file: str) -> str:
    line = step_lines.get(int(m.group(1)))
    return f"{m.group(0)} ({file}:{line})" if line else m.group(0)


def _check_items(file: ScenarioFile, scenario) -> Iterable[pytest.Item]:
    from checker.model import Kind
    from spec.errors import InputError

    options = scenario.pytest
    if not options.check:
        return
    if options.backend == "spark" and options.timeout is not None:
        line, column = options.at("timeout")
        raise InputError("pytest.timeout only applies with the local backend (as mqcheck check --timeout)",
                         file=str(file.path), line=line, column=column,
                         suggestion="bound a Spark run with max_states or max_depth")
    props = file.model.properties()
    known = {p.id: p for p in props}
    if options.properties is None:
        wanted = [p.id for p in props if p.kind is not Kind.SOMETIMES]
    else:
        for i, pid in enumerate(options.properties):
            if pid not in known:  # as `check --property` says it: a near miss alone, or why it does not apply
                from checker.cli import _unknown_property

                why = _unknown_property(pid, known)
                line, column = options.at(f"properties.{i}")
                if pid in ("EXPECT", "EXPECT-END"):   # session 36: it said "unknown", and listed ninety ids
                    why.message += "; this file has none (add one, or drop it from properties)"
                raise InputError(f"pytest.properties: {why.message}", file=str(file.path), line=line,
                                 column=column, suggestion=why.suggestion)
        wanted = list(dict.fromkeys(options.properties))
    for pid in wanted:
        yield PropertyItem.from_parent(file, name=pid, property_id=pid, explicit=options.properties is not None)


class ProveItem(pytest.Item):
    """``FILE::prove[N]``: the file's ``[[prove]]`` claim number N, decided with Z3 as
    ``mqcheck prove FILE`` decides it: a "never" claim passes when it is proved, a
    "possible" claim when a witness is found; a refutation, a claim left without witness
    and Z3's unknown fail, with the scenario file that replays the counterexample."""

    def __init__(self, *, claim, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self) -> None:
        import argparse
        import tempfile

        from checker.cli import _prove_scenario
        from checker.prove import PROVED, format_record

        factory = getattr(self.config, "_tmp_path_factory", None)
        out = factory.mktemp("mqcheck-prove") if factory is not None else tempfile.mkdtemp(prefix="mqcheck-prove-")
        timeout = self.parent.scenario.pytest.timeout or 60.0
        args = argparse.Namespace(bound=None, timeout=timeout, out=str(out))
        _, (record,) = _prove_scenario(args, str(self.path), table=False, only={self.claim.index})
        if record.verdict != PROVED:
            raise MqcheckFailure([f"{self.parent.scenario.file}:{self.claim.line}: [[prove]] #{self.claim.index} "
                                  f"{_printable(self.claim.name)!r}: {record.verdict}"]
                                 + [_printable(line) for line in format_record(record)])

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MqcheckFailure):
            return _shown(self, str(excinfo.value))
        return _user_error(excinfo) or super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.claim.line - 1, f"mqcheck prove: {self.path.name} [[prove]] #{self.claim.index}"


def _prove_items(file: ScenarioFile, scenario) -> Iterable[pytest.Item]:
    for claim in scenario.proves:
        yield ProveItem.from_parent(file, name=f"prove[{claim.index}]", claim=claim)


register_item_kind("run", _run_items)
register_item_kind("check", _check_items)
register_item_kind("prove", _prove_items)
