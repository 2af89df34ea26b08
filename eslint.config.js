import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'web/src/api/schema.d.ts'] },
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
);
