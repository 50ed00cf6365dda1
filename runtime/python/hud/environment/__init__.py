"""Environments and their control-channel server (`python3 -m hud.environment.server`)."""
import os
from typing import Any, Dict, Optional

from ..capabilities import Capability
from .core import Answer, Environment, Template
from .workspace import Workspace


def load_environment(target: Any, *, name: Optional[str] = None, args: Optional[Dict[str, Any]] = None) -> Environment:
    """The one Environment a source file defines (`name` picks one by attribute or Environment.name)."""
    from .loader import import_env_module

    path = os.fspath(target)
    if not os.path.exists(path) and not path.endswith(".py") and os.path.exists(path + ".py"):
        path = path + ".py"
    if not os.path.isfile(path):
        raise FileNotFoundError("no environment source at {}".format(target))
    if args:
        raise ValueError("args= applies to factory targets, not source path {}".format(target))
    module, created = import_env_module(path, chdir=False)
    named = {id(env): attr for attr, env in vars(module).items() if isinstance(env, Environment)}
    matched = [env for env in created if name is None or name in (env.name, named.get(id(env)))]
    if not matched:
        raise ValueError("no Environment{} found in {}".format(" named {!r}".format(name) if name else "", path))
    if len(matched) > 1:
        raise ValueError("multiple Environments in {}; select one by name".format(path))
    return matched[0]


__all__ = ["Answer", "Capability", "Environment", "Template", "Workspace", "load_environment"]
