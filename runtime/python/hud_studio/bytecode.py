"""hud-studio bytecode: the runtime's modules from code the engine compiled once, not from their sources.

A fresh container would compile every module of the runtime before running
it. The engine instead compiles the runtime once on the host, with the same
Python version, into one file beside the sources (one file, not a
`__pycache__` per package: each file the copy creates costs the container
more than reading a larger one):

    <runtime>/.bytecode/<cache tag>.bin = MAGIC_NUMBER + marshal({module: (origin, marshalled code)})

`install()` puts a finder in front of the import system that changes only
where a module's code comes from: the module is found exactly as before (the
path finder decides which file it is), and when that file is the one the
code was compiled from, its code is taken from the table. Anything else
(another interpreter version, a module the table does not hold, a file found
elsewhere on the path) is imported as usual. See docs/substrate-copy.md.
"""
import importlib.machinery
import importlib.util
import marshal
import os
import sys

FOLDER = ".bytecode"


class _PrecompiledLoader(importlib.machinery.SourceFileLoader):
    """A source loader (so tracebacks and `get_source` read the file) whose code is already compiled."""

    def __init__(self, fullname, path, code):
        super().__init__(fullname, path)
        self._code = code

    def get_code(self, fullname):
        return marshal.loads(self._code)


class PrecompiledFinder:
    def __init__(self, table):
        self.table = table

    def find_spec(self, name, path=None, target=None):
        entry = self.table.get(name)
        if entry is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.origin != entry[0]:
            return spec
        spec.loader = _PrecompiledLoader(name, spec.origin, entry[1])
        return spec


def load_table(path):
    """The table in `path`, or None when it is missing or made by another interpreter version."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    magic = importlib.util.MAGIC_NUMBER
    if data[: len(magic)] != magic:
        return None
    table = marshal.loads(data[len(magic) :])
    return table if isinstance(table, dict) else None


def install(roots=None):
    """Serves the first table found under `roots` (default: the PYTHONPATH entries); returns whether one was."""
    if roots is None:
        roots = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
    for root in roots:
        table = load_table(os.path.join(root, FOLDER, sys.implementation.cache_tag + ".bin"))
        if table is not None:
            sys.meta_path.insert(0, PrecompiledFinder(table))
            return True
    return False
