"""`scorebridge score --scorer`: a scorer of yours, from a file (`file.py@name`) or a module (`module:name`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorebridge._cli.main import main

MY_SCORERS = (Path(__file__).resolve().parents[1] / "examples" / "my_scorers.py").read_text(encoding="utf-8")
# Three rows: 0.1 %, 0.6 % and 1.4 % from the label, so 2 of 3 are within 1 %, all 3 within 5 %.
DATA = (
    '{"item": "100 / 3", "output": "33.3", "label": 33.333}\n'
    '{"item": "2 ** 10", "output": "1030", "label": 1024}\n'
    '{"item": "22 / 7", "output": "3.1", "label": 3.142857}\n'
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding my_scorers.py and data.jsonl, as the current folder."""
    (tmp_path / "my_scorers.py").write_text(MY_SCORERS, encoding="utf-8")
    (tmp_path / "data.jsonl").write_text(DATA, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # what the loader adds is undone after the test
    for name in [m for m in sys.modules if m.startswith(("my_scorers", "scorers_pkg", "_scorebridge_file_"))]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


def score(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["score", "data.jsonl", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_bar_command_works_as_written(folder: Path) -> None:
    scorebridge = Path(sys.executable).parent / "scorebridge"
    command = "score data.jsonl --scorer my_scorers.py@within_1pct -S tolerance=0.05 --fail-under 0.9 --format json"
    done = subprocess.run([str(scorebridge), *command.split()], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    summary = json.loads(done.stdout)
    assert (summary["name"], summary["rows"], summary["correct"], summary["accuracy"]) == ("within_1pct", 3, 3, 1.0)


def test_a_scorer_in_a_file_takes_its_defaults_without_options(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = score(capsys, "--scorer", "my_scorers.py@within_1pct", "--fail-under", "0.9")
    assert status == 3
    assert json.loads(out)["correct"] == 2
    assert "accuracy 0.6667" in err


def test_a_file_with_one_scorer_needs_no_name(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = score(capsys, "--scorer", "my_scorers.py", "-S", "tolerance=0.05")
    assert (status, json.loads(out)["correct"]) == (0, 3)


def test_a_scorer_in_a_module_by_package_module_name(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = folder / "scorers_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "numbers.py").write_text(MY_SCORERS, encoding="utf-8")
    status, out, _ = score(capsys, "--scorer", "scorers_pkg.numbers:within_1pct", "-S", "tolerance=0.05")
    assert (status, json.loads(out)["correct"]) == (0, 3)


def test_a_factory_in_a_module_is_called_with_the_options(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "factories.py").write_text(
        "import scorebridge as sb\n\n\ndef strict(normalise=False):\n    return sb.exact(normalise=normalise)\n",
        encoding="utf-8",
    )
    (folder / "data.jsonl").write_text('{"output": "PARIS", "label": "Paris"}\n', encoding="utf-8")
    assert json.loads(score(capsys, "--scorer", "factories:strict")[1])["correct"] == 0
    assert json.loads(score(capsys, "--scorer", "factories:strict", "-S", "normalise=yes")[1])["correct"] == 1


def test_an_assigned_scorer_is_found_by_its_variable(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a model-graded scorer cannot be made from -S: the user makes it in a file and names it there
    (folder / "graded.py").write_text(
        "import scorebridge as sb\nfrom scorebridge.testing import FakeGrader\n\n"
        'qa = sb.model_graded_qa(FakeGrader("GRADE: C"))\n',
        encoding="utf-8",
    )
    status, out, _ = score(capsys, "--scorer", "graded.py@qa")
    assert (status, json.loads(out)["name"], json.loads(out)["correct"]) == (0, "model_graded_qa", 3)


def test_a_file_can_import_the_files_beside_it(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "helpers.py").write_text("TOLERANCE = 0.05\n", encoding="utf-8")
    (folder / "mine.py").write_text(
        "from helpers import TOLERANCE\nfrom my_scorers import within_1pct\n\n"
        "loose = within_1pct.with_options(tolerance=TOLERANCE)\n",
        encoding="utf-8",
    )
    status, out, _ = score(capsys, "--scorer", "mine.py@loose")
    assert (status, json.loads(out)["correct"]) == (0, 3)


def test_an_unknown_option_names_the_scorers_options(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = score(capsys, "--scorer", "my_scorers.py@within_1pct", "-S", "tol=0.05")
    assert status == 2
    assert "scorer 'within_1pct' has no option tol; its options are tolerance" in err


def test_options_for_a_scorer_without_any_are_refused(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "plain.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef same(item, output, label):\n    return output == label\n",
        encoding="utf-8",
    )
    status, _, err = score(capsys, "--scorer", "plain.py@same", "-S", "x=1")
    assert status == 2
    assert "scorer 'same' takes no options; got x" in err


def test_a_plain_function_is_told_to_use_the_decorator(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "bare.py").write_text("def same(item, output, label):\n    return output == label\n", encoding="utf-8")
    status, _, err = score(capsys, "--scorer", "bare.py@same")
    assert status == 2
    assert "bare.py@same is a function of (item, output, label), not a Scorer: decorate it with @scorer" in err


def test_a_file_of_plain_functions_is_told_to_use_the_decorator(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it said only "defines no scorer; name one: bare.py@NAME", and naming one then gave this advice
    (folder / "bare.py").write_text("def same(item, output, label):\n    return output == label\n", encoding="utf-8")
    status, _, err = score(capsys, "--scorer", "bare.py")
    assert status == 2
    assert "defines no scorer; same is a function of (item, output, label), not a Scorer: decorate it" in err


def test_something_else_is_refused(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "other.py").write_text("NAME = 'exact'\n\n\ndef make():\n    return 42\n", encoding="utf-8")
    assert "other.py@NAME is a str, not a scorebridge Scorer" in score(capsys, "--scorer", "other.py@NAME")[2]
    assert "other:make() returned an int, not a scorebridge Scorer" in score(capsys, "--scorer", "other:make")[2]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nothing.py@x", "--scorer nothing.py: no such file"),
        ("my_scorers.py@nope", "--scorer my_scorers.py: no 'nope' in it; its scorers are within_1pct"),
        ("my_scorers.py@", "no name after @"),
        ("data.jsonl@x", "a scorer file must be a .py file"),
        ("no_such_module:x", "--scorer no_such_module: no module named 'no_such_module'"),
        ("my_scorers:", "expected package.module:name"),
    ],
)
def test_a_scorer_that_cannot_be_found_is_a_usage_error(
    folder: Path, capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    status, out, err = score(capsys, "--scorer", spec)
    assert (status, out) == (2, "")
    assert message in err


def test_a_file_with_two_scorers_needs_a_name(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "two.py").write_text("import scorebridge as sb\n\na = sb.exact()\nb = sb.exact()\n", encoding="utf-8")
    assert "the file defines 2 scorers (a, b); name one: two.py@NAME" in score(capsys, "--scorer", "two.py")[2]


def test_a_file_that_raises_on_import_is_one_line_with_its_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "broken.py").write_text("import scorebridge\n\nraise RuntimeError('no key set')\n", encoding="utf-8")
    status, _, err = score(capsys, "--scorer", "broken.py@x")
    assert status == 2
    assert err == "scorebridge score: cannot import broken.py: RuntimeError: no key set (broken.py, line 3)\n"


def test_a_scorer_file_whose_function_scorer_refuses_names_the_files_line(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The line named was scorebridge's own (scorer.py, line 107), not the user's decorated function.
    (folder / "two.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef two(output, label):\n    return output == label\n",
        encoding="utf-8",
    )
    status, _, err = score(capsys, "--scorer", "two.py@two")
    assert status == 2
    assert err.startswith("scorebridge score: cannot import two.py: TypeError: scorer 'two': fn must take three ")
    # the decorator's line on Python 3.11 and later; 3.10's traceback names the def line below it
    assert err.endswith(" (two.py, line 4)\n" if sys.version_info >= (3, 11) else " (two.py, line 5)\n")


def test_a_file_with_a_syntax_error_names_the_line(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "typo.py").write_text("x = 1\ndef f(:\n", encoding="utf-8")
    status, _, err = score(capsys, "--scorer", "typo.py@f")
    assert status == 2
    assert err.startswith("scorebridge score: cannot import typo.py: SyntaxError: ")
    assert "(typo.py, line 2)" in err


def test_a_scorer_that_raises_on_a_row_names_the_line_and_where(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "fragile.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef fragile(item, output, label):\n"
        "    return float(output) == label\n",
        encoding="utf-8",
    )
    (folder / "data.jsonl").write_text('{"output": "1", "label": 1}\n{"output": "one", "label": 1}\n')
    status, _, err = score(capsys, "--scorer", "fragile.py@fragile")
    assert status == 1
    assert err.startswith("data.jsonl:2: the scorer 'fragile' raised ValueError: could not convert string to float")
    assert err.rstrip().endswith("(fragile.py, line 6)")


def test_a_module_missing_a_dependency_names_the_dependency(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "needs_more.py").write_text("import nowhere_to_be_found\n", encoding="utf-8")
    status, _, err = score(capsys, "--scorer", "needs_more:x")
    assert status == 2
    assert "cannot import needs_more: ModuleNotFoundError: No module named 'nowhere_to_be_found'" in err


def test_a_scorer_on_a_scale_of_its_own_is_summed_up_on_that_scale(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # values from 0 to 5, as Inspect AI's mean() and a DSPy metric allow: the accuracy is the mean value, with no
    # confidence interval (it is no proportion), and --fail-under compares that mean
    (folder / "stars.py").write_text(
        "from scorebridge import scorer\n\n\n@scorer\ndef stars(item, output, label):\n"
        "    return {'correct': True, 'value': 4.0}\n",
        encoding="utf-8",
    )
    status, out, _ = score(capsys, "--scorer", "stars.py@stars", "--fail-under", "0.9")
    summary = json.loads(out)
    assert (status, summary["accuracy"], summary["interval"]) == (0, 4.0, None)


FACTORY = """\
import scorebridge as sb
from scorebridge import Scorer


def within(tolerance=0.01) -> Scorer:
    return sb.exact(normalise=tolerance > 0)
"""


def test_a_factory_by_file_is_refused_by_both_command_lines_alike(tmp_path: Path) -> None:
    # The choice (docs/cli.md): file.py@name names a Scorer. Inspect AI finds only functions decorated @scorer in
    # the file, so a factory cannot be found there; scorebridge refuses it the same way, saying what to write.
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    (tmp_path / "factories.py").write_text(FACTORY, encoding="utf-8")
    (tmp_path / "data.jsonl").write_text('{"output": "Paris", "label": "Paris"}\n', encoding="utf-8")
    bin_ = Path(sys.executable).parent
    ours = subprocess.run(
        [str(bin_ / "scorebridge"), "score", "data.jsonl", "--scorer", "factories.py@within", "-S", "tolerance=0.5"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = ModelOutput.from_content("mockllm/model", "Paris")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
    [log] = eval(
        Task(dataset=[Sample(input="Capital of France?", target="Paris")], solver=generate(), scorer=match()),
        model="mockllm/model",
        model_args={"custom_outputs": [output]},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    command = [str(bin_ / "inspect"), "score", "--scorer", "factories.py@within", "-S", "tolerance=0.5"]
    command += ["--action", "overwrite", "--output-file", "rescored.eval", log.location]
    theirs = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    refused = "The function within was not found in file factories.py"
    assert (ours.returncode, theirs.returncode != 0) == (2, True)
    assert refused in ours.stderr
    assert refused in " ".join((theirs.stdout + theirs.stderr).split())  # Inspect prints it on stdout, maybe wrapped
    assert "@scorer def within(item, output, label, *, option=default)" in ours.stderr
