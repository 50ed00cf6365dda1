"""Environments and their control-channel server (`python3 -m hud.environment.server`)."""
from .core import Capability, Environment, Template

__all__ = ["Capability", "Environment", "Template"]
