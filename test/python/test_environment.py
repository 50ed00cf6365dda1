import ast
import asyncio
import hashlib
import json
import os
import tempfile
import unittest
from typing import Dict, List, Optional

import hud
import hud.environment
from hud import Capability, Environment, Task, Taskset
from hud.task import default_slug
from hud.environment.schema import args_schema
from hud.taskfile import TaskFileError, load_task_file

from .support import RUNTIME


class EnvironmentTest(unittest.TestCase):
    def test_public_names(self):
        self.assertIs(hud.Environment, hud.environment.Environment)
        for name in ("Environment", "Task", "Taskset", "Capability"):
            self.assertTrue(hasattr(hud, name), name)

    def test_constructor_and_capabilities(self):
        env = Environment("svc", version="2.1.0", capabilities=[Capability("mcp", "mcp", "http://127.0.0.1:8000/mcp")])
        self.assertEqual((env.name, env.version), ("svc", "2.1.0"))
        self.assertEqual(Environment("plain").version, "0.0.1")
        env.add_capability(Capability("ssh", "ssh", "127.0.0.1:2222", {"user": "root"}))
        env.add_capability(Capability("db", "tcp", "127.0.0.1:5432"))
        self.assertEqual(
            [c.to_dict() for c in env.capabilities],
            [
                {"name": "mcp", "protocol": "mcp", "url": "http://127.0.0.1:8000/mcp", "params": {}},
                {"name": "ssh", "protocol": "ssh", "url": "127.0.0.1:2222", "params": {"user": "root"}},
                {"name": "db", "protocol": "tcp", "url": "127.0.0.1:5432", "params": {}},
            ],
        )
        # As in the SDK: a capability of the same name replaces the old one.
        env.add_capability(Capability("db", "tcp", "127.0.0.1:1"))
        self.assertEqual([c.url for c in env.capabilities][-1], "127.0.0.1:1")
        self.assertEqual(env.capability("db").url, "127.0.0.1:1")
        with self.assertRaises(KeyError):
            env.capability("nope")
        with self.assertRaisesRegex(TypeError, "expected Capability"):
            env.add_capability(("ssh", "ssh", "127.0.0.1:2222"))
        self.assertEqual(Environment().name, "environment")

    def test_hooks_are_recorded(self):
        env = Environment("hooks")

        @env.initialize
        async def up():
            pass

        @env.shutdown
        async def down():
            pass

        self.assertEqual((env.initialize_hooks, env.shutdown_hooks), ([up], [down]))

    def test_template_id_defaults_to_function_name(self):
        env = Environment("ids")

        @env.template()
        async def first():
            yield "p"
            yield 1.0

        with self.assertRaisesRegex(TypeError, "needs parentheses"):
            @env.template
            async def bare():
                yield "p"
                yield 1.0

        @env.template(id="bare")
        async def second():
            yield "p"
            yield 1.0

        @env.template(id="custom", description="Does things")
        async def third():
            yield "p"
            yield 1.0

        self.assertEqual(list(env.templates), ["first", "bare", "custom"])
        self.assertEqual(env.templates["custom"].description, "Does things")

    def test_non_async_generators_are_rejected_by_name(self):
        env = Environment("strict")

        async def coroutine_only():
            return 1.0

        def plain():
            return 1.0

        def sync_gen():
            yield "p"

        for fn in (coroutine_only, plain, sync_gen):
            with self.assertRaises(TypeError) as caught:
                env.template()(fn)
            self.assertIn(fn.__name__, str(caught.exception))
            self.assertIn("async generator", str(caught.exception))

    def test_duplicate_template_id_is_an_error(self):
        env = Environment("dupes")

        @env.template(id="same")
        async def one():
            yield "p"
            yield 1.0

        with self.assertRaisesRegex(ValueError, "template 'same' already registered"):
            @env.template(id="same")
            async def two():
                yield "p"
                yield 1.0

    def test_scenario_is_the_v5_name(self):
        env = Environment("old")
        with self.assertRaises(AttributeError) as caught:
            env.scenario("x")
        self.assertIn("@old.template", str(caught.exception))

    def test_gym_says_it_is_not_covered_and_what_serves_it(self):
        env = Environment("robots")
        with self.assertRaises(AttributeError) as caught:
            env.gym("CartPole-v1", num_envs=4)
        self.assertIn("not covered by HUD Studio's bundled runtime", str(caught.exception))
        self.assertIn("--sdk auto", str(caught.exception))
        with self.assertRaises(AttributeError) as other:
            env.gymm
        self.assertEqual(str(other.exception), "'Environment' object has no attribute 'gymm'")


class TaskTest(unittest.TestCase):
    def setUp(self):
        self.env = Environment("tasks")
        self.ran = []

        @self.env.template(id="solve")
        async def solve(target: str, retries: int = 2, *, mode="fast"):
            self.ran.append(target)
            yield "p"
            yield 1.0

        self.solve = solve

    def test_calling_binds_arguments_with_defaults_and_runs_nothing(self):
        task = self.solve("disk")
        self.assertIsInstance(task, Task)
        self.assertEqual((task.env, task.id), ("tasks", "solve"))
        # Only the arguments given, as in the SDK (its slug hashes exactly these).
        self.assertEqual(task.args, {"target": "disk"})
        self.assertIsNone(task.verifier)
        self.assertIsNone(task.runtime_config)
        self.assertEqual(self.ran, [])

    def test_slug_is_id_plus_sha1_of_sorted_args(self):
        task = self.solve("disk", retries=5)
        digest = hashlib.sha1(json.dumps(task.args, sort_keys=True).encode()).hexdigest()[:8]
        self.assertEqual(task.slug, "solve-" + digest)
        self.assertEqual(task.slug, self.solve(retries=5, target="disk").slug)
        self.assertNotEqual(task.slug, self.solve("other").slug)
        task.slug = "mine"
        self.assertEqual(task.slug, "mine")

    def test_bad_arguments_fail_before_template_code_runs(self):
        for call in (lambda: self.solve(), lambda: self.solve("a", 1, 2), lambda: self.solve("a", nope=1)):
            with self.assertRaises(TypeError) as caught:
                call()
            self.assertIn("template 'solve'", str(caught.exception))
        with self.assertRaisesRegex(TypeError, "unexpected argument.*'nope'"):
            self.solve("a", nope=1)
        self.assertEqual(self.ran, [])

    def test_extra_keywords_are_recorded_under_their_parameter_as_the_sdk_does(self):
        env = Environment("kw")

        @env.template()
        async def open_ended(first: int = 1, **rest):
            yield "first={} rest={}".format(first, rest)
            yield 1.0

        task = open_ended(first=2, colour="red")
        self.assertEqual(task.args, {"first": 2, "rest": {"colour": "red"}})
        # Started with those args, the template gets them as one keyword, `rest`, exactly as under the SDK.
        prompt = asyncio.run(open_ended.open(task.args).__anext__())
        self.assertEqual(prompt, "first=2 rest={'rest': {'colour': 'red'}}")
        # A task-file row's args are passed as written.
        path = os.path.join(tempfile.mkdtemp(), "rows.jsonl")
        with open(path, "w") as f:
            f.write('{"env": "kw", "id": "open_ended", "args": {"colour": "red"}}\n')
        self.assertEqual(load_task_file(path, [env])[0][2].args, {"colour": "red"})

    def test_verifier_and_nested_rejection(self):
        actor, verifier, other = self.solve("a"), self.solve("v"), self.solve("o")
        actor.verifier = verifier
        self.assertIs(actor.verifier, verifier)
        with self.assertRaisesRegex(ValueError, "nested verifier tasks are rejected"):
            verifier.verifier = other  # a verifier may not get one
        with self.assertRaisesRegex(ValueError, "nested verifier tasks are rejected"):
            other.verifier = actor  # ...nor may a task with a verifier become one
        with self.assertRaisesRegex(ValueError, "nested verifier tasks are rejected"):
            other.verifier = other
        with self.assertRaisesRegex(TypeError, "must be a Task"):
            other.verifier = "verify"
        actor.verifier = None
        verifier.verifier = other  # no longer anyone's verifier: allowed
        self.assertEqual(actor.to_dict(), {"env": "tasks", "id": "solve", "args": {"target": "a"}})

    def test_taskset(self):
        tasks = [self.solve("a"), self.solve("b")]
        ts = Taskset("set", tasks)
        self.assertEqual((ts.name, len(ts), list(ts), ts[1]), ("set", 2, tasks, tasks[1]))
        with self.assertRaisesRegex(TypeError, "item 1 is a str"):
            Taskset("bad", [tasks[0], "x"])


class TaskFileTest(unittest.TestCase):
    def setUp(self):
        self.env = Environment("files")

        @self.env.template(id="t")
        async def t(x: int, y: int = 0):
            yield "p"
            yield 1.0

        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_jsonl_rows_bind_with_lines(self):
        path = self.write(
            "t.jsonl",
            '{"env": "files", "id": "t", "args": {"x": 1}}\n\n'
            '{"env": "files", "id": "t", "args": {"x": 2}, "verifier": {"env": "files", "id": "t", "args": {"x": 3}}}\n',
        )
        rows = load_task_file(path, [self.env])
        self.assertEqual([(i, line, t.args) for i, line, t in rows], [(0, 1, {"x": 1}), (1, 3, {"x": 2})])
        self.assertEqual(rows[1][2].verifier.args, {"x": 3})

    def test_json_array_and_tasks_object(self):
        for text in ('[{"env": "files", "id": "t", "args": {"x": 1}}]', '{"tasks": [{"env": "files", "id": "t", "args": {"x": 1}}]}'):
            rows = load_task_file(self.write("t.json", text), [self.env])
            self.assertEqual(rows[0][2].args, {"x": 1})

    def test_errors_name_file_and_line(self):
        cases = [
            ('{"env": "files", "id": "t", "args": {"x": 1}}\n{not json\n', 2, "not valid JSON"),
            ('{"env": "files", "id": "t", "args": {"x": 1}, "verifier": {"env": "files", "id": "t", "args": {"x": 1},'
             ' "verifier": {"env": "files", "id": "t", "args": {"x": 1}}}}\n', 1, "nested verifier tasks are rejected"),
        ]
        for text, line, message in cases:
            path = self.write("bad.jsonl", text)
            with self.assertRaises(TaskFileError) as caught:
                load_task_file(path, [self.env])
            self.assertEqual((caught.exception.file, caught.exception.line), (path, line), text)
            self.assertIn(message, caught.exception.message)


    def test_rows_whose_args_do_not_fit_load_with_their_reason(self):
        # The SDK fails only such a row's run; the rows around it stay runnable.
        path = self.write(
            "mixed.jsonl",
            '{"env": "files", "id": "t", "args": {"x": 1}}\n'
            '{"env": "files", "id": "t", "args": {"y": 1}}\n'
            '{"env": "files", "id": "t", "args": {"x": 1, "z": 2}}\n'
            '{"env": "files", "id": "t", "args": {"x": 1}, "verifier": {"env": "files", "id": "t", "args": {}}}\n'
            '{"env": "nope", "id": "t", "args": {}}\n'
            '{"env": "files", "id": "zz", "args": {}}\n'
            '{"env": "files", "id": "t", "args": {"x": 2}}\n',
        )
        rows = load_task_file(path, [self.env])
        self.assertEqual([(i, line) for i, line, _ in rows], [(i, i + 1) for i in range(7)])
        errors = [t.row_error for _, _, t in rows]
        self.assertEqual([e is None for e in errors], [True, False, False, False, False, False, True])
        self.assertEqual([e.line for e in errors if e is not None], [2, 3, 4, 5, 6])
        self.assertIn("no environment named 'nope'", errors[4].message)
        self.assertIn("has no template 'zz'", errors[5].message)
        self.assertIn("template 't' (env 'files'): missing a required argument: 'x'", errors[1].message)
        self.assertIn("unexpected argument(s) 'z'", errors[2].message)
        self.assertTrue(errors[3].message.startswith("verifier: template 't'"), errors[3].message)
        # The bad row keeps its args as written, so its slug is the SDK's.
        self.assertEqual((rows[1][2].args, rows[1][2].slug), ({"y": 1}, default_slug("t", {"y": 1})))


class SchemaTest(unittest.TestCase):
    def test_annotations_become_json_schema(self):
        async def t(name: str, count: int = 3, ratio: float = 0.5, flag: bool = False, tags: List[str] = [],
                    opts: Dict[str, int] = {}, maybe: Optional[int] = None, anything=None):
            yield "p"

        schema = args_schema(t)
        self.assertEqual(schema["type"], "object")
        self.assertEqual(schema["required"], ["name"])
        self.assertFalse(schema["additionalProperties"])
        self.assertEqual(
            schema["properties"],
            {
                "name": {"type": "string"},
                "count": {"type": "integer", "default": 3},
                "ratio": {"type": "number", "default": 0.5},
                "flag": {"type": "boolean", "default": False},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                "opts": {"type": "object", "default": {}},
                "maybe": {"type": ["integer", "null"], "default": None},
                "anything": {"default": None},
            },
        )

    def test_string_annotations_and_kwargs(self):
        async def t(a: "str", b: "Optional[float]" = None, c: "Unknown" = 1, **rest):
            yield "p"

        schema = args_schema(t)
        self.assertEqual(schema["properties"]["a"], {"type": "string"})
        self.assertEqual(schema["properties"]["b"], {"type": ["number", "null"], "default": None})
        self.assertEqual(schema["properties"]["c"], {"default": 1})
        self.assertNotIn("additionalProperties", schema)


class Python39CompatibilityTest(unittest.TestCase):
    def test_runtime_parses_as_python_3_9(self):
        files = []
        for folder, _, names in os.walk(RUNTIME):
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        self.assertGreater(len(files), 10)
        for path in files:
            with open(path, encoding="utf-8") as f:
                ast.parse(f.read(), filename=path, feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
