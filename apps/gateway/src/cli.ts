#!/usr/bin/env node
// The entry point: what runs before anything else is loaded, so that an old Node is told what it
// lacks rather than failing on a module it cannot load.
import * as nodeModule from 'node:module';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `agentport: needs Node.js 22.18 or later, which loads TypeScript configs (this is ${process.version})\n`,
  );
  process.exit(1);
}
// Later starts reuse the compiled code of what loads from here on, the commands and every surface
// (kept in the temporary folder). The bundled artifact is one file, compiled before this runs:
// NODE_COMPILE_CACHE, set before Node starts, caches it (the Dockerfile sets it).
nodeModule.enableCompileCache?.();
const { runCli } = await import('./cli-main.ts');
runCli(process.argv.slice(2));
