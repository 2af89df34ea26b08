import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'web/src/api/schema.d.ts', 'packages/*/dist/', 'packages/sdk/src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', document: 'readonly', window: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // The dashboard runs in the browser.
  { files: ['web/src/**'], languageOptions: { globals: { localStorage: 'readonly', navigator: 'readonly', location: 'readonly', history: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly', dispatchEvent: 'readonly', getComputedStyle: 'readonly', ResizeObserver: 'readonly', PopStateEvent: 'readonly', FormData: 'readonly', URLSearchParams: 'readonly', Intl: 'readonly', HTMLAnchorElement: 'readonly', HTMLFormElement: 'readonly', HTMLDivElement: 'readonly', MouseEvent: 'readonly', Event: 'readonly' } } },
  // The structure's rules (src/README.md), so they hold by themselves.
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { regex: '(^|/)modules/', message: 'core/ is the kernel: it imports no module.' },
        { regex: '(^|/)http/', message: 'core/ knows no HTTP machinery.' },
        { regex: '^(fastify|@fastify/)', message: 'core/ knows no Fastify.' },
      ] }],
    },
  },
  {
    files: ['src/http/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)modules/', message: 'http/ is the server machinery that knows no module: the composition root (src/app.ts) wires them.' }] }],
    },
  },
  {
    files: ['src/modules/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(\\.\\./modules/)?[^./][^/]*/store(-[^/]*)?(\\.js)?$', message: "A module uses another module's service, never its store (routes → service → store)." }] }],
    },
  },
  {
    files: ['src/*.ts', 'src/cli/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)modules/[^/]+/store(-[^/]*)?(\\.js)?$', message: 'The wiring uses modules through their services, never their stores.' }] }],
    },
  },
  {
    files: ['src/modules/*/routes.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '/store(-[^/]*)?(\\.js)?$', message: 'Routes call their service; only services use a store.' }] }],
    },
  },
  {
    files: ['web/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)src/(core|http|modules|db|infra|i18n)/|^\\.\\./(\\.\\./)*src/', message: 'The dashboard talks to the server over HTTP through the generated client (web/src/api/), never by importing src/.' }] }],
    },
  },
);
