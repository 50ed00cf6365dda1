"""The pre-started server interpreter answering discovery from forked children, as the Docker provider drives it."""
import json
import os
import subprocess
import sys
import unittest
import uuid

from .support import ROOT, fixture, run_python, runtime_env

PRESTART = "from hud_studio.prestart import main; main()"
ENVELOPE = "HUD_STUDIO_REPLY"


def plain_discovery(path):
    proc = run_python(["-m", "hud_studio.discover", path, "--json"])
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


class PrestartedInterpreter:
    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PRESTART], cwd=ROOT, env=runtime_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )

    def discover(self, *args):
        nonce = uuid.uuid4().hex
        request = {"discover": list(args) + ["--json"], "nonce": nonce, "cwd": ROOT, "env": {}}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().decode()
        prefix = "{} {} ".format(ENVELOPE, nonce)
        assert line.startswith(prefix), "expected a framed reply, got {!r}".format(line)
        return json.loads(line[len(prefix):])

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=15)
        self.proc.stdout.close()
        self.proc.stderr.close()


class PrestartDiscoveryTest(unittest.TestCase):
    def setUp(self):
        self.interp = PrestartedInterpreter()
        self.addCleanup(self.interp.close)

    def test_same_output_and_exit_as_the_plain_command(self):
        path = fixture("discovery", "env.py")
        code, stdout, _ = plain_discovery(path)
        reply = self.interp.discover(path)
        self.assertEqual(reply["exit"], code)
        self.assertEqual(code, 0)
        self.assertIsNone(reply["signal"])
        self.assertEqual(json.loads(reply["stdout"]), json.loads(stdout))

    def test_user_error_exits_1_with_the_users_file_and_line(self):
        path = fixture("broken", "raises_env.py")
        code, stdout, _ = plain_discovery(path)
        reply = self.interp.discover(path)
        self.assertEqual((reply["exit"], code), (1, 1))
        report = json.loads(reply["stdout"])
        self.assertEqual(report, json.loads(stdout))
        self.assertEqual(report["error"]["file"], path)
        self.assertIsInstance(report["error"]["line"], int)

    def test_user_module_stays_out_of_the_parent_and_it_serves_afterwards(self):
        first = self.interp.discover(fixture("discovery", "env.py"))
        second = self.interp.discover(fixture("broken", "syntax_env.py"))
        self.assertEqual((first["exit"], second["exit"]), (0, 1))
        # Same parent, fresh child: the earlier module's environments do not leak into the later report.
        again = self.interp.discover(fixture("discovery", "env.py"))
        self.assertEqual(json.loads(again["stdout"]), json.loads(first["stdout"]))
        # End of input after discovery: exits quietly, nothing else on stdout.
        self.interp.proc.stdin.close()
        self.assertEqual(self.interp.proc.wait(timeout=15), 0)
        self.assertEqual(self.interp.proc.stdout.read(), b"")

    def test_bad_arguments_exit_2_like_argparse(self):
        reply = self.interp.discover("--no-such-flag")
        self.assertEqual(reply["exit"], 2)
        self.assertIn("usage:", reply["stderr"])

    def test_without_fork_the_engine_is_told_to_use_the_plain_command(self):
        script = (
            "import os, sys\n"
            "del os.fork\n"
            "from hud_studio.prestart import run_discovery\n"
            "import json\n"
            "sys.stdout.write(json.dumps(run_discovery(['x'], None, {})))\n"
        )
        proc = run_python(["-c", script])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout.decode()), {"unavailable": True})


if __name__ == "__main__":
    unittest.main()
