// The esbuild options of every Node bundle HUD Studio ships (extension host,
// language server, CLI). Shared with benchmarks that measure shipped code.

// Native addons ssh2 tries to load in try/catch (cpu-features, sshcrypto.node);
// they are not needed for the local Docker socket and must never enter the
// bundle. ssh2 itself is plain JS that docker-modem requires at load time, so
// it is bundled: the packaged extension has no node_modules to find it in.
export const nativeExternals = ['cpu-features', './crypto/build/Release/sshcrypto.node'];

export function nodeBundleOptions(production) {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    minify: production,
    logLevel: 'warning',
    // web-tree-sitter and execa ship ESM; import.meta.url must still work in CJS.
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  };
}
