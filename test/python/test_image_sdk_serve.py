"""The image SDK's control server gets the peer check; servers of the environment's own code do not."""
import asyncio
import unittest
from unittest import mock

from hud_studio import image_sdk_serve, peers


async def _served_by(module_name):
    """Starts a server from code whose module is `module_name`; returns what a client saw and whether the callback ran."""
    ran = []

    async def callback(reader, writer):
        ran.append(True)
        writer.write(b"hello\n")
        await writer.drain()
        writer.close()

    scope = {"__name__": module_name, "asyncio": asyncio, "callback": callback}
    exec("async def start():\n    return await asyncio.start_server(callback, '127.0.0.1', 0)", scope)
    server = await scope["start"]()
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    seen = await asyncio.wait_for(reader.read(), timeout=5)
    writer.close()
    server.close()
    await server.wait_closed()
    return seen, bool(ran)


class ImageSdkServeTest(unittest.TestCase):
    def setUp(self):
        original = asyncio.start_server
        self.addCleanup(setattr, asyncio, "start_server", original)
        image_sdk_serve.install()

    def test_the_server_modules_control_server_closes_a_refused_peer_before_reading(self):
        # Another user's connection, as /proc/net/tcp would say (the Docker tests use a real other user).
        with mock.patch.object(peers, "admitted", return_value=False):
            seen, ran = asyncio.run(_served_by(image_sdk_serve.SERVER_MODULE))
        self.assertEqual((seen, ran), (b"", False))

    def test_the_server_modules_control_server_serves_its_own_user(self):
        seen, ran = asyncio.run(_served_by(image_sdk_serve.SERVER_MODULE))
        self.assertEqual((seen, ran), (b"hello\n", True))

    def test_servers_of_the_environments_own_code_are_left_alone(self):
        with mock.patch.object(peers, "admitted", return_value=False):
            seen, ran = asyncio.run(_served_by("env"))
        self.assertEqual((seen, ran), (b"hello\n", True))


if __name__ == "__main__":
    unittest.main()
