"""HUD Studio's bundled subset of the HUD SDK (v6): stdlib only, Python >= 3.9.

It exists for images that do not have the SDK installed; an env.py written
for the SDK runs unchanged against it.
"""
from . import graders
from .environment import Capability, Environment, Template
from .task import Task, Taskset
from .taskfile import load_task_file

__version__ = "0.0.0+hud-studio"

__all__ = ["Capability", "Environment", "Task", "Taskset", "Template", "graders", "load_task_file"]
