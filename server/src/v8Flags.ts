/**
 * The V8 flags the language server process runs with (client/src/ui/indexClient.ts),
 * which its benchmark runs with too (bench/index/run.ts).
 *
 * The server runs on the editor's Node: Electron's in VS Code, Node 24 in
 * code-server. Newer V8s grow the young generation with the machine's memory,
 * and on a 24 GiB machine Node 24 let the cold index of 11,000 files peak at
 * 285-298 MB of RSS against 190 MB on Node 20, keeping the same 83 MB:
 * garbage waiting in a larger nursery. A 16 MB semi-space (Node 20's own
 * ceiling on 64-bit) keeps the peak near Node 20's without moving the
 * CPU ratio (bench/index/README.md, "On Node 24").
 */
export const SERVER_V8_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
