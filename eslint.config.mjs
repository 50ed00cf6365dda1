// Lint rules for the whole repository, run by `node scripts/lint.mjs` (the
// `lint` layer of `npm test`). TypeScript sources get the type-aware rules,
// chosen for the bugs they catch: promises nobody awaits or handles, awaits of
// non-promises, unsafe `any` flowing into typed code, unused code. Plain
// JavaScript (scripts, bin) gets the recommended set with Node's globals.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const vscodeOnlyInUi = 'only client/src/ui/ and client/src/extension.ts may use vscode (docs/architecture.md)';
// Prettier cannot break a string, so long string and template literals (embedded Python, expected messages) are exempt.
const lineLength = {
  code: 120,
  tabWidth: 2,
  ignoreUrls: true,
  ignoreRegExpLiterals: true,
  ignoreStrings: true,
  ignoreTemplateLiterals: true,
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.tsbuild/**',
      'node_modules/**',
      'out/**',
      '.vscode-test/**',
      'test/fixtures/**',
      'bench/results/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // An async method that does not await is a legitimate way to satisfy a Promise-returning interface.
      '@typescript-eslint/require-await': 'off',
      // Passing on what a callback or a signal rejected with, unchanged, is the point of those call sites.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // `namespace XRequest { export const type = ... }` is the language server protocol's own idiom.
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON that the code under test wrote, and assert on its shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Only the extension host's UI may import vscode; tsconfig.node.json and tsconfig.webview.json enforce the same.
    files: ['common/**/*.ts', 'server/**/*.ts', 'client/src/**/*.ts', 'media/**/*.ts'],
    ignores: ['client/src/ui/**', 'client/src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: vscodeOnlyInUi }],
          patterns: [{ group: ['vscode-languageclient', 'vscode-languageclient/*'], message: vscodeOnlyInUi }],
        },
      ],
    },
  },
  {
    // Terminal output and logs are made of control characters: matching them is deliberate.
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.{ts,js,mjs,cjs}'],
    rules: { 'max-len': ['error', lineLength] },
  },
);
