import { defineConfig } from 'vitest/config';

// Unit tests of the page's pure modules (ticks, scales, label placement, the alive-at-a-time list),
// in Node: they live in tests/unit, outside web/, so that the page's build never sees them.
export default defineConfig({
  test: { include: ['tests/unit/**/*.test.ts'], environment: 'node' },
});
