// esbuild bundles `*?worker` imports to their script text (scripts/esbuildInlineWorker.mjs).
declare module '*?worker' {
  const source: string;
  export default source;
}
