import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.e2e.test.ts'],
    // Packing builds every package once for all the files; installs and processes are slow.
    globalSetup: ['src/pack-tarballs.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // Each file installs a project with npm: one at a time keeps them from starving each other.
    fileParallelism: false,
  },
});
