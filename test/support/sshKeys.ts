import { utils } from 'ssh2';

/**
 * An ed25519 key pair that ssh2 can read back. ssh2 1.17's generator drops
 * leading zero bytes of the public key, so about 1 pair in 256 is malformed
 * (mscdex/ssh2#1513); a test that met one would fail for ssh2's reason, not ours.
 */
export function sshKeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error))
      return pair;
  }
}
