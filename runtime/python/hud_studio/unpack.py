"""hud-studio unpack: the runtime and the environment arrive on stdin, then the pre-started server runs.

The Docker provider runs this file's source as `python3 -c SOURCE` in a fresh
container: nothing of the runtime is there yet, so it uses the standard
library only. Copying through this interpreter's stdin replaces a
`putArchive` call, which costs the daemon a helper process of its own, and
overlaps the copy with the interpreter's start.

On stdin: one JSON line {"copy": NONCE}, then a tar archive in chunks, each
chunk a line with its length in decimal followed by that many bytes, ended by
a chunk of length 0. The archive is unpacked at `/` (ownership and modes as in
the archive, as `putArchive` does). The answer is one line on stdout,

    HUD_STUDIO_REPLY NONCE {"copied": true}   or   HUD_STUDIO_REPLY NONCE {"error": "..."}

after which the interpreter goes on as `hud_studio.prestart` (reading the
rest of stdin), or, after an error, exits with status 1.

Where the engine mounts the runtime read-only instead of copying it
(docs/substrate-copy.md), it passes `--mounted-runtime DIR ID`: the archive
then holds the environment alone, and before anything else the interpreter
checks that DIR holds the engine's runtime (its `.content-id` file reads
ID). When it does not (the daemon mounted a folder of another file system,
or an empty one), the reply is an error of type RuntimeMountMismatch and the
engine copies the runtime instead.
"""
import io
import json
import os
import sys
import tarfile

ENVELOPE = "HUD_STUDIO_REPLY"


class ChunkedReader(io.RawIOBase):
    """The archive's bytes out of the length-prefixed chunks; reads nothing past the final chunk."""

    def __init__(self, source):
        self.source = source
        self.left = 0
        self.ended = False

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.ended:
            return 0
        if self.left == 0:
            header = self.source.readline()
            if not header.endswith(b"\n"):
                raise EOFError("the archive ended before its final chunk")
            self.left = int(header)
            if self.left == 0:
                self.ended = True
                return 0
        data = self.source.read(min(len(buffer), self.left))
        if not data:
            raise EOFError("the archive ended in the middle of a chunk")
        buffer[: len(data)] = data
        self.left -= len(data)
        return len(data)

    def drain(self):
        while self.read(65536):
            pass


def receive(source, dest="/"):
    """Unpacks one framed archive (the chunks after the request line) from `source`, a binary stream, at `dest`."""
    reader = ChunkedReader(source)
    try:
        # Stream mode: the archive is never held whole in memory.
        with tarfile.open(fileobj=reader, mode="r|", bufsize=1 << 20) as archive:
            # Our own archive, unpacked as the daemon would; the filter argument exists from 3.12 on.
            trusted = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
            archive.extractall(dest, **trusted)
    finally:
        # tarfile stops at the end-of-archive blocks; the rest of the frame must not reach the next reader.
        reader.drain()


class RuntimeMountMismatch(Exception):
    """The folder mounted as the runtime is not the one the engine meant (the engine then copies it)."""


CONTENT_ID_FILE = ".content-id"


def check_mounted_runtime(args):
    """With `--mounted-runtime DIR ID` in `args`: raises RuntimeMountMismatch unless DIR holds the runtime ID."""
    if len(args) < 3 or args[0] != "--mounted-runtime":
        return
    path = os.path.join(args[1], CONTENT_ID_FILE)
    try:
        with open(path, encoding="ascii") as f:
            found = f.read().strip()
    except (OSError, ValueError) as err:
        raise RuntimeMountMismatch("{} cannot be read: {}".format(path, err)) from None
    if found != args[2]:
        raise RuntimeMountMismatch("{} names runtime {!r}, not {!r}".format(path, found[:64], args[2]))


def reply(nonce, body):
    sys.stdout.write("{} {} {}\n".format(ENVELOPE, nonce, json.dumps(body, ensure_ascii=True)))
    sys.stdout.flush()


def main():
    source = sys.stdin.buffer
    nonce = None
    try:
        nonce = json.loads(source.readline().decode("utf-8"))["copy"]
        check_mounted_runtime(sys.argv[1:])
        receive(source)
    except Exception as err:  # every failure is answered: the engine then copies by putArchive
        # Without a nonce (no request line at all) the engine sees the exit instead.
        if nonce is not None:
            reply(nonce, {"error": "{}: {}".format(type(err).__name__, err)})
        sys.stderr.write("hud-studio: copying the runtime in failed: {}: {}\n".format(type(err).__name__, err))
        sys.exit(1)
    reply(nonce, {"copied": True})
    # The runtime's folder did not exist when the interpreter started: drop what the import system
    # remembered of it so that the imports below find the files just written.
    import importlib

    for entry in list(sys.path_importer_cache):
        if sys.path_importer_cache[entry] is None:
            del sys.path_importer_cache[entry]
    importlib.invalidate_caches()
    # The runtime's code as the engine compiled it, when the copy brought a table for this interpreter.
    from hud_studio.bytecode import install

    install()
    from hud_studio.prestart import main as serve_prestarted

    serve_prestarted()


if __name__ == "__main__":
    main()
