import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/agents/index.ts', 'src/internal/index.ts'],
  format: 'esm',
  platform: 'neutral',
  dts: true,
  clean: true,
});
