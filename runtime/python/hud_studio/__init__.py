"""HUD Studio helpers that run beside the bundled runtime (never inside the `hud` package)."""
