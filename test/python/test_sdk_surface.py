"""The HUD SDK v6 surface and semantics env files rely on (docs/sdk-compatibility.md), over real TCP."""
import asyncio
import decimal
import hashlib
import json
import os
import pathlib
import socket
import tempfile
import unittest
import uuid

import hud
from hud.capabilities import Capability
from hud.environment import Answer, Environment, load_environment
from hud.environment.convert import convert_or_keep
from hud.eval import RuntimeConfig, Task, Taskset
from hud.graders import EvaluationResult, SubScore

from .support import ServerProcess, fixture

SURFACE_ENV = fixture("sdk_surface", "env.py")


class SurfaceTest(unittest.TestCase):
    def test_sdk_names_import(self):
        for name in ("Environment", "Task", "Taskset", "RuntimeConfig", "__version__"):
            self.assertTrue(hasattr(hud, name), name)
        self.assertEqual(Environment().name, "environment")

    def test_slugs_match_the_sdk(self):
        env = Environment("slugs")

        @env.template()
        async def capital(country: str = "France"):
            yield "q"
            yield 1.0

        # No arguments given: the id alone; defaults are not filled in.
        self.assertEqual(capital().slug, "capital")
        self.assertEqual(capital().args, {})
        digest = hashlib.sha1(json.dumps({"country": "Peru"}, sort_keys=True).encode()).hexdigest()[:8]
        self.assertEqual(capital("Peru").slug, "capital-" + digest)
        self.assertEqual(Task(env="slugs", id="capital", args={"country": "Peru"}).slug, "capital-" + digest)
        self.assertIs(env.tasks["capital"].func, capital.func)
        self.assertIs(env.tasks, env.templates)

    def test_taskset_is_keyed_by_slug(self):
        env = Environment("ts")

        @env.template()
        async def t(n: int = 0):
            yield "q"
            yield 1.0

        ts = Taskset("s", [t(1), t(2)])
        self.assertEqual([x.args for x in ts], [{"n": 1}, {"n": 2}])
        self.assertIs(ts[t(1).slug].args["n"], 1)
        self.assertEqual(ts[1].args, {"n": 2})
        with self.assertRaisesRegex(ValueError, "duplicate task slugs"):
            Taskset("s", [t(1), t(1)])

    def test_task_model_dump_and_validate(self):
        row = Task(env="e", id="t", args={"a": 1}, runtime_config=RuntimeConfig(image="img"))
        dumped = row.model_dump(exclude_none=True)
        self.assertEqual(dumped["runtime_config"], {"image": "img"})
        again = Task.model_validate(dumped)
        self.assertEqual((again.env, again.id, again.args, again.slug), ("e", "t", {"a": 1}, row.slug))

    def test_argument_conversion_follows_the_sdk(self):
        from typing import List, Literal, Optional, Union

        cases = [
            (int, "12", 12), (int, "12.0", 12), (int, 12.5, 12.5), (float, " 2 ", 2.0), (bool, "true", True),
            (bool, "No", False), (str, 5, 5), (Literal[1, 2], "1", 1), (Literal["a", "b"], "a", "a"),
            (Optional[int], "5", 5), (Union[int, str], "5", "5"), (List[int], ["1", "2"], [1, 2]),
            (List[int], "[1, 2]", [1, 2]), (dict, "{}", {}), (int, "abc", "abc"),
            # Found by the conformance suite's arguments case (pydantic's lax mode).
            (int, "5.", "5."), (bytes, "é", "é".encode("utf-8")), (Literal[1, 2], True, 1), (Literal[1, 2], 2.0, 2),
            (Literal[True], 1, True), (Literal[1, 2], "true", 1), (pathlib.Path, "/tmp/x", pathlib.Path("/tmp/x")),
            (decimal.Decimal, 0.1, decimal.Decimal("0.1")), (decimal.Decimal, "NaN", "NaN"),
            (uuid.UUID, "12345678123456781234567812345678", uuid.UUID("12345678-1234-5678-1234-567812345678")),
        ]
        for annotation, value, expected in cases:
            got = convert_or_keep(annotation, value)
            self.assertEqual((got, type(got)), (expected, type(expected)), (annotation, value))

    def test_dataclass_and_named_tuple_arguments(self):
        import dataclasses
        from typing import NamedTuple

        @dataclasses.dataclass
        class Point:
            x: int
            y: int = 0

        class Span(NamedTuple):
            start: int
            label: str = "span"

        self.assertEqual(convert_or_keep(Point, {"x": "3", "extra": 1}), Point(3, 0))
        self.assertEqual(convert_or_keep(Point, '{"x": 1, "y": "2"}'), Point(1, 2))
        self.assertEqual(convert_or_keep(Point, {"y": 1}), {"y": 1})
        self.assertEqual(convert_or_keep(Span, ["1", "b"]), Span(1, "b"))
        self.assertEqual(convert_or_keep(Span, {"start": "2"}), Span(2))
        self.assertEqual(convert_or_keep(Span, []), [])

    def test_capability_constructors(self):
        self.assertEqual(
            Capability.mcp(url="http://127.0.0.1:9/mcp").to_manifest(),
            {"name": "tools", "protocol": "mcp/2025-11-25", "url": "http://127.0.0.1:9/mcp",
             "params": {"transport": "streamable-http"}},
        )
        ssh = Capability.ssh(url="127.0.0.1:2222", host_pubkey="ssh-ed25519 AAAA")
        self.assertEqual((ssh.protocol, ssh.url, ssh.params["user"], ssh.params["shell"]),
                         ("ssh/2", "ssh://127.0.0.1:2222", "agent", "bash"))
        with self.assertRaises(ValueError):
            Capability.mcp(url="stdio:server")

    def test_result_models(self):
        s = SubScore.model_validate({"name": "a", "value": 0.5, "metadata": {"k": 1}})
        self.assertEqual((s.score, s.info), (0.5, {"k": 1}))
        r = EvaluationResult.model_validate({"reward": 1.0, "subscores": [s.model_dump()], "custom": 3})
        self.assertEqual(r.subscores[0].name, "a")
        self.assertEqual(r.to_wire()["custom"], 3)

    def test_load_environment(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "two.py")
            with open(path, "w") as f:
                f.write("from hud import Environment\nfirst = Environment('one')\nsecond = Environment('two')\n")
            self.assertEqual(load_environment(path, name="second").name, "two")
            self.assertEqual(load_environment(path, name="one").name, "one")
            with self.assertRaisesRegex(ValueError, "multiple Environments"):
                load_environment(path)

    def test_answer_is_generic(self):
        self.assertIs(Answer[dict], Answer)
        self.assertEqual(Answer(content={"x": 1}, raw='{"x": 1}').content, {"x": 1})


class WorkspaceNetworkTest(unittest.TestCase):
    def test_a_network_policy_the_bundled_runtime_cannot_apply_is_said(self):
        import contextlib
        import io
        from hud.environment.workspace import Workspace
        for options, said in (({"allowed_hosts": {"pypi.org"}}, "allowed_hosts=..."),
                              ({"peers": ["db"], "allowed_hosts": {"x.org"}}, "allowed_hosts=..., peers=..."),
                              ({"network": True}, None), ({}, None)):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                Workspace(tempfile.gettempdir(), **options)
            if said is None:
                self.assertEqual(err.getvalue(), "", options)
            else:
                self.assertIn("env.workspace({}) is not applied by the bundled runtime".format(said), err.getvalue())


class ServedSurfaceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.join(self.tmp.name, "ws", "deep")
        self.marker = os.path.join(self.tmp.name, "down")
        self.server = ServerProcess(SURFACE_ENV, extra_env={"WORKSPACE_ROOT": self.root,
                                                            "SHUTDOWN_MARKER": self.marker})
        self.addCleanup(self.server.stop)
        self.client = self.server.client()
        self.addCleanup(self.client.close)

    def test_hello_lists_hook_published_capabilities_and_the_workspace_shell(self):
        hello = self.client.call("hello")
        self.assertEqual(hello["env"]["name"], "environment")
        by_name = {b["name"]: b for b in hello["bindings"]}
        self.assertEqual(by_name["tools"]["protocol"], "mcp/2025-11-25")
        self.assertEqual(by_name["shell"]["protocol"], "hud-studio-shell/1")
        self.assertEqual(by_name["shell"]["params"]["cwd"], self.root)
        self.assertTrue(os.path.isdir(self.root), "the workspace root is created when the environment serves")

    def test_the_shell_runs_commands_in_the_workspace_over_a_tunnel(self):
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=20) as sock:
            sock.sendall(b'{"jsonrpc": "2.0", "id": 1, "method": "tunnel.open", "params": {"capability": "shell"}}\n')
            reader = sock.makefile("rb")
            self.assertIn("result", json.loads(reader.readline()))
            sock.sendall(b'{"id": 7, "command": "pwd; echo err >&2; exit 3"}\n')
            reply = json.loads(reader.readline())
            self.assertEqual(reply, {"id": 7, "exit_code": 3, "stdout": self.root + "\n", "stderr": "err\n",
                                     "timed_out": False})
            sock.sendall(b'{"id": 8, "command": "cat", "stdin": "piped"}\n')
            self.assertEqual(json.loads(reader.readline())["stdout"], "piped")

    def test_the_engine_names_the_agents_folder_as_the_workspace_root(self):
        seat = os.path.join(self.tmp.name, "agent-seat")
        server = ServerProcess(SURFACE_ENV, extra_env={"WORKSPACE_ROOT": self.root, "SHUTDOWN_MARKER": self.marker,
                                                       "HUD_STUDIO_AGENT_WORKSPACE": seat})
        self.addCleanup(server.stop)
        client = server.client()
        self.addCleanup(client.close)
        shell = {b["name"]: b for b in client.call("hello")["bindings"]}["shell"]
        self.assertEqual(shell["params"]["cwd"], seat)
        self.assertTrue(os.path.isdir(seat))

    def test_shutdown_hooks_run_on_stop(self):
        self.client.call("hello")
        self.assertEqual(self.server.terminate(), 0)
        with open(self.marker) as f:
            self.assertEqual(f.read(), "down\n")

    def test_arguments_are_converted_to_their_annotations(self):
        self.client.call("tasks.start", {"id": "typed", "args": {"count": "12", "ratio": "0.5", "flag": "true",
                                                                 "mode": "a", "level": "2"}})
        frame = self.client.call("tasks.grade", {"answer": "x"})
        self.assertEqual(frame["types"], ["int", "float", "bool", "str", "int"])
        self.assertEqual(frame["values"], [12, 0.5, True, "a", 2])

    def test_returns_builds_an_answer(self):
        self.client.call("tasks.start", {"id": "structured"})
        self.assertEqual(self.client.call("tasks.grade", {"answer": '{"x": 1}'}), {"score": 1.0, "raw": '{"x": 1}'})

    def test_grade_frame_is_the_sdks(self):
        self.client.call("tasks.start", {"id": "evaluation"})
        self.assertEqual(self.client.call("tasks.grade", {"answer": "x"}),
                         {"score": 0.5, "done": True, "content": None, "info": {}, "isError": False,
                          "subscores": None})
        self.client.call("tasks.start", {"id": "graded"})
        frame = self.client.call("tasks.grade", {"answer": "ok"})
        self.assertEqual([(s["name"], s["weight"], s["value"]) for s in frame["subscores"]],
                         [("BashGrader", 0.5, 1.0), ("any", 0.25, 1.0), ("both", 0.25, 1.0)])
        self.assertEqual(frame["subscores"][0]["info"]["_parameters"], {"command": "exit 0"})
        self.assertEqual([c["name"] for c in frame["subscores"][1]["children"]], ["exact-1", "exact-2"])


if __name__ == "__main__":
    unittest.main()
