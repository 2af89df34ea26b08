import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// From outside a module only its service.ts and schemas.ts are seen (src/README.md). In a module's
// file another module is `../<m>/…` (`../../<m>/…` from a subfolder such as imports/linktrail/).
const moduleBoundary = {
  regex: '^(\\.\\./)+(?!(core|http|infra|db|i18n)/)[^./][^/]*/(?!(service|schemas)(\\.js)?$)[^/]',
  message:
    'From outside a module only its service.ts and schemas.ts may be imported: expose what others need there, or move it to core/ (kernel) or http/ (server machinery) when it imports no module.',
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'web/src/api/schema.d.ts', 'packages/*/dist/', 'packages/sdk/src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        document: 'readonly',
        window: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // The dashboard runs in the browser.
  {
    files: ['web/src/**'],
    languageOptions: {
      globals: {
        localStorage: 'readonly',
        navigator: 'readonly',
        location: 'readonly',
        history: 'readonly',
        addEventListener: 'readonly',
        removeEventListener: 'readonly',
        dispatchEvent: 'readonly',
        getComputedStyle: 'readonly',
        ResizeObserver: 'readonly',
        PopStateEvent: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        Intl: 'readonly',
        HTMLAnchorElement: 'readonly',
        HTMLFormElement: 'readonly',
        HTMLDivElement: 'readonly',
        MouseEvent: 'readonly',
        Event: 'readonly',
      },
    },
  },
  // The structure's rules (src/README.md), so they hold by themselves.
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)modules/', message: 'core/ is the kernel: it imports no module.' },
            { regex: '(^|/)http/', message: 'core/ knows no HTTP machinery.' },
            { regex: '^(fastify|@fastify/)', message: 'core/ knows no Fastify.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/http/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '(^|/)modules/', message: 'http/ is the server machinery that knows no module: the composition root (src/app.ts) wires them.' }],
        },
      ],
    },
  },
  {
    files: ['src/modules/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(\\.\\./modules/)?[^./][^/]*/store(-[^/]*)?(\\.js)?$',
              message: "A module uses another module's service, never its store (routes → service → store).",
            },
            moduleBoundary,
          ],
        },
      ],
    },
  },
  {
    files: ['src/*.ts', 'src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)modules/[^/]+/store(-[^/]*)?(\\.js)?$', message: 'The wiring uses modules through their services, never their stores.' }] },
      ],
    },
  },
  {
    // The wiring (app.ts, runtime.ts, shared.ts, modules.ts…) knows a module by its registration, its service and its schemas only.
    files: ['src/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)modules/[^/]+/(?!(module|service|schemas)(\\.js)?$).+$',
              message:
                'The wiring uses a module through its module.ts (its registration), service.ts or schemas.ts, never its other files (a store least of all): what else it needs, its module.ts exports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/modules/*/routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '/store(-[^/]*)?(\\.js)?$', message: 'Routes call their service; only services use a store.' }, moduleBoundary] },
      ],
    },
  },
  // The command line is wiring too, but it sees modules only through their services and schemas
  // (for cli/ this replaces the wiring's rule above, whose stores it forbids as well).
  {
    files: ['src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)modules/[^/]+/(?!(service|schemas)(\\.js)?$)[^/]',
              message: 'The command line uses modules through their service.ts and schemas.ts only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['web/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/(core|http|modules|db|infra|i18n)/|^\\.\\./(\\.\\./)*src/',
              message: 'The dashboard talks to the server over HTTP through the generated client (web/src/api/), never by importing src/.',
            },
          ],
        },
      ],
    },
  },
);
