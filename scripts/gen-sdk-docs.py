"""Writes the language server's SDK reference (server/src/features/sdkDocs.json)
from the bundled runtime itself: every public name of the `hud` packages an
env.py imports, with its signature (defaults included) and docstring. The
hover shows them; a unit test fails when this file is out of date.

    python3 scripts/gen-sdk-docs.py            write the file
    python3 scripts/gen-sdk-docs.py --check    exit 1 when it is stale
"""
import importlib
import inspect
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
OUT = os.path.join(ROOT, "server", "src", "features", "sdkDocs.json")
MODULES = ["hud", "hud.graders", "hud.capabilities", "hud.eval", "hud.environment"]


def signature(obj, name):
    try:
        target = obj
        prefix = "async def " if inspect.iscoroutinefunction(obj) else "def "
        if inspect.isclass(obj):
            prefix = "class "
            target = obj.__init__ if "__init__" in vars(obj) else obj
        sig = re.sub(r"\bhud(?:\.\w+)*\.(\w+)", r"\1", str(inspect.signature(target)))
        if inspect.isclass(obj):
            sig = re.sub(r"^\(self,? ?", "(", sig).replace(" -> None", "")
        return f"{prefix}{name}{sig}"
    except (TypeError, ValueError):
        return f"class {name}" if inspect.isclass(obj) else name


def methods(cls):
    out = {}
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        fn = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        if not callable(fn):
            continue
        out[name] = {"signature": signature(fn, name), "doc": inspect.cleandoc(fn.__doc__ or "")}
    return out


def main():
    entries = {}
    for mod_name in MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            continue
        names = getattr(mod, "__all__", [n for n in dir(mod) if not n.startswith("_")])
        for name in names:
            obj = getattr(mod, name, None)
            if obj is None or inspect.ismodule(obj):
                continue
            entry = {"module": mod_name, "signature": signature(obj, name), "doc": inspect.cleandoc(obj.__doc__ or "")}
            if inspect.isclass(obj):
                entry["methods"] = methods(obj)
            entries.setdefault(name, entry)
    text = json.dumps(dict(sorted(entries.items())), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv:
        current = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if current != text:
            print(f"{os.path.relpath(OUT, ROOT)} is out of date: run python3 scripts/gen-sdk-docs.py", file=sys.stderr)
            sys.exit(1)
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
