"""The allowlist proxy's policy, and its refusals over real sockets on 127.0.0.1 (docs/harbor.md, "Allowlists")."""
import asyncio
import json
import socket
import threading
import unittest

from hud_studio import egress


class PolicyTest(unittest.TestCase):
    def test_exact_names_match_only_themselves(self):
        self.assertTrue(egress.permitted("pypi.org", ["pypi.org"]))
        self.assertTrue(egress.permitted("PyPI.org.", ["pypi.org"]))
        self.assertFalse(egress.permitted("files.pypi.org", ["pypi.org"]))
        self.assertFalse(egress.permitted("evilpypi.org", ["pypi.org"]))
        self.assertFalse(egress.permitted("", ["pypi.org"]))

    def test_a_wildcard_matches_names_below_it_but_not_its_apex(self):
        allowed = ["*.example.com"]
        self.assertTrue(egress.permitted("api.example.com", allowed))
        self.assertTrue(egress.permitted("a.b.example.com", allowed))
        self.assertFalse(egress.permitted("example.com", allowed))
        self.assertFalse(egress.permitted("badexample.com", allowed))

    def test_addresses_of_the_host_and_private_networks_are_blocked(self):
        for address in ("127.0.0.1", "10.1.2.3", "172.17.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
                        "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"):
            self.assertTrue(egress.blocked_address(address), address)
        for address in ("203.0.113.80", "93.184.216.34", "2606:2800:220:1::"):
            self.assertFalse(egress.blocked_address(address), address)
        self.assertTrue(egress.blocked_address("93.184.216.34", frozenset({"93.184.216.34"})))

    def test_authorities(self):
        self.assertEqual(egress.split_authority("pypi.org:443"), ("pypi.org", 443))
        self.assertEqual(egress.split_authority("[::1]:8443"), ("::1", 8443))
        for bad in ("pypi.org", "pypi.org:", ":443", "pypi.org:99999", "[::1]443", "pypi.org:x"):
            with self.assertRaises(ValueError, msg=bad):
                egress.split_authority(bad)


class RefusalTest(unittest.TestCase):
    """A real proxy on a free port; every case here is refused before any connection leaves the machine."""

    @classmethod
    def setUpClass(cls):
        cls.loop = asyncio.new_event_loop()
        cls.lines = []
        proxy = egress.Proxy(["localhost", "*.invalid"], [])
        proxy.say = lambda **fields: cls.lines.append(fields)
        ready = threading.Event()

        async def start():
            cls.server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0, limit=egress.HEAD_LIMIT)
            cls.port = cls.server.sockets[0].getsockname()[1]
            ready.set()

        cls.thread = threading.Thread(target=lambda: (cls.loop.run_until_complete(start()), cls.loop.run_forever()),
                                      daemon=True)
        cls.thread.start()
        ready.wait(10)

    @classmethod
    def tearDownClass(cls):
        cls.loop.call_soon_threadsafe(cls.server.close)
        cls.loop.call_soon_threadsafe(cls.loop.stop)
        cls.thread.join(10)
        cls.loop.close()

    def ask(self, head):
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as s:
            s.sendall(head.encode("latin-1"))
            reply = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return reply.decode("latin-1")
                reply += chunk

    def test_a_host_outside_the_list_gets_403_naming_it(self):
        reply = self.ask("CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n")
        self.assertTrue(reply.startswith("HTTP/1.1 403 "), reply)
        self.assertIn("github.com is not in the task's allowed_hosts", reply)
        reply = self.ask("GET http://github.com/ HTTP/1.1\r\nHost: github.com\r\n\r\n")
        self.assertTrue(reply.startswith("HTTP/1.1 403 "), reply)
        self.assertIn({"event": "refused", "status": 403, "detail": "github.com is not in the task's allowed_hosts"},
                      self.lines)

    def test_an_allowed_name_that_leads_to_this_machine_is_refused(self):
        reply = self.ask("CONNECT localhost:22 HTTP/1.1\r\n\r\n")
        self.assertTrue(reply.startswith("HTTP/1.1 403 "), reply)
        self.assertIn("an address of this machine or a private network", reply)

    def test_malformed_requests_get_400(self):
        self.assertIn("400 Bad Request", self.ask("CONNECT localhost HTTP/1.1\r\n\r\n"))
        self.assertIn("send https through CONNECT", self.ask("GET https://localhost/ HTTP/1.1\r\n\r\n"))
        self.assertIn("send https through CONNECT", self.ask("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        self.assertIn("400 Bad Request", self.ask("hello\r\n\r\n"))

    def test_a_name_that_does_not_resolve_is_a_502(self):
        reply = self.ask("CONNECT nothing.invalid:443 HTTP/1.1\r\n\r\n")
        self.assertTrue(reply.startswith("HTTP/1.1 502 "), reply)
        self.assertIn("does not resolve", reply)

    def test_the_source_runs_as_a_script(self):
        # The engine runs the module's text with `python3 -c`; its entry point must read argv's JSON.
        import subprocess
        import sys
        with open(egress.__file__, encoding="utf-8") as f:
            source = f.read()
        proc = subprocess.Popen([sys.executable, "-c", source, json.dumps({"host": "127.0.0.1", "port": 0})],
                                stdout=subprocess.PIPE)
        try:
            self.assertEqual(json.loads(proc.stdout.readline())["event"], "ready")
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


if __name__ == "__main__":
    unittest.main()
