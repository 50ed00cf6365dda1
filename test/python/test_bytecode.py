"""The runtime's modules served from the table the engine compiles (hud_studio/bytecode.py)."""
import importlib.util
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from .support import RUNTIME

# What the probe prints: the module's value, the loader's class, and the traceback's source line.
PROBE = """
import sys, traceback
from hud_studio.bytecode import install
print(install([sys.argv[1]]))
import pkg.mod
print(pkg.mod.VALUE, type(pkg.mod.__spec__.loader).__name__, pkg.mod.__file__)
try:
    pkg.mod.fail()
except ValueError:
    print(traceback.format_exc().strip().splitlines()[-2].strip())
"""


def table_of(root, magic=None):
    """A table as the engine writes it: every module of `root` compiled, keyed by module name."""
    table = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, root)[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            with open(path, "rb") as f:
                table[".".join(parts)] = (path, marshal.dumps(compile(f.read(), path, "exec", dont_inherit=True)))
    os.makedirs(os.path.join(root, ".bytecode"), exist_ok=True)
    with open(os.path.join(root, ".bytecode", sys.implementation.cache_tag + ".bin"), "wb") as f:
        f.write((magic or importlib.util.MAGIC_NUMBER) + marshal.dumps(table))


class BytecodeTableTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hs-bytecode-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.root = os.path.join(self.dir, "runtime")
        os.makedirs(os.path.join(self.root, "pkg"))
        self.write(self.root, "VALUE = 'compiled'")

    def write(self, root, value_line):
        os.makedirs(os.path.join(root, "pkg"), exist_ok=True)
        with open(os.path.join(root, "pkg", "__init__.py"), "w") as f:
            f.write("")
        with open(os.path.join(root, "pkg", "mod.py"), "w") as f:
            f.write(value_line + "\n\ndef fail():\n    raise ValueError('from the source line')\n")

    def probe(self, *path):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(list(path) + [RUNTIME]), PYTHONDONTWRITEBYTECODE="1")
        r = subprocess.run([sys.executable, "-c", PROBE, self.root], env=env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()

    def test_the_code_comes_from_the_table_and_tracebacks_read_the_source(self):
        table_of(self.root)
        # The table is what runs: a later edit of the source on disk does not change the module's code.
        self.write(self.root, "VALUE = 'edited'")
        installed, loaded, line = self.probe(self.root)
        self.assertEqual(installed, "True")
        self.assertEqual(loaded, "compiled _PrecompiledLoader " + os.path.join(self.root, "pkg", "mod.py"))
        self.assertEqual(line, "raise ValueError('from the source line')")

    def test_a_table_of_another_interpreter_version_is_ignored(self):
        table_of(self.root, magic=b"\x00\x00\r\n")
        self.write(self.root, "VALUE = 'source'")
        installed, loaded, _ = self.probe(self.root)
        self.assertEqual(installed, "False")
        self.assertEqual(loaded.split()[:2], ["source", "SourceFileLoader"])

    def test_a_module_found_elsewhere_first_is_imported_from_there(self):
        table_of(self.root)
        shadow = os.path.join(self.dir, "shadow")
        self.write(shadow, "VALUE = 'shadow'")
        installed, loaded, _ = self.probe(shadow, self.root)
        self.assertEqual(installed, "True")
        self.assertEqual(loaded, "shadow SourceFileLoader " + os.path.join(shadow, "pkg", "mod.py"))


if __name__ == "__main__":
    unittest.main()
