"""Server lifecycle over real TCP: parking and resuming, shutdown, loading, the verifier fixtures."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

from .support import ROOT, ServerProcess, fixture, runtime_env

PROTOCOL_ENV = fixture("protocol", "env.py")


class ServerCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def serve(self, path=PROTOCOL_ENV, env_name=None, extra_env=None):
        server = ServerProcess(path, env_name, extra_env)
        self.addCleanup(server.stop)
        return server

    def client(self, server):
        c = server.client()
        self.addCleanup(c.close)
        return c

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def read(self, name):
        with open(self.path(name)) as f:
            return f.read()


class ParkingTest(ServerCase):
    def test_dropped_connection_resumes_with_hello_session_id(self):
        server = self.serve()
        first = self.client(server)
        session = first.call("hello")["session_id"]
        self.assertEqual(first.call("tasks.start", {"id": "teardown", "args": {"marker": self.path("m")}})["prompt"], "waiting")
        first.close()
        second = self.client(server)
        resumed = second.call("hello", {"session_id": session})
        self.assertEqual((resumed["session_id"], resumed["resumed"]), (session, True))
        self.assertEqual(resumed["task"], {"id": "teardown", "args": {"marker": self.path("m")}})
        self.assertFalse(os.path.exists(self.path("m")), "a parked task must not be torn down")
        self.assertEqual(second.call("tasks.grade", {"answer": "x"})["score"], 1.0)
        self.assertEqual(self.read("m"), "closed\n")
        self.assertEqual(second.error("tasks.grade", {"answer": "x"})["message"], "no task in progress")

    def test_lone_grade_adopts_the_only_parked_task(self):
        server = self.serve()
        first = self.client(server)
        first.call("tasks.start", {"id": "echo", "args": {"text": "abc"}})
        first.close()
        second = self.client(server)
        self.assertEqual(second.call("tasks.grade", {"answer": "abc"}), {"score": 1.0, "answer_len": 3})
        # Nothing parked any more.
        third = self.client(server)
        self.assertEqual(third.error("tasks.grade", {"answer": "abc"})["message"], "no task in progress")

    def test_two_parked_tasks_need_hello(self):
        server = self.serve()
        sessions = []
        for text in ("one", "two"):
            c = self.client(server)
            sessions.append(c.call("hello")["session_id"])
            c.call("tasks.start", {"id": "echo", "args": {"text": text}})
            c.close()
        lone = self.client(server)
        error = lone.error("tasks.grade", {"answer": "two"})
        self.assertEqual(error["code"], -32600)
        self.assertIn("2 parked sessions", error["message"])
        self.assertEqual(lone.error("hello", {"session_id": "f" * 32})["code"], -32600)
        lone.call("hello", {"session_id": sessions[1]})
        self.assertEqual(lone.call("tasks.grade", {"answer": "two"})["score"], 1.0)
        # Now exactly one is parked: a lone grade adopts it.
        other = self.client(server)
        self.assertEqual(other.call("tasks.grade", {"answer": "one"})["score"], 1.0)
        self.assertTrue(server.alive())

    def test_hello_refuses_a_session_another_live_connection_holds(self):
        server = self.serve()
        old = self.client(server)
        session = old.call("hello")["session_id"]
        old.call("tasks.start", {"id": "echo", "args": {"text": "t"}})
        new = self.client(server)
        # As in the SDK: a live session is not taken over.
        error = new.error("hello", {"session_id": session})
        self.assertEqual(error["code"], -32600)
        self.assertIn("has a live connection", error["message"])
        self.assertEqual(old.call("tasks.grade", {"answer": "t"})["score"], 1.0)

    def test_bye_does_not_park(self):
        server = self.serve()
        c = self.client(server)
        c.call("tasks.start", {"id": "teardown", "args": {"marker": self.path("m")}})
        c.call("bye")
        self.assertEqual(self.read("m"), "closed\n")
        self.assertEqual(self.client(server).error("tasks.grade", {"answer": 1})["message"], "no task in progress")


class ShutdownTest(ServerCase):
    def test_sigterm_closes_live_and_parked_tasks_and_runs_shutdown_hooks(self):
        server = self.serve(extra_env={"SHUTDOWN_MARKER": self.path("shutdown")})
        live = self.client(server)
        live.call("tasks.start", {"id": "teardown", "args": {"marker": self.path("live")}})
        parked = self.client(server)
        parked.call("tasks.start", {"id": "teardown", "args": {"marker": self.path("parked")}})
        parked.close()
        self.assertEqual(server.terminate(), 0, server.stderr())
        self.assertEqual(self.read("live"), "closed\n")
        self.assertEqual(self.read("parked"), "closed\n")
        self.assertEqual(self.read("shutdown"), "shutdown\n")
        self.assertTrue(live.closed_by_peer())
        stderr = server.stderr()
        self.assertIn("[hud-server] stopping", stderr)
        for line in stderr.splitlines():
            self.assertTrue(line.startswith("[hud-server]"), line)

    def test_sigint_also_exits_cleanly(self):
        server = self.serve()
        server.proc.send_signal(signal.SIGINT)
        self.assertEqual(server.proc.wait(20), 0, server.stderr())


class LoadingTest(ServerCase):
    def run_server(self, *args):
        return subprocess.run(
            [sys.executable, "-m", "hud.environment.server"] + list(args),
            cwd=ROOT, env=runtime_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30,
        )

    def test_several_environments_need_env(self):
        proc = self.run_server(fixture("verifier_two_env", "env.py"))
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stdout, b"")
        self.assertIn("several environments (workspace, judge); choose one with --env NAME", proc.stderr.decode())

    def test_unknown_env_name(self):
        proc = self.run_server(fixture("verifier_two_env", "env.py"), "--env", "nope")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no environment named 'nope' (defined: workspace, judge)", proc.stderr.decode())

    def test_import_error_is_reported_with_traceback(self):
        proc = self.run_server(fixture("broken", "raises_env.py"))
        self.assertEqual(proc.returncode, 1)
        stderr = proc.stderr.decode()
        self.assertIn("configuration missing", stderr)
        self.assertIn("raises_env.py", stderr)

    def test_failing_initialize_hook_stops_before_serving(self):
        proc = self.run_server(fixture("broken", "init_fails_env.py"))
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, b"")
        stderr = proc.stderr.decode()
        self.assertIn("initialize hook 'start_database' of environment 'broken' failed", stderr)
        self.assertIn("database did not start", stderr)

    def test_env_picks_one(self):
        server = self.serve(fixture("verifier_two_env", "env.py"), "judge")
        hello = self.client(server).call("hello")
        self.assertEqual(hello["env"]["name"], "judge")
        self.assertEqual(hello["bindings"], [])


class VerifierFixturesTest(ServerCase):
    def copy(self, folder, name):
        dest = self.path(name)
        shutil.copytree(fixture(folder), dest)
        return os.path.join(dest, "env.py")

    def test_two_environments_on_separate_folders(self):
        actor_server = self.serve(self.copy("verifier_two_env", "actor"), "workspace")
        actor = self.client(actor_server)
        self.assertEqual(actor.call("tasks.start", {"id": "solve", "args": {}})["prompt"], "Write the secret to the target system.")
        result = actor.call("tasks.grade", {"answer": "secret"})
        self.assertEqual(result, {"score": 0.0, "answer": "secret"})
        self.assertTrue(os.path.exists(self.path("actor/actor-was-here.txt")))

        judge_server = self.serve(self.copy("verifier_two_env", "judge"), "judge")
        judge = self.client(judge_server)
        self.assertEqual(judge.call("tasks.start", {"id": "verify", "args": {"expected": "secret"}}), {"prompt": ""})
        grade = judge.call("tasks.grade", {"answer": result})
        self.assertEqual(grade["score"], 1.0)
        self.assertEqual(grade["info"], {"saw_actor_file": False})

    def test_same_environment_on_one_channel(self):
        server = self.serve(self.copy("verifier_same_env", "same"))
        c = self.client(server)
        c.call("tasks.start", {"id": "solve"})
        result = c.call("tasks.grade", {"answer": "wrong"})
        c.call("tasks.start", {"id": "verify", "args": {"expected": "secret"}})
        grade = c.call("tasks.grade", {"answer": result})
        self.assertEqual(grade["score"], 0.0)
        self.assertEqual(grade["info"], {"saw_actor_file": True})


if __name__ == "__main__":
    unittest.main()


class PortAnnouncementTest(unittest.TestCase):
    def test_port_stdout_only_keeps_the_environments_prints_off_stdout(self):
        proc = subprocess.Popen(
            [sys.executable, "-m", "hud.environment.server", fixture("port_spoof", "env.py"), "--port-stdout-only"],
            cwd=ROOT, env=runtime_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            first = proc.stdout.readline().decode()
            self.assertRegex(first, r"^HUD_SERVE_PORT=\d{2,5}\n$")
            self.assertNotIn(first.strip(), ("HUD_SERVE_PORT=1", "HUD_SERVE_PORT=2", "HUD_SERVE_PORT=3"))
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        self.assertEqual(out, b"", "nothing but the port line reaches stdout")
        for n in (1, 2, 3):
            self.assertIn("HUD_SERVE_PORT={}".format(n), err.decode())
