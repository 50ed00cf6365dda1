/**
 * The V8 flags the language server process runs with (client/src/ui/indexClient.ts),
 * which its benchmark runs with too (bench/index/run.ts).
 *
 * The server runs on the editor's Node: Electron's in VS Code, Node 24 in
 * code-server. Node 24's V8 lets each semi-space of the young generation grow
 * to 64 MB (`--scavenger-max-new-space-capacity-mb` is 32, doubled in a Node
 * built without pointer compression), and there the cold index of 11,000
 * files peaked at 284-298 MB of RSS against 190-197 MB on Node 20, keeping
 * the same 83 MB: garbage waiting in a larger nursery. A 16 MB cap brought
 * the peak near Node 20's; 8 MB keeps it clear of the 200 MB goal on an AMD
 * EPYC too, where 16 MB peaked at 193-201 MB. The CPU ratio is the same with
 * either cap (bench/index/README.md, "On Node 24" and "A smaller nursery").
 */
export const SERVER_V8_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
