import { defineConfig } from 'tsdown';

export default defineConfig([
  {
    // The published library and its `agentport` bin: our packages and the rest stay dependencies,
    // so a project's config, its agents and the gateway share one copy of each.
    entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
    outDir: 'dist/lib',
    format: 'esm',
    platform: 'node',
    dts: true,
    clean: true,
    fixedExtension: false,
  },
  {
    // The deployable artifact: one file holding every dependency, started with `node` alone.
    entry: { cli: 'src/cli.ts' },
    outDir: 'dist',
    format: 'esm',
    platform: 'node',
    target: 'node22.12',
    dts: false,
    clean: false,
    fixedExtension: false,
    deps: { alwaysBundle: () => true, onlyBundle: false },
    outputOptions: { codeSplitting: false },
  },
]);
