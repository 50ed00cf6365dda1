"""The runtime and environment copied through the pre-started interpreter's stdin (hud_studio/unpack.py)."""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import uuid

from .support import RUNTIME, RpcClient, fixture, runtime_env

with open(os.path.join(RUNTIME, "hud_studio", "unpack.py")) as _f:
    UNPACK_SOURCE = _f.read()
PRESTART = "from hud_studio.prestart import main; main()"
ENVELOPE = "HUD_STUDIO_REPLY"


def archive_of(folders):
    """A tar of {host folder: name below /}, as the engine packs it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for host, below in folders.items():
            tar.add(host, arcname=below, filter=lambda info: None if "__pycache__" in info.name else info)
    return buf.getvalue()


def framed(data, chunk=1000):
    """unpack.py's framing: length line + bytes per chunk, a zero length at the end."""
    out = b""
    for i in range(0, len(data), chunk):
        part = data[i:i + chunk]
        out += str(len(part)).encode() + b"\n" + part
    return out + b"0\n"


class UnpackedInterpreter:
    """`python3 -c <unpack.py>` whose runtime folder does not exist until the archive arrives."""

    def __init__(self, runtime_dir, cwd, args=()):
        env = runtime_env({"PYTHONPATH": runtime_dir})
        self.proc = subprocess.Popen([sys.executable, "-c", UNPACK_SOURCE, *args], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def reply(self, nonce):
        line = self.proc.stdout.readline().decode()
        prefix = "{} {} ".format(ENVELOPE, nonce)
        assert line.startswith(prefix), "expected a framed reply, got {!r}; stderr {!r}".format(line, self.stderr())
        return json.loads(line[len(prefix):])

    def stderr(self):
        return self.proc.stderr.read().decode() if self.proc.poll() is not None else "(running)"

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=15)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


class UnpackTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.mkdtemp(prefix="hs-unpack-")
        self.addCleanup(shutil.rmtree, tmp, True)
        self.root = tmp
        # Names below `/`, as the engine writes them (opt/hud-studio/runtime, opt/hud-studio/env).
        self.runtime_dir = os.path.join(tmp, "runtime")
        self.env_dir = os.path.join(tmp, "env")
        os.mkdir(self.env_dir)

    def start(self, args=()):
        interp = UnpackedInterpreter(self.runtime_dir, self.env_dir, args)
        self.addCleanup(interp.close)
        return interp

    def archive(self):
        return archive_of({RUNTIME: self.runtime_dir.lstrip("/"), fixture("discovery"): self.env_dir.lstrip("/")})

    def test_unpacks_then_serves_discovery_from_the_files_it_wrote(self):
        interp = self.start()
        nonce = uuid.uuid4().hex
        # Small chunks: a tar header and file bodies split across many frames.
        interp.send(json.dumps({"copy": nonce}).encode() + b"\n" + framed(self.archive(), chunk=700))
        self.assertEqual(interp.reply(nonce), {"copied": True})
        self.assertTrue(os.path.isfile(os.path.join(self.runtime_dir, "hud", "__init__.py")))
        with open(os.path.join(self.env_dir, "env.py")) as copied, open(fixture("discovery", "env.py")) as original:
            self.assertEqual(copied.read(), original.read())
        # The request after the archive arrives intact, and the runtime (absent at start) imports.
        discover = uuid.uuid4().hex
        request = {"discover": [os.path.join(self.env_dir, "env.py"), "--json"], "nonce": discover, "cwd": self.env_dir, "env": {}}
        interp.send(json.dumps(request).encode() + b"\n")
        result = interp.reply(discover)
        self.assertEqual(result["exit"], 0, result["stderr"])
        self.assertTrue(json.loads(result["stdout"])["environments"])
        interp.proc.stdin.close()
        self.assertEqual(interp.proc.wait(timeout=15), 0)

    def test_an_archive_cut_short_is_an_error_and_the_interpreter_exits(self):
        interp = self.start()
        nonce = uuid.uuid4().hex
        data = framed(self.archive())
        interp.send(json.dumps({"copy": nonce}).encode() + b"\n" + data[: len(data) // 2])
        interp.proc.stdin.close()
        reply = interp.reply(nonce)
        self.assertIn("error", reply)
        self.assertIn("ended", reply["error"])
        self.assertEqual(interp.proc.wait(timeout=15), 1)

    def test_an_unwritable_destination_is_an_error_that_names_the_path(self):
        if os.geteuid() == 0:
            blocked = os.path.join(self.root, "file-not-folder")
            open(blocked, "w").close()
            self.runtime_dir = os.path.join(blocked, "runtime")
        else:
            self.runtime_dir = "/proc/hud-studio-runtime"
        interp = self.start()
        nonce = uuid.uuid4().hex
        interp.send(json.dumps({"copy": nonce}).encode() + b"\n" + framed(self.archive()))
        reply = interp.reply(nonce)
        self.assertIn("error", reply)
        self.assertIn("runtime", reply["error"])
        self.assertEqual(interp.proc.wait(timeout=15), 1)


class MountedRuntimeTest(unittest.TestCase):
    """`--mounted-runtime DIR ID`: the runtime is already there (a read-only mount); only the environment arrives."""

    def setUp(self):
        tmp = tempfile.mkdtemp(prefix="hs-unpack-mounted-")
        self.addCleanup(shutil.rmtree, tmp, True)
        # The compiled runtime's folder as the engine makes it: the sources and the content id.
        self.runtime_dir = os.path.join(tmp, "runtime")
        shutil.copytree(RUNTIME, self.runtime_dir, ignore=shutil.ignore_patterns("__pycache__"))
        with open(os.path.join(self.runtime_dir, ".content-id"), "w") as f:
            f.write("abc123\n")
        self.env_dir = os.path.join(tmp, "env")
        os.mkdir(self.env_dir)

    def run_copy(self, content_id):
        interp = UnpackedInterpreter(self.runtime_dir, self.env_dir, ["--mounted-runtime", self.runtime_dir, content_id])
        self.addCleanup(interp.close)
        nonce = uuid.uuid4().hex
        archive = archive_of({fixture("discovery"): self.env_dir.lstrip("/")})
        interp.send(json.dumps({"copy": nonce}).encode() + b"\n" + framed(archive))
        return interp, interp.reply(nonce)

    def test_the_engines_runtime_there_the_environment_arrives_and_discovery_runs(self):
        interp, reply = self.run_copy("abc123")
        self.assertEqual(reply, {"copied": True})
        discover = uuid.uuid4().hex
        request = {"discover": [os.path.join(self.env_dir, "env.py"), "--json"], "nonce": discover, "cwd": self.env_dir, "env": {}}
        interp.send(json.dumps(request).encode() + b"\n")
        result = interp.reply(discover)
        self.assertEqual(result["exit"], 0, result["stderr"])

    def test_another_runtime_there_is_a_mismatch_and_nothing_is_unpacked(self):
        interp, reply = self.run_copy("not-this-one")
        self.assertTrue(reply.get("error", "").startswith("RuntimeMountMismatch: "), reply)
        self.assertIn("abc123", reply["error"])
        self.assertEqual(os.listdir(self.env_dir), [])
        self.assertEqual(interp.proc.wait(timeout=15), 1)

    def test_an_empty_folder_there_is_a_mismatch(self):
        # What a daemon that cannot see the path mounts, at best.
        shutil.rmtree(self.runtime_dir)
        os.mkdir(self.runtime_dir)
        interp, reply = self.run_copy("abc123")
        self.assertTrue(reply.get("error", "").startswith("RuntimeMountMismatch: "), reply)
        self.assertIn("cannot be read", reply["error"])
        self.assertEqual(interp.proc.wait(timeout=15), 1)


class EndOfInputStopsTheServerTest(unittest.TestCase):
    """Once serving, the end of the pre-started interpreter's stdin is a SIGTERM: same teardown."""

    def test_end_of_input_runs_the_teardown_and_exits_0(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker = os.path.join(tmp, "live")
            shutdown = os.path.join(tmp, "shutdown")
            proc = subprocess.Popen([sys.executable, "-c", PRESTART], env=runtime_env(), cwd=tmp,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                request = {"argv": [fixture("protocol", "env.py")], "env": {"SHUTDOWN_MARKER": shutdown}}
                proc.stdin.write(json.dumps(request).encode() + b"\n")
                proc.stdin.flush()
                line = proc.stdout.readline().decode()
                self.assertTrue(line.startswith("HUD_SERVE_PORT="), line)
                client = RpcClient(int(line.split("=", 1)[1]))
                client.call("tasks.start", {"id": "teardown", "args": {"marker": marker}})
                proc.stdin.close()
                self.assertEqual(proc.wait(timeout=20), 0)
                client.close()
                with open(marker) as f:
                    self.assertEqual(f.read(), "closed\n")
                with open(shutdown) as f:
                    self.assertEqual(f.read(), "shutdown\n")
                self.assertIn("[hud-server] stopping", proc.stderr.read().decode())
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stdout.close()
                proc.stderr.close()


if __name__ == "__main__":
    unittest.main()
