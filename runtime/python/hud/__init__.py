"""HUD Studio's bundled subset of the HUD SDK (v6): stdlib only, Python >= 3.9.

It exists for images that do not have the SDK installed; an env.py written
for the SDK runs unchanged against it (docs/sdk-compatibility.md).
"""
from . import graders
from .capabilities import Capability
from .environment import Environment, Template
from .task import RuntimeConfig, RuntimeGPU, RuntimeLimits, RuntimeResources, Task, Taskset
from .taskfile import load_task_file

__version__ = "0.0.0+hud-studio"

__all__ = [
    "Capability",
    "Environment",
    "RuntimeConfig",
    "RuntimeGPU",
    "RuntimeLimits",
    "RuntimeResources",
    "Task",
    "Taskset",
    "Template",
    "__version__",
    "graders",
    "load_task_file",
]
