"""Your own code on the workers: a runtime env (`working_dir`, `py_modules`) set for the job, or uploaded for the pool.

Ray takes a local folder or module in a runtime env only at the job level, in
`ray.init(runtime_env=...)`: it zips it into the cluster's storage (GCS) and
gives every worker of the job a copy. Per task or actor it takes only a URI.
So `job_env` starts Ray with the runtime env when Ray is not running yet (the
job level); when it is (making a dataset starts it), it uploads the local
paths as `ray.init` would, with Ray's own packaging, and returns the runtime
env with their `gcs://` URIs, which the pool's actors are then given.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["LOCAL_PATH_KEYS", "job_env", "local_paths", "refuse_per_call"]

LOCAL_PATH_KEYS: Final = ("working_dir", "py_modules")
"""The runtime env's keys that can name a local folder or module, which Ray uploads only for a job."""

_quiet: Final = logging.getLogger("scorebridge_ray.upload")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False  # Ray logs each upload at INFO ("Pushing file package ..."): not the command's output


def _remote(path: Any) -> bool:
    return isinstance(path, str) and "://" in path


def local_paths(runtime_env: Mapping[str, Any]) -> list[str]:
    """The `working_dir` and `py_modules` entries of `runtime_env` that are local paths (not URIs)."""
    found: list[str] = []
    working_dir = runtime_env.get("working_dir")
    if working_dir is not None and not _remote(working_dir):
        found.append(f"working_dir={os.fspath(working_dir)!r}")
    for module in runtime_env.get("py_modules") or ():
        if not _remote(module):
            found.append(f"py_modules entry {getattr(module, '__name__', module)!r}")
    return found


def refuse_per_call(what: str, ray_options: Mapping[str, Any]) -> None:
    """ValueError when `ray_options` has a runtime env naming a local path: Ray would refuse it per call."""
    env = ray_options.get("runtime_env")
    if not isinstance(env, Mapping):
        return
    local = local_paths(env)
    if local:
        raise ValueError(
            f"{what}: ray_options' runtime_env has the local {', '.join(local)}, which Ray takes only for the whole "
            "job: pass it as score_dataset(..., runtime_env=...) (or to ray.init(runtime_env=...) before Ray "
            "starts; scorebridge score --engine ray --working-dir DIR / --py-modules PKG)"
        )


def _uploaded(runtime_env: dict[str, Any]) -> dict[str, Any]:
    """`runtime_env` with its local working_dir and py_modules uploaded to the running cluster, as URIs."""
    from ray._private import worker
    from ray._private.ray_constants import RAY_RUNTIME_ENV_IGNORE_GITIGNORE
    from ray._private.runtime_env.py_modules import upload_py_modules_if_needed
    from ray._private.runtime_env.working_dir import upload_working_dir_if_needed

    node = worker.global_worker.node
    scratch = None if node is None else node.get_runtime_env_dir_path()  # None: Ray Client, uploaded by the server
    gitignore = os.environ.get(RAY_RUNTIME_ENV_IGNORE_GITIGNORE, "0") != "1"
    env = upload_py_modules_if_needed(runtime_env, include_gitignore=gitignore, scratch_dir=scratch, logger=_quiet)
    env = upload_working_dir_if_needed(env, include_gitignore=gitignore, scratch_dir=scratch, logger=_quiet)
    env.pop("excludes", None)  # used by the upload; Ray refuses it beside URIs only
    return env


def job_env(what: str, runtime_env: Mapping[str, Any] | None, **init: Any) -> dict[str, Any] | None:
    """Ray running with `runtime_env` for this job; the runtime env the pool's actors must be given, or None.

    Ray not running: `ray.init(runtime_env=runtime_env, **init)`, the job-level
    runtime env, and None (every worker has it). Ray running (started by you,
    or by making the dataset): the local paths are uploaded to the cluster and
    the runtime env with their URIs is returned, for the actors; a runtime env
    with no local path is returned as given. A runtime env that is not a
    mapping is a TypeError naming `what`; a path that does not exist, Ray's
    ValueError with `what` before it.
    """
    import ray

    if runtime_env is not None and not isinstance(runtime_env, Mapping):
        raise TypeError(f"{what}: runtime_env must be a dict (Ray's runtime env); got {type(runtime_env).__name__}")
    env = dict(runtime_env or {})
    for path in [env.get("working_dir"), *(env.get("py_modules") or ())]:
        if isinstance(path, (str, os.PathLike)) and not _remote(path) and not os.path.exists(path):
            raise ValueError(f"{what}: runtime_env names {os.fspath(path)!r}, which does not exist")
    if not ray.is_initialized():
        ray.init(runtime_env=env or None, **init)
        return None
    if not env:
        return None
    try:
        return _uploaded(env) if local_paths(env) else env
    except (ValueError, OSError) as exc:
        raise ValueError(f"{what}: runtime_env cannot be sent to the cluster: {exc}") from None
