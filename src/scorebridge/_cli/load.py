"""`--scorer`: a scorer by name, made with its `-S` options.

The forms, as Inspect AI names its own:

- `NAME`: a built-in scorer (`exact`, `detect_includes`, ...; `scorebridge list`);
- `path/to/file.py@name`: `name` in a Python file, imported by path (its
  folder goes first on the import path, so it can import the files beside it);
  `path/to/file.py` alone names the one scorer the file defines;
- `package.module:name`: `name` in an importable module (the current folder
  is on the import path first, as for `python -m`).

What is named is a `Scorer` (made with `@scorer`, or assigned: `qa =
model_graded_qa(grader)`), or, by `package.module:name`, a function that
returns one (a factory), and the `-S` options make it: a factory is called
with them, a Scorer is made again with them through `Scorer.with_options` (its
options are the keyword-only parameters of its function). Every value is
checked against its option (`options.check_values`) before any row is read.

For `--engine ray`, `load_for_workers` also gives, for a factory (by
`file.py@name` too, there), the call each worker makes (`factory(**options)`):
the factory is called once here, to name the scorer and check its options,
and again in every worker, which scores with its own (so a grader's client is
opened where it is used). Else, a factory named by `file.py@name` is refused
with the sentence Inspect AI's `inspect score --scorer file.py@name` refuses it with ("The function NAME was
not found in file FILE": Inspect finds only `@scorer` functions in a file), so
one `--scorer` means the same to both command lines; the message says what both
find. Several `--scorer`: each `-S` goes to every scorer that has that option.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from .._protocol.scorer import Scorer
from .._protocol.values import a_type
from .main import UsageError
from .options import check_values, option_params, quote_hint, read_options

__all__ = ["NEEDS_GRADER", "Maker", "describe", "load_for_workers", "load_scorer", "load_scorers", "signature"]

Maker = Callable[[], Scorer]
"""What a worker calls to make its own scorer: a factory with its `-S` options bound."""

NEEDS_GRADER: Final = ("model_graded_fact", "model_graded_qa")
"""Built-in scorers that need a grader model, which no `-S` option can give."""


def signature(factory: Callable[..., Any]) -> str:
    """`a, b=1, *args` for a function's parameters: those with no default shown bare."""
    parts = []
    for p in inspect.signature(factory).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={p.default!r}")
    return ", ".join(parts)


def _module_name(path: Path) -> str:
    """The stem, when it is a free module name; else a private one (two files may share a stem)."""
    stem = path.stem
    if stem.isidentifier() and stem not in sys.modules:
        return stem
    return f"_scorebridge_file_{abs(hash(str(path))):x}"


def _ours(filename: str) -> bool:
    """True for a file of scorebridge's own packages (the hub and its adapters), as imported."""
    folders = [
        os.path.dirname(getattr(module, "__file__", None) or "") + os.sep
        for name, module in list(sys.modules.items())
        if name in ("scorebridge", "pytest_scorebridge") or (name.startswith("scorebridge_") and "." not in name)
    ]
    return any(folder != os.sep and filename.startswith(folder) for folder in folders)


def describe(exc: BaseException) -> str:
    """`Type: message (file.py, line N)`: an exception in one line, with the line it was raised at."""
    if isinstance(exc, SyntaxError):
        at = f" ({os.path.basename(exc.filename or '?')}, line {exc.lineno})" if exc.lineno else ""
        return f"SyntaxError: {exc.msg}{at}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    # the user's line rather than scorebridge's own: `@scorer` on a function it refuses raises inside scorebridge
    frames = [f for f in frames if not _ours(f.filename)] or frames
    at = f" ({os.path.basename(frames[-1].filename)}, line {frames[-1].lineno})" if frames else ""
    message = str(exc)
    return f"{type(exc).__name__}: {message:.300}{at}" if message else f"{type(exc).__name__}{at}"


def _import_failure(where: str, exc: BaseException) -> UsageError:
    return UsageError(f"cannot import {where}: {describe(exc)}")


def _from_file(path_text: str) -> ModuleType:
    path = Path(path_text)
    if path.suffix != ".py":
        raise UsageError(f"--scorer {path_text}: a scorer file must be a .py file")
    if not path.is_file():
        raise UsageError(f"--scorer {path_text}: no such file")
    path = path.resolve()
    spec = importlib.util.spec_from_file_location(_module_name(path), path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise UsageError(f"--scorer {path_text}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: dataclasses and pickle look the module up
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[spec.name]
        raise _import_failure(path_text, exc) from None
    return module


def _from_module(name: str) -> ModuleType:
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(f"{exc.name}.")):  # not one it imports
            raise UsageError(f"--scorer {name}: no module named {exc.name!r}") from None
        raise _import_failure(name, exc) from None
    except Exception as exc:
        raise _import_failure(name, exc) from None


def _scorers_in(module: ModuleType) -> list[str]:
    return sorted(k for k, v in vars(module).items() if isinstance(v, Scorer) and not k.startswith("_"))


def _attribute(module: ModuleType, name: str | None, where: str) -> tuple[str, Any]:
    defined = _scorers_in(module)
    if name is None:
        if len(defined) != 1:
            if not defined:
                raise UsageError(f"--scorer {where}: the file defines no scorer{_undecorated(module)}")
            found = f"defines {len(defined)} scorers ({', '.join(defined)})"
            raise UsageError(f"--scorer {where}: the file {found}; name one: {where}@NAME")
        name = defined[0]
    if not hasattr(module, name):
        known = f"; its scorers are {', '.join(defined)}" if defined else ""
        raise UsageError(f"--scorer {where}: no {name!r} in it{known}")
    return name, getattr(module, name)


def _undecorated(module: ModuleType) -> str:
    """Why a module with no Scorer has none, when its own functions of (item, output, label) are undecorated; or ""."""
    plain = sorted(
        k
        for k, v in vars(module).items()
        if inspect.isfunction(v) and v.__module__ == module.__name__ and not k.startswith("_")
        if _looks_like_scorer_function(v)
    )
    return f"; {_not_decorated(*plain)}" if plain else ""


def _not_decorated(*names: str) -> str:
    what = f"{names[0]} is a function" if len(names) == 1 else f"{', '.join(names)} are functions"
    return f"{what} of (item, output, label), not a Scorer: decorate it with @scorer (from scorebridge import scorer)"


def _builtin(name: str) -> Callable[..., Scorer]:
    from .._scorers.builtins import BUILTINS

    factory = BUILTINS.get(name)
    if factory is not None:
        return factory
    if name in NEEDS_GRADER:
        raise UsageError(
            f"{name} needs a grader model, which no -S option can give: make it in a file of yours, "
            f"`qa = {name}(my_grader)`, and name it with --scorer path/to/file.py@qa"
        )
    raise UsageError(
        f"unknown scorer {name!r}; the built-in scorers are {', '.join(sorted(BUILTINS))}; "
        "a scorer of yours is path/to/file.py@name or package.module:name"
    )


def _looks_like_scorer_function(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 and all(p.default is p.empty for p in positional[:3])


def _named(what: str, exc: Exception) -> str:
    """The message of `exc` refusing the options of `what`, named once (a built-in's messages start with its name)."""
    text = str(exc)
    return text if text.startswith(f"{what}:") else f"{what}: {text}"


def _made(what: str, obj: Any, options: dict[str, Any], pairs: Sequence[tuple[str, str]]) -> Scorer:
    """The scorer `obj` names (a Scorer, or a function that makes one), made with `options`, each checked."""
    params, _ = option_params(obj)
    if isinstance(obj, Scorer):
        if not options:
            return obj
        try:
            made = obj.with_options(**options)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{_named(what, exc)}{quote_hint(params, pairs)}") from None
        check_values(what, params, options, pairs)
        return made
    if not callable(obj):
        raise UsageError(f"{what} is {a_type(obj)}, not a scorebridge Scorer or a function that makes one")
    try:
        inspect.signature(obj).bind(**options)
    except TypeError as exc:
        if not options and _looks_like_scorer_function(obj):
            raise UsageError(_not_decorated(what)) from None
        raise UsageError(f"{what}: {exc}; its options are ({signature(obj)})") from None
    except ValueError:  # no signature to check (a builtin callable): let the call say
        pass
    try:
        made = obj(**options)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{_named(what, exc)}{quote_hint(params, pairs)}") from None
    if not isinstance(made, Scorer):
        raise UsageError(f"{what}() returned {a_type(made)}, not a scorebridge Scorer")
    check_values(what, params, options, pairs)
    return made


def _not_found_by_file(path: str, name: str) -> UsageError:
    """A function (a factory) named by file.py@name: refused as Inspect AI's `inspect score` refuses it."""
    module = Path(path).stem
    return UsageError(
        f"--scorer {path}@{name}: The function {name} was not found in file {path} (so says inspect score too: "
        f"file.py@name finds a Scorer, not a function that makes one). Make its options the scorer's own, "
        f"@scorer def {name}(item, output, label, *, option=default), which both command lines find; "
        f"or name the function by its module, --scorer {module}:{name} (scorebridge score only; "
        "with --engine ray, file.py@factory works too, called on each worker)"
    )


def _find(spec: str, factories: bool = False) -> tuple[str, Any]:
    """What `spec` names, before any option: how messages name it, and the object (a Scorer, or a factory)."""
    if "@" in spec or spec.endswith(".py"):
        path, _, name = spec.rpartition("@") if "@" in spec else (spec, "", "")
        if "@" in spec and not name:
            raise UsageError(f"--scorer {spec}: no name after @ (path/to/file.py@name)")
        module = _from_file(path)
        found, obj = _attribute(module, name or None, path)
        if inspect.isfunction(obj) and not _looks_like_scorer_function(obj) and not factories:
            raise _not_found_by_file(path, found)
        return f"{path}@{found}", obj
    if ":" in spec:
        module_name, _, name = spec.partition(":")
        if not module_name or not name:
            raise UsageError(f"--scorer {spec}: expected package.module:name")
        found, obj = _attribute(_from_module(module_name), name, module_name)
        return f"{module_name}:{found}", obj
    return spec, _builtin(spec)


def load_scorer(spec: str, pairs: Sequence[tuple[str, str]]) -> Scorer:
    """The scorer `spec` names (a built-in's name, `file.py@name`, `file.py`, `module:name`), made with the
    `-S` pairs; a `UsageError` saying what is wrong otherwise."""
    return load_scorers([spec], pairs)[0]


def _options_line(found: Sequence[tuple[str, Any]]) -> str:
    parts = []
    for what, obj in found:
        params, anything = option_params(obj)
        names = ", ".join(params) or "none"
        parts.append(f"{what}: {names}{' (and any other)' if anything else ''}")
    return "; ".join(parts)


def load_scorers(specs: Sequence[str], pairs: Sequence[tuple[str, str]]) -> list[Scorer]:
    """The scorers `specs` name, each made with the `-S` options it has; a `UsageError` otherwise.

    With one scorer, every option goes to it (an option it lacks is refused, naming its options). With
    several, each option goes to every scorer that has an option of that name, and an option none of them
    has is refused, naming each scorer's options. Every value is checked against the option's annotation
    or its default's type (`check_values`) here, before any row is read.
    """
    return [scorer for scorer, _ in _load(specs, pairs, factories=False)]


def load_for_workers(specs: Sequence[str], pairs: Sequence[tuple[str, str]]) -> list[tuple[Scorer, Maker | None]]:
    """As `load_scorers`, each scorer with the call that makes it on a worker (`Maker`) when a factory made it
    (named by `module:name` or `file.py@name`), else None (the Scorer itself is sent)."""
    return _load(specs, pairs, factories=True)


def _load(specs: Sequence[str], pairs: Sequence[tuple[str, str]], factories: bool) -> list[tuple[Scorer, Maker | None]]:
    options = read_options(pairs)
    found = [_find(spec, factories) for spec in specs]

    def maker(obj: Any, mine: dict[str, Any]) -> Maker | None:
        return None if isinstance(obj, Scorer) else functools.partial(obj, **mine)

    if len(found) == 1:
        what, obj = found[0]
        return [(_made(what, obj, options, pairs), maker(obj, options))]
    accepts = [option_params(obj) for _, obj in found]
    nobody = [key for key in options if not any(anything or key in params for params, anything in accepts)]
    if nobody:
        raise UsageError(
            f"-S {nobody[0]}: none of the scorers has that option (each -S goes to every scorer that has it); "
            f"their options: {_options_line(found)}"
        )
    made = []
    for (what, obj), (params, anything) in zip(found, accepts, strict=True):
        mine = {k: v for k, v in options.items() if anything or k in params}
        made.append(
            (_made(what, obj, mine, [(k, t) for k, t in pairs if k.replace("-", "_") in mine]), maker(obj, mine))
        )
    return made
