import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createContainer, type DockerContainer } from '../../../client/src/engine/docker/container';
import { openRelay } from '../../../client/src/engine/docker/relay';
import { BASE_IMAGE, dockerReady } from './support';

// Echoes each byte back, then closes once the client half-closes.
const ECHO = `
import socket
s = socket.socket(); s.bind(("127.0.0.1", 5555)); s.listen()
print("listening", flush=True)
while True:
    c, _ = s.accept()
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
    c.close()
`;

describe("channel relay through the container's own loopback", () => {
  let box: DockerContainer;
  before(async () => {
    await dockerReady();
    box = (await createContainer({
      image: BASE_IMAGE,
      rolloutId: `test-${randomUUID()}`,
      phase: 'actor',
      network: 'none',
    })) as DockerContainer;
    const server = await box.spawn(['python3', '-c', ECHO]);
    void server.done;
    for (let i = 0; i < 50; i++) {
      if (
        (await box.exec(['python3', '-c', 'import socket; socket.create_connection(("127.0.0.1", 5555))'])).exitCode ===
        0
      )
        break;
    }
  });
  after(async () => box?.remove());

  test('carries bytes both ways with network none, and half-close ends the stream', async () => {
    const stream = await openRelay(box.handle, 5555);
    const payload = Buffer.alloc(1024 * 1024 + 7, 'a');
    payload[0] = 0;
    payload[payload.length - 1] = 255;
    const chunks: Buffer[] = [];
    stream.on('data', (b: Buffer) => chunks.push(b));
    const ended = new Promise((resolve) => stream.on('end', resolve));
    stream.end(payload);
    await ended;
    assert.ok(Buffer.concat(chunks).equals(payload), 'the echo came back byte for byte');
  });

  test('a port nobody listens on is a clear error at open time', async () => {
    await assert.rejects(openRelay(box.handle, 5556), /cannot connect to 127\.0\.0\.1:5556 inside the container/);
  });
});
