"""`options_of`: a harness scorer's identity as JSON options, read from what it was made with.

A reverse adapter's Scorer options are its whole identity: `benchmark(out=...)`
records them and refuses to resume under other ones. A harness scorer is often
made by a factory (openevals' `create_llm_as_judge(...)` returns a closure), a
partial or a class, so what makes it what it is sits in closure cells,
partial arguments or constructor arguments. `options_of` reads them, once, for
every adapter.
"""

from __future__ import annotations

import enum
import functools
import math
import types
from collections.abc import Mapping
from typing import Any, Final

from .._protocol.values import a_type

__all__ = ["OptionsError", "options_of"]

_MAX_DEPTH: Final = 12
"""How deep `options_of` reads nested values (a judge inside a closure inside a partial is 3)."""


class OptionsError(TypeError):
    """`options_of` cannot hold what a harness scorer was made with as JSON: names the place and the value."""


def _refused(where: str, why: str) -> OptionsError:
    return OptionsError(f"options_of: cannot hold {where.lstrip('.') or 'the scorer'} as JSON options: {why}")


def _named(x: Any) -> str:
    module = getattr(x, "__module__", None)
    qualname = getattr(x, "__qualname__", None) or getattr(x, "__name__", None) or type(x).__qualname__
    return f"{module}.{qualname}" if isinstance(module, str) and module else str(qualname)


def _cells(fn: types.FunctionType, where: str, path: tuple[int, ...]) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True):
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not yet filled: a name the factory had not bound when it returned
            raise _refused(f"{where}.{name}", "the closure's cell is empty") from None
        cells[name] = _value(value, f"{where}.{name}", path)
    return cells


def _arguments(obj: Any, where: str, path: tuple[int, ...]) -> dict[str, Any]:
    """The constructor arguments of `obj`, read back from its attributes; those equal to their default left out."""
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, Mapping):  # a pydantic model: its fields, those its dumps exclude (clients) left out
        params = [(name, info.default) for name, info in fields.items() if not getattr(info, "exclude", False)]
    else:
        import inspect

        try:
            signature = inspect.signature(type(obj))
        except (TypeError, ValueError):
            raise _refused(where, f"cannot read how {a_type(obj)} was made (no signature)") from None
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        params = [(p.name, p.default) for p in signature.parameters.values() if p.kind in kinds]
    arguments: dict[str, Any] = {}
    for name, default in params:
        missing = object()
        value = getattr(obj, name, missing)
        if value is missing:
            value = getattr(obj, f"_{name}", missing)
        if value is missing:
            raise _refused(
                where,
                f"cannot read the argument {name!r} {a_type(obj)} was made with (no attribute {name!r} or '_{name}')",
            )
        try:
            if value is default or bool(value == default):
                continue
        except Exception:  # a value whose == raises or is no bool (an array): kept
            pass
        arguments[name] = _value(value, f"{where}.{name}", path)
    return arguments


def _value(x: Any, where: str, path: tuple[int, ...]) -> Any:
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise _refused(where, f"{x!r} is not a JSON number")
        return float(x)
    if id(x) in path:
        if isinstance(x, types.FunctionType):  # a local function that calls itself: known by its name
            return {"function": _named(x)}
        raise _refused(where, f"{a_type(x)} that holds itself")
    if len(path) >= _MAX_DEPTH:
        raise _refused(where, f"nested more than {_MAX_DEPTH} deep")
    path = (*path, id(x))
    if isinstance(x, (list, tuple)):
        return [_value(v, f"{where}[{n}]", path) for n, v in enumerate(x)]
    if isinstance(x, Mapping):
        strange = [k for k in x if not isinstance(k, str)]
        if strange:
            raise _refused(where, f"a mapping's keys must be strings; got {a_type(strange[0])}")
        return {k: _value(v, f"{where}[{k!r}]", path) for k, v in x.items()}
    if callable(getattr(x, "get_secret_value", None)):  # a secret (pydantic's SecretStr): never written out
        return "**********"
    if isinstance(x, type):
        return _named(x)
    if isinstance(x, enum.Enum):  # a member, by its class and name (deepeval's SingleTurnParams.INPUT)
        return f"{_named(type(x))}.{x.name}"
    if isinstance(x, functools.partial):
        found: dict[str, Any] = {"function": _value(x.func, f"{where}.func", path)}
        if x.args:
            found["args"] = _value(x.args, f"{where}.args", path)
        if x.keywords:
            found["keywords"] = _value(x.keywords, f"{where}.keywords", path)
        return found
    if isinstance(x, types.MethodType):
        return {"method": x.__func__.__name__, "of": _value(x.__self__, f"{where}.__self__", path)}
    if isinstance(x, types.FunctionType):
        made: dict[str, Any] = {"function": _named(x)}
        if x.__closure__:
            made["cells"] = _cells(x, where, path)
        return made
    if isinstance(x, (types.BuiltinFunctionType, types.ModuleType)):
        return _named(x)
    return {"class": _named(type(x)), "arguments": _arguments(x, where, path)}


def options_of(obj: Any) -> dict[str, Any]:
    """What a harness scorer was made with, as JSON options: its identity, for a reverse adapter's Scorer.

    - a function: `{"function": "module.qualname"}`, with `"cells"`, its
      closure's cells by name, when it has any (a scorer made by a factory:
      openevals' `create_llm_as_judge(prompt=..., judge=...)`); a nested
      closure is read the same way, a function that refers to itself by its
      name. Its globals and defaults are not read (its name stands for them);
    - a `functools.partial`: `{"function": <its function>, "args": [...],
      "keywords": {...}}` (empty ones left out);
    - a bound method: `{"method": name, "of": <its object>}`;
    - any other object (a class's instance, a pydantic model): `{"class":
      "module.qualname", "arguments": {...}}`, its constructor's arguments read
      back from the attribute of the same name (else with a leading
      underscore), those equal to their default left out; a pydantic model's
      fields, those it excludes from its dumps (clients) left out. What
      `*args`/`**kwargs` collected is not read;
    - values: None, bools, ints, finite floats and strings as they are; lists
      and tuples as lists; mappings with string keys as dicts; a class as its
      "module.qualname"; an enum member as "module.qualname.NAME"; a secret
      (anything with `get_secret_value`, pydantic's `SecretStr`) as
      "**********", never its text; a function, partial,
      method or object as above, up to 12 deep.

    Two scorers made by the same factory with equal arguments give equal
    options; other arguments, other options. Raises `OptionsError` (a
    TypeError) naming the place and what it cannot hold as JSON: a NaN, an
    object whose constructor arguments it cannot read back, a mapping with
    other keys, a value that holds itself; an adapter then asks its user to
    give the options (`from_X(..., options=...)`), never dropping what it
    cannot read, so a resume under another scorer is never taken for the same.
    """
    found = _value(obj, "", ())
    if not isinstance(found, dict):
        raise OptionsError(f"options_of: expected a harness scorer (a function or an object); got {a_type(obj)}")
    return found
