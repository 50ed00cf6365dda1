"""Imports a user's env.py the way the server and discovery both need it."""
import importlib.util
import os
import sys
from types import ModuleType
from typing import List, Optional, Tuple

from .core import Environment, all_environments


class LoadError(Exception):
    """A user-facing problem loading or choosing an environment (no traceback needed)."""


def import_env_module(path: str, chdir: bool = True) -> Tuple[ModuleType, List[Environment]]:
    """Imports the module at `path` and returns it with the environments its import created.

    The module's folder goes first on sys.path (so sibling imports such as
    `from envs.judge import verify` work) and, with `chdir`, becomes the
    working directory, as templates expect to run beside their files.
    """
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise LoadError("{}: no such file".format(path))
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if chdir:
        os.chdir(folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else "_hud_env_{}".format(abs(hash(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError("{}: cannot be imported as a Python module".format(path))
    module = importlib.util.module_from_spec(spec)
    before = len(all_environments())
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    created = all_environments()[before:]
    # Environments the module imported from elsewhere (already created before
    # this import, e.g. by a package __init__) still count if the module holds them.
    for value in list(vars(module).values()):
        if isinstance(value, Environment) and value not in created:
            created.append(value)
    return module, created


def choose_environment(envs: List[Environment], wanted: Optional[str], path: str) -> Environment:
    names = [e.name for e in envs]
    if wanted is not None:
        for env in envs:
            if env.name == wanted:
                return env
        raise LoadError(
            "{}: no environment named '{}' (defined: {})".format(path, wanted, ", ".join(names) or "none")
        )
    if not envs:
        raise LoadError("{}: defines no Environment; add e.g. env = Environment(\"my-env\")".format(path))
    if len(envs) > 1:
        raise LoadError(
            "{} defines several environments ({}); choose one with --env NAME".format(path, ", ".join(names))
        )
    return envs[0]
