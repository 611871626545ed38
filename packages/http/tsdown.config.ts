import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/internal/index.ts', 'src/node/index.ts'],
  format: 'esm',
  platform: 'node',
  fixedExtension: false,
  dts: true,
  clean: true,
});
