/** The CLI's version is the extension's (package.json is bundled as data). */
import pkg from '../../../package.json';

export function version(): string {
  return (pkg as { version: string }).version;
}
