"""Labels as a scorer declares them: the type its `fn` reads its label as, and the conversion to it.

A scorer says how it reads its label by the annotation of its `label`
parameter (`def near(item, output, label: float)`), or by `scorer(fn,
label=float)`. The types read are `float`, `int`, `str`, `bool`, and
`list[X]` of one of these (several accepted answers); `Optional[X]` and
`X | None` read as `X`. A string annotation (`from __future__ import
annotations`) is read without evaluating it: its names are looked up in the
function's module, nothing is called.

The conversion runs before `fn` is called, in every harness (`Scorer.__call__`
and `acall`), on a label that is not missing (a missing one reaches `fn` as
None): so Inspect AI's text targets, a CSV cell and a JSON number all reach
`fn(item, output, label: float)` as a float. A label that cannot be converted
is a `ScorerContractError` naming the scorer and the value. A CSV cell read
for a `list[...]` label that holds a JSON array (`["name", "age"]`) is that
list; one that looks like JSON or holds a comma but stays one answer is warned
about, naming the row and the column (`cells.list_label`).
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import math
import numbers
import types
import typing
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Union

from .cells import CsvCell, list_label
from .score import UnreadableLabel
from .values import MAX_DIGITS, a_type, is_bool, is_missing, is_number, plain_digits, shown

__all__ = ["LABEL_TYPES", "LabelReader", "annotated_label_type", "declared_label_type", "label_reader", "type_name"]

LABEL_TYPES: Final = (float, int, str, bool)
"""The types of one label (or of each accepted answer of a `list[...]` label) a scorer may declare."""

LabelReader = Callable[[str, Any], Any]
"""`read(scorer_name, label)`: the label (not missing) as the scorer declares it; None when it holds no answer."""


class _Unknown:
    """An annotation that names no label type scorebridge reads (a union of several types, a class of yours)."""


_UNKNOWN: Final = _Unknown()
_NONE: Final = type(None)
_ANY: Final = object()  # `Any` or `object`: the label as the data has it
_LISTS: Final = (list, typing.List, collections.abc.Sequence, typing.Sequence)  # noqa: UP006


def type_name(t: Any) -> str:
    """How a message writes a label type: "float", "list[str]", "list"."""
    if t is list:
        return "list"
    if typing.get_origin(t) is list:
        return f"list[{type_name(typing.get_args(t)[0])}]"
    return str(getattr(t, "__name__", t))


def _union(parts: list[Any]) -> Any:
    kept = [p for p in parts if p is not _NONE]
    if any(p is _UNKNOWN for p in kept) or len(kept) != 1:
        return _UNKNOWN if kept else _NONE
    return kept[0]


def _list_of(inner: Any) -> Any:
    if inner is _ANY:
        return list
    if any(inner is x for x in LABEL_TYPES):
        return list[inner]
    return _UNKNOWN


def _canonical(t: Any, namespace: Mapping[str, Any], depth: int = 0) -> Any:
    """The label type an annotation `t` names: one of `LABEL_TYPES`, `list[...]` of one, `list`, `_ANY`,
    `_NONE` (None alone) or `_UNKNOWN`."""
    if depth > 8:
        return _UNKNOWN
    if t is None or t is _NONE:
        return _NONE
    if isinstance(t, str):
        return _from_text(t, namespace, depth + 1)
    if t is typing.Any or t is object:
        return _ANY
    if isinstance(t, type) and t in LABEL_TYPES:
        return t
    if any(t is x for x in _LISTS):
        return list
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is Union or origin is types.UnionType:
        return _union([_canonical(a, namespace, depth + 1) for a in args])
    if origin is typing.Annotated:
        return _canonical(args[0], namespace, depth + 1)
    if origin in (list, collections.abc.Sequence) and len(args) == 1:
        return _list_of(_canonical(args[0], namespace, depth + 1))
    return _UNKNOWN


def _from_text(text: str, namespace: Mapping[str, Any], depth: int) -> Any:
    # A string annotation read as Python's grammar, its names looked up: never evaluated.
    if len(text) > 300:
        return _UNKNOWN
    import ast

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return _UNKNOWN
    return _from_node(node, namespace, depth)


def _object(node: Any, namespace: Mapping[str, Any]) -> Any:
    # The object a name or a dotted name stands for (`float`, `typing.Optional`); _UNKNOWN when none.
    import ast

    if isinstance(node, ast.Name):
        if node.id in namespace:
            return namespace[node.id]
        return getattr(builtins, node.id, _UNKNOWN)
    if isinstance(node, ast.Attribute):
        base = _object(node.value, namespace)
        if base is _UNKNOWN or not isinstance(base, types.ModuleType):  # a module's attribute only: no code runs
            return _UNKNOWN
        return base.__dict__.get(node.attr, _UNKNOWN)
    return _UNKNOWN


def _from_node(node: Any, namespace: Mapping[str, Any], depth: int) -> Any:
    import ast

    if depth > 8:
        return _UNKNOWN
    if isinstance(node, ast.Constant):
        if node.value is None:
            return _NONE
        if isinstance(node.value, str):
            return _from_text(node.value, namespace, depth + 1)
        return _UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_from_node(node.left, namespace, depth + 1), _from_node(node.right, namespace, depth + 1)])
    if isinstance(node, ast.Subscript):
        base = _object(node.value, namespace)
        inner = node.slice
        args = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if base is typing.Optional and len(args) == 1:
            return _union([_from_node(args[0], namespace, depth + 1), _NONE])
        if base is Union:
            return _union([_from_node(a, namespace, depth + 1) for a in args])
        if base is typing.Annotated:
            return _from_node(args[0], namespace, depth + 1)
        if any(base is x for x in _LISTS) and len(args) == 1:
            return _list_of(_from_node(args[0], namespace, depth + 1))
        return _UNKNOWN
    found = _object(node, namespace)
    return _UNKNOWN if found is _UNKNOWN else _canonical(found, namespace, depth + 1)


def _unwrapped(fn: Any) -> tuple[Any, int]:
    """The plain function under partials and bound methods, and how many positional parameters it takes
    before (item, output, label): 1 for a method's `self`, 0 for a function."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if isinstance(fn, types.MethodType):
        return fn.__func__, 1
    if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)):
        return fn, 0
    # an object's __call__ (its class's, or a base class's): its parameters after self
    call = next((k.__dict__["__call__"] for k in type(fn).__mro__ if "__call__" in k.__dict__), None)
    return (call, 1) if isinstance(call, types.FunctionType) else (fn, 0)


def annotated_label_type(fn: Any) -> Any:
    """The label type the annotation of `fn`'s label parameter (its third positional one, after item and
    output) declares, or None (no annotation, or one that names no label type scorebridge reads: then the
    label reaches `fn` as the data has it). Never raises."""
    try:
        plain, skip = _unwrapped(fn)
        code = getattr(plain, "__code__", None)
        if code is None or code.co_argcount < skip + 3:
            return None
        parameter = code.co_varnames[skip + 2]
        annotations = getattr(plain, "__annotations__", None) or {}
        if parameter not in annotations:
            return None
        found = _canonical(annotations[parameter], getattr(plain, "__globals__", {}))
    except Exception:  # an annotation whose evaluation fails (Python 3.14's lazy ones), a hostile object
        return None
    return None if found is _UNKNOWN or found is _ANY or found is _NONE else found


def declared_label_type(where: str, declared: Any, fn: Any = None) -> Any:
    """The label type given explicitly (`scorer(fn, label=...)`), made canonical; None for `Any`/`object`.

    Raises TypeError, starting with `where`, for a type scorebridge does not read.
    """
    found = _canonical(declared, getattr(_unwrapped(fn)[0], "__globals__", {}) if fn is not None else {})
    if found is _ANY:
        return None
    if found is _UNKNOWN or found is _NONE:
        raise TypeError(
            f"{where}: label must be a type a label is read as: float, int, str, bool, or list[...] of one of "
            f"these (several accepted answers), or typing.Any for the label as the data has it; got {shown(declared)}"
        )
    return found


# --- the conversions ------------------------------------------------------------------------


class _Unreadable(Exception):
    """Why a label cannot be read as the scorer declares it."""


def _blank(x: Any) -> bool:
    if isinstance(x, str):
        return not x or x.isspace()
    return is_missing(x)


def _float(x: Any) -> float | None:
    if isinstance(x, str):
        try:
            value = float(x.strip())
        except ValueError:
            raise _Unreadable("it is not a number") from None
        return None if math.isnan(value) else value  # "nan" reads as no answer, as NaN does
    if is_bool(x):
        raise _Unreadable("a bool is not a number")
    if is_number(x):
        try:
            value = float(x)
        except OverflowError:
            raise _Unreadable("it is too big for a float") from None
        return None if math.isnan(value) else value
    raise _Unreadable(f"it is {a_type(x)}")


def _int(x: Any) -> int | None:
    if is_bool(x):
        raise _Unreadable("a bool is not a number")
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, str):
        text = x.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            x = Decimal(text)
        except (InvalidOperation, ValueError):
            raise _Unreadable("it is not a whole number") from None
    if isinstance(x, numbers.Rational):  # a Fraction
        if x.denominator != 1:
            raise _Unreadable("it is not a whole number")
        return int(x.numerator)
    if is_number(x):
        d = x if isinstance(x, Decimal) else None
        if d is None:
            f = float(x)
            if math.isnan(f):
                return None
            if not math.isfinite(f) or not f.is_integer():
                raise _Unreadable("it is not a whole number")
            return int(f)
        if d.is_nan():
            return None
        if not d.is_finite() or d.adjusted() >= MAX_DIGITS or d != d.to_integral_value():
            raise _Unreadable("it is not a whole number")
        return int(d)
    raise _Unreadable(f"it is {a_type(x)}")


def _str(x: Any) -> str | None:
    if isinstance(x, str):
        return str(x)
    if is_bool(x):
        raise _Unreadable("a bool is not text")
    if is_number(x):
        try:
            return plain_digits(x)
        except (ValueError, OverflowError) as exc:
            raise _Unreadable(str(exc)) from None
    if isinstance(x, (bytes, bytearray)):
        raise _Unreadable("it is bytes, not text; decode it first")
    raise _Unreadable(f"it is {a_type(x)}")


_TRUE: Final = frozenset({"true", "t", "yes", "y", "1"})
_FALSE: Final = frozenset({"false", "f", "no", "n", "0"})


def _bool(x: Any) -> bool | None:
    if is_bool(x):
        return bool(x)
    if isinstance(x, str):
        word = x.strip().casefold()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise _Unreadable("it is not true or false (true/false, yes/no, 1/0)")
    if is_number(x) and x in (0, 1):
        return bool(x == 1)
    raise _Unreadable(f"it is {a_type(x)}, not true or false")


def _as_is(x: Any) -> Any:
    return x


_SCALAR: Final[Mapping[Any, Callable[[Any], Any]]] = {float: _float, int: _int, str: _str, bool: _bool}
_CONTAINERS: Final = (list, tuple, set, frozenset)


def _answers(label: Any) -> list[Any]:
    """The label's answers that are not blank: a list, tuple or set's items, or the label itself."""
    if not isinstance(label, _CONTAINERS):
        return [label]
    return [x for x in list(label) if not _blank(x)]


def label_reader(t: Any) -> LabelReader:
    """The reader of labels declared as `t` (a canonical label type: one of `LABEL_TYPES`, `list[...]` of one,
    or `list`). It takes a label that is not missing and returns it converted, or None when it holds no
    answer after all (the text "nan" for a number); anything else is a `ScorerContractError` naming the
    scorer and the value."""
    many = t is list or typing.get_origin(t) is list
    one = _as_is if t is list else _SCALAR[typing.get_args(t)[0] if many else t]
    what = type_name(t)
    same = None if many else t  # a label of exactly this type is read as it is: the common case, kept fast

    def convert(label: Any) -> Any:
        if not isinstance(label, _CONTAINERS):  # one value
            value = one(label)
            return value if not many or value is None else [value]
        answers = _answers(label)
        if many:
            out = []
            for x in answers:
                if isinstance(x, _CONTAINERS) and t is not list:
                    raise _Unreadable(f"an accepted answer is {a_type(x)}")
                value = one(x)
                if value is not None:
                    out.append(value)
            return out or None
        if len(answers) != 1:
            raise _Unreadable(f"it holds {len(answers)} accepted answers; declare label: list[{what}] to read them all")
        if isinstance(answers[0], _CONTAINERS):
            raise _Unreadable(f"its answer is {a_type(answers[0])}")
        return one(answers[0])

    def read(scorer: str, label: Any) -> Any:
        if type(label) is same:  # not missing (the caller's test), so a float here is no NaN
            return label
        if many and type(label) is CsvCell:  # a CSV cell: a JSON array is the list
            label = list_label(scorer, label)
        try:
            return convert(label) if many or isinstance(label, _CONTAINERS) else one(label)
        except _Unreadable as why:
            raise UnreadableLabel(f"{scorer}: cannot read the label {shown(label)} as {what}: {why}") from None
        except Exception as exc:  # a hostile value: a list whose iteration fails, a str whose strip raises
            raise UnreadableLabel(
                f"{scorer}: cannot read the label {shown(label)} as {what}: {shown(exc, 200)}"
            ) from None

    return read
