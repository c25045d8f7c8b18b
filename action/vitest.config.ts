import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    // The end-to-end suite builds the release snapshot (four Go binaries) once.
    hookTimeout: 1_800_000,
  },
});
