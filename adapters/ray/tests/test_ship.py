"""How a scorer reaches Ray's workers: pickled once on the driver, your code by value, libraries by reference."""

from __future__ import annotations

import pickle
import subprocess
import sys
from typing import Any

import pytest
from ray import cloudpickle

import scorebridge as sb
from scorebridge_ray._ship import ship, unpack

STRICT = sb.exact(normalise=False)


@sb.scorer
def strict_or_number(item: Any, output: Any, label: Any) -> bool:
    """A scorer of yours built on a built-in one, a global of this module."""
    return bool(STRICT(item, output, label).correct) or output == str(label)


@pytest.mark.parametrize(
    "scorer",
    [sb.exact(), sb.exact(normalise=False), sb.detect_pattern(r"(\d+)"), sb.detect_match(location="end")],
    ids=repr,
)
def test_a_built_in_scorer_pickles_by_its_options_and_scores_alike(scorer: sb.Scorer) -> None:
    # A Scorer refused to be unpickled (its __setattr__ refuses the slots pickle sets one by one).
    again = pickle.loads(pickle.dumps(scorer))
    assert repr(again) == repr(scorer)
    for output, label in (("The answer is 42", "42"), ("42", "42"), (None, "x"), ("a", None)):
        assert again(None, output, label) == scorer(None, output, label)


def test_a_scorer_with_options_pickles_with_them() -> None:
    @sb.scorer
    def near(item: Any, output: Any, label: Any, *, tolerance: float = 0.01) -> bool:
        return abs(float(output) - float(label)) <= tolerance

    wide = cloudpickle.loads(cloudpickle.dumps(near.with_options(tolerance=0.5)))
    assert (wide.name, dict(wide.options), wide(None, "1.3", "1")) == ("near", {"tolerance": 0.5}, sb.Score(True))
    assert wide.with_options(tolerance=0.1)(None, "1.3", "1") == sb.Score(False, failure_kind="wrong")


def test_a_scorer_of_this_test_module_is_sent_by_value_and_unpacked_where_the_module_is_unknown() -> None:
    # pytest imported this module under a name of its own: a process that unpickled the scorer by reference
    # would fail to import it. A fresh interpreter stands for a Ray worker.
    shipped = ship(strict_or_number, "test")
    code = (
        "import pickle, sys; scorer = pickle.loads(sys.stdin.buffer.read()); "
        "print(scorer(None, 'Paris', 'Paris').correct, scorer(None, ' paris', 'Paris').correct)"
    )
    done = subprocess.run([sys.executable, "-c", code], input=shipped, capture_output=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ["True", "False"]


def test_a_library_scorer_is_sent_by_reference() -> None:
    # Small, and made again by scorebridge on the worker: not a copy of its code.
    assert len(ship(sb.exact(), "test")) < 500


def test_sending_leaves_cloudpickle_as_it_was() -> None:
    ship(strict_or_number, "test")
    assert strict_or_number.fn.__module__ not in cloudpickle.list_registry_pickle_by_value()


def test_a_function_that_makes_the_scorer_is_called_once_unpacked() -> None:
    made = unpack(ship(lambda: sb.detect_includes(case_sensitive=True), "test"), "test")
    assert repr(made) == "<Scorer detect_includes(case_sensitive=True)>"


def test_a_function_that_makes_something_else_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^what: the function given as the scorer returned int, not a Scorer$"):
        unpack(ship(lambda: 3, "what"), "what")
