// esbuild loads .css as text for the webview bundle (scripts/build.mjs `loader`).
declare module '*.css' {
  const text: string;
  export default text;
}
