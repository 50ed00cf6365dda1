// An esbuild plugin: `import source from './x.ts?worker'` bundles x.ts on its
// own (an IIFE for a dedicated worker) and imports its text, so the page can
// start the worker from a blob without a second file or a looser CSP for
// scripts. The explorer build and the browser tests share it.
import * as esbuild from 'esbuild';
import { dirname, resolve } from 'node:path';

export function inlineWorkerPlugin({ minify = false } = {}) {
  return {
    name: 'inline-worker',
    setup(build) {
      build.onResolve({ filter: /\?worker$/ }, (args) => ({
        path: resolve(dirname(args.importer), args.path.replace(/\?worker$/, '')),
        namespace: 'inline-worker',
      }));
      build.onLoad({ filter: /.*/, namespace: 'inline-worker' }, async (args) => {
        const out = await esbuild.build({
          entryPoints: [args.path],
          bundle: true,
          write: false,
          platform: 'browser',
          target: 'es2022',
          format: 'iife',
          minify,
          metafile: true,
          logLevel: 'warning',
        });
        const text = out.outputFiles[0]?.text ?? '';
        return {
          contents: `export default ${JSON.stringify(text)};`,
          loader: 'js',
          watchFiles: Object.keys(out.metafile.inputs).map((f) => resolve(f)),
        };
      });
    },
  };
}
