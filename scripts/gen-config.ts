/**
 * Writes package.json's `contributes.configuration` from the settings schema
 * (client/src/settings.ts), the one place settings are declared. Run with
 * `npm run gen:config` after changing a setting; a unit test fails while
 * package.json and the schema disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationContribution } from '../client/src/settings';

const path = join(__dirname, '..', 'package.json');
const pkg = JSON.parse(readFileSync(path, 'utf8')) as { contributes: Record<string, unknown> };
pkg.contributes.configuration = configurationContribution();
writeFileSync(path, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`wrote contributes.configuration of ${path}`);
