"""The `hud.eval` names env files import: Task, Taskset and the runtime_config types.

Running agents (`Task.run`, `Job`, runtimes) is the engine's job in HUD
Studio, not the bundled runtime's.
"""
from ..task import RuntimeConfig, RuntimeGPU, RuntimeLimits, RuntimeResources, Task, Taskset

__all__ = ["RuntimeConfig", "RuntimeGPU", "RuntimeLimits", "RuntimeResources", "Task", "Taskset"]
