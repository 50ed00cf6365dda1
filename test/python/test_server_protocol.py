"""The control channel over real TCP, against the real server in a subprocess."""
import json
import os
import socket
import socketserver
import tempfile
import threading
import unittest

from .support import ServerProcess, fixture

PROTOCOL_ENV = fixture("protocol", "env.py")


class EchoDaemon:
    """A tiny TCP echo server standing in for a capability's daemon."""

    def __init__(self):
        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                while True:
                    data = self.request.recv(65536)
                    if not data:
                        return
                    self.request.sendall(data)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class ProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.echo = EchoDaemon()
        cls.server = ServerProcess(PROTOCOL_ENV, extra_env={"ECHO_PORT": str(cls.echo.port)})

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.echo.close()

    def setUp(self):
        self.client = self.server.client()
        self.addCleanup(self.client.close)
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def tearDown(self):
        self.assertTrue(self.server.alive(), "server died:\n" + self.server.stderr())

    def marker(self):
        return os.path.join(self.tmp.name, "marker.txt")

    def read_marker(self):
        with open(self.marker()) as f:
            return f.read()

    # -- session methods ---------------------------------------------------

    def test_hello(self):
        result = self.client.call("hello")
        self.assertRegex(result["session_id"], r"^[0-9a-f]{32}$")
        self.assertEqual(result["env"], {"name": "protocol", "version": "1.2.3"})
        self.assertEqual(
            result["bindings"],
            [
                {"name": "dead", "protocol": "tcp", "url": "127.0.0.1:1", "params": {}},
                {"name": "echo", "protocol": "tcp", "url": "127.0.0.1:{}".format(self.echo.port), "params": {"kind": "echo"}},
            ],
        )
        self.assertEqual(self.client.call("hello", {})["session_id"], result["session_id"])

    def test_tasks_list_with_json_schema(self):
        tasks = {t["id"]: t for t in self.client.call("tasks.list")["tasks"]}
        self.assertEqual(
            list(tasks),
            ["echo", "plain_prompt", "typed", "raises_on_start", "raises_on_grade", "bad_result", "no_second_yield",
             "no_prompt", "evaluation", "teardown", "cwd", "exits"],
        )
        self.assertEqual(tasks["echo"]["description"], "Grades 1.0 when the answer equals text")
        typed = tasks["typed"]["args"]
        self.assertEqual(typed["required"], ["name"])
        self.assertEqual(typed["properties"]["count"], {"type": "integer", "default": 3})
        self.assertEqual(typed["properties"]["maybe"], {"type": ["integer", "null"], "default": None})
        self.assertEqual(typed["properties"]["tags"], {"type": "array", "items": {"type": "string"}, "default": []})
        self.assertEqual(typed["properties"]["flag"], {"type": "boolean", "default": False})
        self.assertEqual(typed["properties"]["opts"], {"type": "object", "default": {}})

    def test_start_and_grade_dict_result(self):
        self.assertEqual(self.client.call("tasks.start", {"id": "echo", "args": {"text": "Grüße"}}), {"prompt": "Grüße", "extra": 1})
        self.assertEqual(self.client.call("tasks.grade", {"answer": "Grüße"}), {"score": 1.0, "answer_len": 5})

    def test_args_default_when_omitted(self):
        self.assertEqual(self.client.call("tasks.start", {"id": "echo"})["prompt"], "hi")
        self.assertEqual(self.client.call("tasks.grade", {"answer": "no"})["score"], 0.0)

    def test_plain_prompt_is_wrapped_and_integer_score(self):
        self.assertEqual(self.client.call("tasks.start", {"id": "plain_prompt", "args": {}}), {"prompt": "plain"})
        self.assertEqual(self.client.call("tasks.grade", {"answer": None}), {"score": 1})

    def test_evaluation_result_becomes_score_and_fields(self):
        self.client.call("tasks.start", {"id": "evaluation", "args": {}})
        frame = self.client.call("tasks.grade", {"answer": "secret"})
        self.assertEqual(frame["score"], 0.75)
        self.assertEqual(frame["info"], {"answer": "secret"})
        self.assertEqual(frame["content"], "graded")
        self.assertEqual((frame["done"], frame["isError"]), (True, False))
        self.assertEqual(
            frame["subscores"],
            [
                {"name": "match", "weight": 0.5, "value": 1.0, "children": None, "info": None},
                {"name": "style", "weight": 0.5, "value": 0.5, "children": None, "info": {"note": "ok"}},
            ],
        )

    def test_generator_ending_without_second_yield_scores_zero(self):
        self.client.call("tasks.start", {"id": "no_second_yield"})
        self.assertEqual(self.client.call("tasks.grade", {"answer": "x"})["score"], 0.0)

    def test_grading_closes_the_generator(self):
        self.client.call("tasks.start", {"id": "teardown", "args": {"marker": self.marker()}})
        self.assertFalse(os.path.exists(self.marker()))
        self.assertEqual(self.client.call("tasks.grade", {"answer": "x"})["score"], 1.0)
        self.assertEqual(self.read_marker(), "closed\n")

    def test_cancel_runs_teardown(self):
        self.client.call("tasks.start", {"id": "teardown", "args": {"marker": self.marker()}})
        self.assertEqual(self.client.call("tasks.cancel"), {"cancelled": True})
        self.assertEqual(self.read_marker(), "closed\n")
        self.assertEqual(self.client.error("tasks.grade", {"answer": 1})["message"], "no task in progress")

    def test_templates_run_in_their_folder_with_sibling_imports(self):
        self.assertEqual(self.client.call("tasks.start", {"id": "cwd"})["prompt"], os.path.dirname(PROTOCOL_ENV))
        self.assertEqual(self.client.call("tasks.grade", {"answer": ""})["score"], 1.0)

    def test_bye(self):
        self.assertEqual(self.client.call("bye"), {"goodbye": True})
        self.assertTrue(self.client.closed_by_peer())

    # -- errors ------------------------------------------------------------

    def test_unknown_method(self):
        error = self.client.error("tasks.explode")
        self.assertEqual(error["code"], -32601)
        self.assertIn("tasks.explode", error["message"])
        self.assertEqual(self.client.call("hello")["env"]["name"], "protocol")

    def test_malformed_frames(self):
        self.client.send_raw(b"{not json\n")
        frame = self.client.read_frame()
        self.assertEqual((frame["id"], frame["error"]["code"]), (None, -32700))
        self.client.send_raw(b"\xff\xfe\n")
        self.assertEqual(self.client.read_frame()["error"]["code"], -32700)
        self.client.send_raw(b"[1, 2]\n")
        self.assertEqual(self.client.read_frame()["error"]["code"], -32600)
        self.client.send_raw(b'{"jsonrpc": "2.0", "id": 7}\n')
        frame = self.client.read_frame()
        self.assertEqual((frame["id"], frame["error"]["code"]), (7, -32600))
        self.assertEqual(self.client.call("hello")["env"]["name"], "protocol")

    def test_notifications_get_no_reply(self):
        self.client.send({"jsonrpc": "2.0", "method": "tasks.list"})
        self.assertEqual(self.client.request("hello")["result"]["env"]["version"], "1.2.3")

    def test_bad_params_and_unknown_task(self):
        cases = [
            ({"id": "nope"}, "unknown task 'nope'"),
            ({"id": "typed", "args": {}}, "template 'typed'"),
            ({"id": "typed", "args": {"name": "x", "bogus": 1}}, "'bogus'"),
            ({"id": "typed", "args": [1]}, "must be an object"),
            ({"args": {}}, "needs params {id, args}"),
            ([1], "needs params {id, args}"),
        ]
        for params, fragment in cases:
            error = self.client.error("tasks.start", params)
            self.assertEqual(error["code"], -32602, params)
            self.assertIn(fragment, error["message"])
        self.client.call("tasks.start", {"id": "echo"})
        # As in the SDK: tasks.grade without an answer grades None.
        self.assertIn("score", self.client.call("tasks.grade", {"nothing": 1}))
        self.assertEqual(self.client.error("hello", [1])["code"], -32602)
        self.client.call("tasks.cancel")

    def test_grade_with_nothing_started(self):
        error = self.client.error("tasks.grade", {"answer": "x"})
        self.assertEqual((error["code"], error["message"]), (-32600, "no task in progress"))

    def test_start_while_a_task_is_in_progress(self):
        self.client.call("tasks.start", {"id": "echo"})
        # As in the SDK: a second start replaces the running task; one grade consumes it.
        self.assertIn("prompt", self.client.call("tasks.start", {"id": "echo"}))
        self.assertIn("score", self.client.call("tasks.grade", {"answer": "x"}))
        self.assertEqual(self.client.error("tasks.grade", {"answer": "x"})["code"], -32600)

    def test_template_raising_at_start(self):
        error = self.client.error("tasks.start", {"id": "raises_on_start"})
        self.assertEqual(error["code"], -32000)
        self.assertIn("boom at start", error["message"])
        self.assertIn("raises_on_start", error["message"])
        self.assertEqual(error["data"]["template"], "raises_on_start")
        self.assertIn("ValueError", error["data"]["traceback"])
        # Nothing is left in progress.
        self.assertEqual(self.client.error("tasks.grade", {"answer": 1})["code"], -32600)

    def test_template_raising_at_grade(self):
        self.client.call("tasks.start", {"id": "raises_on_grade"})
        error = self.client.error("tasks.grade", {"answer": 1})
        self.assertEqual(error["code"], -32000)
        self.assertIn("boom at grade", error["message"])
        self.assertIn("'raises_on_grade'", error["message"])
        self.assertEqual(self.client.error("tasks.grade", {"answer": 1})["code"], -32600)

    def test_invalid_result(self):
        self.client.call("tasks.start", {"id": "bad_result"})
        error = self.client.error("tasks.grade", {"answer": 1})
        self.assertEqual(error["code"], -32000)
        self.assertIn("template 'bad_result'", error["message"])
        self.assertIn("type str", error["message"])

    def test_template_calling_sys_exit_does_not_stop_the_server(self):
        error = self.client.error("tasks.start", {"id": "exits"})
        self.assertEqual(error["code"], -32000)
        self.assertIn("template 'exits'", error["message"])
        self.assertIn("SystemExit", error["message"])
        self.assertEqual(self.client.call("hello")["env"]["name"], "protocol")

    def test_template_without_prompt(self):
        error = self.client.error("tasks.start", {"id": "no_prompt"})
        self.assertEqual(error["code"], -32000)
        self.assertIn("template 'no_prompt'", error["message"])

    # -- frame sizes -------------------------------------------------------

    def test_ten_mebibyte_frame_is_accepted(self):
        self.client.call("tasks.start", {"id": "echo"})
        answer = "x" * (10 * 1024 * 1024)
        self.assertEqual(self.client.call("tasks.grade", {"answer": answer})["answer_len"], len(answer))

    def test_frame_over_64_mebibytes_closes_only_that_connection(self):
        huge = b'{"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"pad": "' + b"a" * (65 * 1024 * 1024)
        sender = threading.Thread(target=self._send_ignoring_reset, args=(huge + b'"}}\n',))
        sender.start()
        frame = self.client.read_frame()
        sender.join(30)
        self.assertEqual(frame["error"]["code"], -32600)
        self.assertIn("64 MiB", frame["error"]["message"])
        self.assertTrue(self.client.closed_by_peer())
        fresh = self.server.client()
        self.addCleanup(fresh.close)
        self.assertEqual(fresh.call("hello")["env"]["name"], "protocol")

    def _send_ignoring_reset(self, data):
        try:
            self.client.send_raw(data)
        except OSError:
            pass

    # -- tunnels -----------------------------------------------------------

    def test_tunnel_to_a_capability(self):
        # The first bytes ride in the same packet as the tunnel.open line.
        self.client.send_raw(
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tunnel.open", "params": {"capability": "echo"}}).encode()
            + b"\nearly bytes|"
        )
        ack = self.client.read_frame()
        self.assertEqual(ack["result"]["tunnel"], "echo")
        self.client.send_raw(b"\x00binary\xff\n{not json}")
        expected = b"early bytes|\x00binary\xff\n{not json}"
        received = self.client.buf
        while len(received) < len(expected):
            chunk = self.client.sock.recv(65536)
            self.assertTrue(chunk, "tunnel closed early")
            received += chunk
        self.assertEqual(received, expected)
        self.client.sock.shutdown(socket.SHUT_WR)
        self.assertTrue(self.client.closed_by_peer())

    def test_tunnel_errors(self):
        error = self.client.error("tunnel.open", {"capability": "nope"})
        self.assertEqual(error["code"], -32602)
        self.assertIn("dead, echo", error["message"])
        self.assertTrue(self.client.closed_by_peer())
        dead = self.server.client()
        self.addCleanup(dead.close)
        error = dead.error("tunnel.open", {"capability": "dead"})
        self.assertEqual(error["code"], -32000)
        self.assertIn("not reachable", error["message"])

    def test_tunnel_open_after_the_first_frame(self):
        self.client.call("hello")
        self.assertEqual(self.client.error("tunnel.open", {"capability": "echo"})["code"], -32600)


if __name__ == "__main__":
    unittest.main()


class HostileFramesTest(unittest.TestCase):
    """Frames a hostile or broken client sends get a JSON-RPC error, never a silent close."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(PROTOCOL_ENV)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.client = self.server.client()
        self.addCleanup(self.client.close)

    def tearDown(self):
        self.assertTrue(self.server.alive(), "server died:\n" + self.server.stderr())

    def error_for(self, raw):
        self.client.send_raw(raw + b"\n")
        frame = self.client.read_frame()
        self.assertIn("error", frame, frame)
        return frame

    def assert_still_serves(self):
        self.assertEqual(self.client.call("hello")["env"]["name"], "protocol")

    def test_deep_nesting_gets_an_error_and_the_connection_stays(self):
        for depth in (300, 100000):
            raw = b'{"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"x": ' + b"[" * depth + b"]" * depth + b"}}"
            frame = self.error_for(raw)
            self.assertEqual((frame["id"], frame["error"]["code"]), (None, -32700))
            self.assertIn("nests deeper", frame["error"]["message"])
        self.assert_still_serves()

    def test_non_finite_ids_and_numbers_are_parse_errors(self):
        for raw in (b'{"jsonrpc": "2.0", "id": NaN, "method": "hello"}',
                    b'{"jsonrpc": "2.0", "id": Infinity, "method": "hello"}',
                    b'{"jsonrpc": "2.0", "id": 1e400, "method": "hello"}',
                    b'{"jsonrpc": "2.0", "id": 2, "method": "hello", "params": {"x": -Infinity}}'):
            frame = self.error_for(raw)
            self.assertEqual((frame["id"], frame["error"]["code"]), (None, -32700), raw)
        self.assert_still_serves()

    def test_non_scalar_ids_are_invalid_requests_answered_with_a_null_id(self):
        for bad in (b"[1]", b'{"a": 1}', b"true"):
            frame = self.error_for(b'{"jsonrpc": "2.0", "id": ' + bad + b', "method": "hello"}')
            self.assertEqual((frame["id"], frame["error"]["code"]), (None, -32600), bad)
        self.assert_still_serves()

    def test_missing_or_wrong_jsonrpc_is_rejected(self):
        for raw in (b'{"id": 5, "method": "hello"}', b'{"jsonrpc": "1.0", "id": 5, "method": "hello"}'):
            frame = self.error_for(raw)
            self.assertEqual((frame["id"], frame["error"]["code"]), (5, -32600))
            self.assertIn("jsonrpc", frame["error"]["message"])
        self.assert_still_serves()

    def test_a_result_too_deep_to_encode_is_an_error_frame(self):
        self.client.call("tasks.start", {"id": "echo"})
        deep = []
        for _ in range(250):
            deep = [deep]
        reply = self.client.request("tasks.grade", {"answer": deep})
        self.assertTrue("result" in reply or "error" in reply)
        self.assert_still_serves()

    def test_unfinished_frames_across_connections_share_one_memory_cap(self):
        # Three clients each hold 50 MiB of an unfinished frame: under the per-frame limit,
        # over the 128 MiB the server holds for all connections together.
        clients = [self.server.client() for _ in range(3)]
        for c in clients:
            self.addCleanup(c.close)
        chunk = b"a" * (1024 * 1024)
        errors = []

        def flood(c):
            try:
                c.send_raw(b'{"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"pad": "')
                for _ in range(50):
                    c.send_raw(chunk)
            except OSError:
                pass

        threads = [threading.Thread(target=flood, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for c in clients:
            c.sock.shutdown(socket.SHUT_WR)
        for c in clients:
            try:
                frame = c.read_frame()
            except (OSError, ValueError, AssertionError):
                continue
            if "error" in frame:
                errors.append(frame["error"])
        self.assertTrue(any("server busy" in e["message"] for e in errors), errors)
        self.assert_still_serves()
