import asyncio
import os
import tempfile
import time
import unittest
from unittest import mock

from hud.graders import BashGrader, SubScore


def run(coro):
    return asyncio.run(coro)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); read its state.
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class BashGraderTest(unittest.TestCase):
    # BashGrader runs `bash -lc`, a login shell: it reads the profile in HOME. The machine's own profile (a
    # version manager's rehash, say) could write to stderr or take seconds, so every test gets an empty HOME
    # and a minimal environment instead of whatever the machine has.
    def setUp(self):
        home = tempfile.TemporaryDirectory()
        self.addCleanup(home.cleanup)
        self.home = home.name
        clean = {"HOME": self.home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
        patcher = mock.patch.dict(os.environ, clean, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_runs_a_login_shell_with_the_profile_in_home(self):
        with open(os.path.join(self.home, ".bash_profile"), "w") as f:
            f.write("export FROM_PROFILE=yes\n")
        s = run(BashGrader.grade(1.0, command='[ "$FROM_PROFILE" = yes ] && [ "$HOME" = {} ]'.format(self.home)))
        self.assertEqual(s.value, 1.0, s.metadata)

    def test_exit_zero_scores_one_and_captures_output(self):
        s = run(BashGrader.grade(0.5, command="echo out; echo err >&2"))
        self.assertIsInstance(s, SubScore)
        # The SDK's name and info: exit code, output, and the call's parameters.
        self.assertEqual((s.name, s.value, s.weight), ("BashGrader", 1.0, 0.5))
        self.assertEqual(s.info, {"exit_code": 0, "stdout": "out\n", "stderr": "err\n",
                                  "_parameters": {"command": "echo out; echo err >&2"}})

    def test_nonzero_exit_scores_zero(self):
        s = run(BashGrader.grade(weight=1.0, command="echo failing; exit 3", name="tests"))
        self.assertEqual((s.name, s.value), ("tests", 0.0))
        self.assertEqual(s.metadata["exit_code"], 3)
        self.assertEqual(s.metadata["stdout"], "failing\n")

    def test_runs_bash_in_cwd(self):
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "marker"), "w").close()
            s = run(BashGrader.grade(1.0, command="test -f marker && [[ -n $BASH_VERSION ]]", cwd=d))
            self.assertEqual(s.value, 1.0, s.metadata)

    def test_timeout_kills_the_process_group_and_keeps_partial_output(self):
        with tempfile.TemporaryDirectory() as d:
            pidfile = os.path.join(d, "child.pid")
            s = run(
                BashGrader.grade(
                    1.0,
                    command="echo before; (sleep 60 & echo $! > {}; wait) ; echo never".format(pidfile),
                    timeout_seconds=4,
                )
            )
            self.assertEqual(s.value, 0.0)
            self.assertTrue(s.metadata["timed_out"])
            self.assertEqual(s.metadata["stdout"], "before\n")
            with open(pidfile) as f:
                grandchild = int(f.read())
            deadline = time.monotonic() + 5
            while alive(grandchild) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(alive(grandchild), "background sleep in the grader's group survived the timeout")

    def test_missing_command_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "command"):
            run(BashGrader.grade(1.0))

    def test_invalid_utf8_output_does_not_crash(self):
        s = run(BashGrader.grade(1.0, command="printf '\\xff\\xfeok'"))
        self.assertEqual(s.value, 1.0)
        self.assertTrue(s.metadata["stdout"].endswith("ok"))


if __name__ == "__main__":
    unittest.main()
