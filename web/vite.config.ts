// The dashboard, built into dist/web and served under /app by src/modules/dashboard.
// JSX goes through esbuild (Preact's automatic runtime): no Babel preset needed.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script or style: the page's Content-Security-Policy allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
