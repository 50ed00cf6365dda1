// Types of esbuildNode.mjs for the TypeScript tests that build with the same options.
import type { BuildOptions } from 'esbuild';

export declare const nativeExternals: string[];
export declare function nodeBundleOptions(production: boolean): BuildOptions;
