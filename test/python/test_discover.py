"""`python3 -m hud_studio.discover` run as the engine runs it: a subprocess printing JSON."""
import hashlib
import json
import os
import tempfile
import unittest

from .support import fixture, run_python

TASK_KEYS = {"env", "id", "args", "slug", "description", "runtime_config", "source", "source_hash", "line", "source_file"}


def discover(*args):
    proc = run_python(["-m", "hud_studio.discover"] + list(args) + ["--json"])
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1, "expected one JSON line on stdout, got {!r}".format(proc.stdout)
    return proc.returncode, json.loads(lines[0]), proc.stderr.decode()


class DiscoverModuleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = fixture("discovery", "env.py")
        cls.code, cls.report, cls.stderr = discover(cls.path)

    def task(self, ref):
        return next(t for t in self.report["tasks"] if t["ref"] == ref)

    def test_success_shape(self):
        self.assertEqual(self.code, 0, self.report["error"])
        self.assertIsNone(self.report["error"])
        self.assertEqual(self.report["file"], self.path)
        self.assertIn("printed at import time", self.stderr)

    def test_references_in_module_order(self):
        self.assertEqual(
            [t["ref"] for t in self.report["tasks"]],
            ["single", "suite[0]", "suite[2]", "pair[0]", "pair[1]", "named[0]", "configured", "dict_configured", "odd_args"],
        )

    def test_task_row(self):
        t = self.task("single")
        self.assertEqual(set(t), TASK_KEYS | {"ref", "verifier", "row_error"})
        self.assertEqual((t["env"], t["id"], t["args"]), ("catalog", "greet", {"name": "ada"}))
        digest = hashlib.sha1(json.dumps(t["args"], sort_keys=True).encode()).hexdigest()[:8]
        self.assertEqual(t["slug"], "greet-" + digest)
        self.assertEqual(t["description"], "Say hello")
        self.assertIsNone(t["runtime_config"])
        self.assertTrue(t["source"].startswith('@catalog.template(id="greet"'))
        self.assertIn("async def greet(name: str, times: int = 1):", t["source"])
        expected_hash = hashlib.sha256(
            (t["source"] + "\n" + json.dumps(t["args"], sort_keys=True)).encode()
        ).hexdigest()
        self.assertEqual(t["source_hash"], expected_hash)
        with open(self.path) as f:
            self.assertTrue(f.read().splitlines()[t["line"] - 1].startswith("async def greet("))

    def test_verifier_from_a_sibling_module(self):
        v = self.task("single")["verifier"]
        self.assertEqual(set(v), TASK_KEYS)
        self.assertEqual((v["env"], v["id"], v["args"]), ("judge", "check", {"expected": "ada"}))
        self.assertEqual(v["source_file"], fixture("discovery", "envs", "judge.py"))
        self.assertEqual(v["line"], 7)
        self.assertIsNone(self.task("suite[0]")["verifier"])

    def test_runtime_config_objects_and_dicts(self):
        self.assertEqual(
            self.task("configured")["runtime_config"],
            {"image": "hud-studio/base:bookworm", "resources": {"cpu": 1, "memory_mb": 512}},
        )
        self.assertEqual(self.task("dict_configured")["runtime_config"], {"limits": {"run_timeout_s": 30}})

    def test_non_json_arguments_are_stringified(self):
        self.assertEqual(self.task("odd_args")["args"], {"name": "/x"})

    def test_environments(self):
        envs = {e["name"]: e for e in self.report["environments"]}
        self.assertEqual(set(envs), {"catalog", "judge"})
        self.assertEqual(envs["judge"]["version"], "2.0.0")
        greet = envs["catalog"]["templates"][0]
        self.assertEqual((greet["id"], greet["description"]), ("greet", "Say hello"))
        self.assertEqual(greet["args"]["required"], ["name"])
        self.assertEqual(greet["args"]["properties"]["times"], {"type": "integer", "default": 1})


class DiscoverTaskFileTest(unittest.TestCase):
    def test_jsonl_rows_bind_to_env_py_beside_them(self):
        code, report, _ = discover(fixture("discovery", "tasks.jsonl"))
        self.assertEqual(code, 0, report["error"])
        self.assertEqual([t["ref"] for t in report["tasks"]], ["0", "1"])
        self.assertEqual(report["tasks"][1]["args"], {"name": "row1", "times": 3})
        self.assertEqual(report["tasks"][1]["verifier"]["id"], "check")
        self.assertEqual(report["tasks"][0]["description"], "Say hello")

    def test_json_with_explicit_module_and_runtime_config(self):
        code, report, _ = discover(fixture("discovery", "tasks.json"), "--module", fixture("discovery", "env.py"))
        self.assertEqual(code, 0, report["error"])
        self.assertEqual(report["tasks"][1]["runtime_config"], {"image": "custom:latest"})

    def test_row_naming_no_template_fails_alone(self):
        # As under the SDK, only that row's run fails; the good row before it is listed as usual.
        code, report, _ = discover(fixture("discovery", "bad_rows.jsonl"))
        self.assertEqual(code, 0, report["error"])
        self.assertEqual([(t["ref"], t["row_error"]) for t in report["tasks"]][0], ("0", None))
        failure = report["tasks"][1]["row_error"]
        self.assertEqual((report["tasks"][1]["slug"], failure["line"]), ("missing", 2))
        self.assertIn("has no template 'missing'", failure["message"])

    def test_bad_arguments_in_a_row(self):
        code, report, _ = discover(fixture("discovery", "bad_args.jsonl"))
        self.assertEqual(code, 0, report["error"])
        self.assertEqual(report["tasks"][0]["args"], {"nam": "typo"})
        self.assertIn("unexpected argument(s) 'nam'", report["tasks"][0]["row_error"]["message"])

    def test_unreadable_row_refuses_the_file(self):
        # The SDK's loader refuses a file with a line that is not JSON, or a row without env/id, whole.
        for text, line in (('{"env": "catalog", "id": "greet"}\n{not json\n', 2), ('{"env": "catalog"}\n', 1)):
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "tasks.jsonl")
                with open(path, "w") as f:
                    f.write(text)
                code, report, _ = discover(path, "--module", fixture("discovery", "env.py"))
                self.assertEqual((code, report["tasks"], report["error"]["line"]), (1, [], line), text)


class DiscoverErrorTest(unittest.TestCase):
    def check(self, name, lines, *fragments):
        """`lines`: the expected line, or a tuple of acceptable ones."""
        path = fixture("broken", name)
        code, report, _ = discover(path)
        self.assertEqual(code, 1)
        error = report["error"]
        self.assertEqual(set(error), {"message", "file", "line", "traceback"})
        self.assertEqual(error["file"], path)
        self.assertIn(error["line"], lines if isinstance(lines, tuple) else (lines,), error)
        for fragment in fragments:
            self.assertIn(fragment, error["message"])
        self.assertEqual(report["tasks"], [])
        return error

    def test_syntax_error(self):
        self.check("syntax_env.py", 5, "SyntaxError")

    def test_exception_at_import_points_at_the_raising_line(self):
        error = self.check("raises_env.py", 7, "RuntimeError: configuration missing")
        self.assertIn("Traceback", error["traceback"])

    def test_template_on_a_coroutine(self):
        # Python 3.9 reports the def line of a decorated function, later versions the decorator line.
        self.check("authoring_env.py", (6, 7), "TypeError", "'not_a_generator' must be an async generator")

    def test_scenario_decorator(self):
        self.check("scenario_env.py", (6, 7), "use @broken.template")

    def test_bad_binding_at_module_level(self):
        self.check("bad_binding_env.py", 12, "template 'needs_arg'", "missing a required argument: 'expected'")

    def test_nested_verifier(self):
        self.check("nested_env.py", 16, "nested verifier tasks are rejected")

    def test_missing_file(self):
        code, report, _ = discover(fixture("broken", "does_not_exist.py"))
        self.assertEqual(code, 1)
        self.assertIn("no such file", report["error"]["message"])


class CanonicalFixturesTest(unittest.TestCase):
    def test_two_env_and_same_env_shapes(self):
        for folder, envs in (("verifier_two_env", ("workspace", "judge")), ("verifier_same_env", ("workspace", "workspace"))):
            code, report, _ = discover(fixture(folder, "env.py"))
            self.assertEqual(code, 0, report["error"])
            [task] = report["tasks"]
            self.assertEqual((task["ref"], task["env"], task["id"], task["args"]), ("task", envs[0], "solve", {}))
            self.assertEqual((task["verifier"]["env"], task["verifier"]["id"]), (envs[1], "verify"))
            self.assertEqual(task["verifier"]["args"], {"expected": "secret"})


if __name__ == "__main__":
    unittest.main()
