#!/usr/bin/env node
'use strict';
// The CLI ships bundled in dist/; build it first in a source checkout.
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write(`hud-studio: ${cli} is missing; run "npm run build" first\n`);
  process.exit(2);
}
require(cli);
