// Preloaded into the CLI under test (`node -r`): on exit, writes the process's
// peak resident set size in KB to the file named by HUD_BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.HUD_BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});
