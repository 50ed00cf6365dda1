"""Discovery of many env.py files in one process: each is imported in a forked child, so none sees another's environments.

Reads a JSON list of paths on stdin; prints one JSON report per path, in order, one per line.
"""
import json
import os
import sys

from hud_studio.discover import discover


def main():
    for path in json.load(sys.stdin):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            report = json.dumps(discover(path), default=str)
            with os.fdopen(write, "w") as out:
                out.write(report)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as inp:
            report = inp.read()
        os.waitpid(pid, 0)
        sys.stdout.write(report.replace("\n", " ") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
