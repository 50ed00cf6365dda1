"""The server's own messages: stderr only, one `[hud-server]` line per event (stdout carries the port line)."""
import sys


def log(message: str) -> None:
    sys.stderr.write("[hud-server] {}\n".format(message.replace("\n", "\n[hud-server]   ")))
    sys.stderr.flush()
