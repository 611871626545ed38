// Tests scripts/check-layering.mjs on small fixture trees outside the repository: a tree that
// follows ARCHITECTURE.md passes, and each kind of violation fails naming the file and the rule.
// Run by `pnpm test` (the root's test:scripts) as `node --test scripts/check-layering.test.mjs`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkLayering, importsOf } from './check-layering.mjs';

const script = join(dirname(fileURLToPath(import.meta.url)), 'check-layering.mjs');
const roots = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A package: its folder under the root, its package.json fields, and its src files. */
function pkg(folder, name, fields, files) {
  return { folder, manifest: { name, type: 'module', ...fields }, files };
}

/** A tree that follows the layering; `change` edits the package list before it is written. */
function tree(change = (packages) => packages) {
  const deps = (...names) => Object.fromEntries(names.map((name) => [name, 'workspace:*']));
  const packages = change([
    pkg(
      'packages/core',
      '@agentport/core',
      {},
      {
        'src/index.ts': "import { z } from 'zod';\nexport const core = z;\n",
        'src/readme.test.ts': "import { runReadmeExample } from '@agentport/core/testing';\n",
      },
    ),
    pkg(
      'packages/http',
      '@agentport/http',
      { dependencies: deps('@agentport/core') },
      {
        'src/index.ts': "import type { Agent } from '@agentport/core';\nexport type { Agent };\n",
      },
    ),
    pkg(
      'packages/rest-sse',
      '@agentport/rest-sse',
      { dependencies: deps('@agentport/core', '@agentport/http') },
      {
        'src/index.ts': [
          "export { defineAgent } from '@agentport/core';",
          "const http = await import('@agentport/http/node');",
          "// import { a2a } from '@agentport/a2a-http';",
          "const text = `import { gateway } from '@agentport/gateway'`;",
          "import { helper } from './helper.ts';",
        ].join('\n'),
      },
    ),
    pkg(
      'packages/create-agentport',
      'create-agentport',
      { dependencies: deps('@agentport/core') },
      { 'src/index.ts': "import { defineAgent } from '@agentport/core';\n" },
    ),
    pkg(
      'apps/gateway',
      '@agentport/gateway',
      {
        dependencies: deps('@agentport/core', '@agentport/rest-sse'),
        devDependencies: deps('@agentport/a2a-http'),
        peerDependencies: deps('@agentport/compat'),
      },
      {
        'src/index.ts': "import { core } from '@agentport/core';\nimport '@agentport/rest-sse';\n",
      },
    ),
  ]);
  const root = mkdtempSync(join(tmpdir(), 'check-layering-'));
  roots.push(root);
  for (const { folder, manifest, files } of packages) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'package.json'), JSON.stringify(manifest));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, folder, path)), { recursive: true });
      writeFileSync(join(root, folder, path), content);
    }
  }
  return root;
}

/** Adds a source file to one package of the tree. */
const withFile = (folder, path, content) => (packages) =>
  packages.map((p) => (p.folder === folder ? { ...p, files: { ...p.files, [path]: content } } : p));

/** The messages of a tree's violations, as `file:line: message`. */
function violations(root) {
  return checkLayering(root).map(({ file, line, message }) => `${file}:${line}: ${message}`);
}

describe('check-layering', () => {
  it('passes a tree that follows the layering, and exits 0', () => {
    const root = tree();
    assert.deepEqual(violations(root), []);
    const output = execFileSync(process.execPath, [script, root], { encoding: 'utf8' });
    assert.match(output, /5 packages, layering ok/);
  });

  it('fails when core imports any @agentport package, and exits 1 naming the file', () => {
    const root = tree(
      withFile('packages/core', 'src/uses-http.ts', "\nimport { x } from '@agentport/http';\n"),
    );
    assert.deepEqual(violations(root), [
      "packages/core/src/uses-http.ts:2: imports '@agentport/http': @agentport/core imports no @agentport package",
      "packages/core/src/uses-http.ts:2: imports '@agentport/http', which @agentport/core's package.json does not list",
    ]);
    const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /packages\/core\/src\/uses-http\.ts:2: imports '@agentport\/http'/);
    assert.match(run.stderr, /check-layering: 2 violation\(s\)/);
  });

  it('fails when http imports anything of ours but core', () => {
    const root = tree((packages) =>
      withFile(
        'packages/http',
        'src/sse.ts',
        "import type { Rest } from '@agentport/rest-sse';\n",
      )(
        packages.map((p) =>
          p.manifest.name === '@agentport/http'
            ? { ...p, manifest: { ...p.manifest, devDependencies: { '@agentport/rest-sse': '*' } } }
            : p,
        ),
      ),
    );
    assert.deepEqual(violations(root), [
      "packages/http/src/sse.ts:1: imports '@agentport/rest-sse': @agentport/http may import only @agentport/core",
    ]);
  });

  it('fails when a surface imports a sibling surface, by export-from or dynamic import', () => {
    const root = tree(
      withFile(
        'packages/rest-sse',
        'src/bridge.ts',
        "export { a2a } from '@agentport/a2a-http';\nconst c = await import('@agentport/compat/node');\n",
      ),
    );
    const found = violations(root);
    assert.ok(
      found.includes(
        "packages/rest-sse/src/bridge.ts:1: imports '@agentport/a2a-http': @agentport/rest-sse may import only @agentport/core and @agentport/http",
      ),
      found.join('\n'),
    );
    assert.ok(
      found.includes(
        "packages/rest-sse/src/bridge.ts:2: imports '@agentport/compat/node': @agentport/rest-sse may import only @agentport/core and @agentport/http",
      ),
      found.join('\n'),
    );
  });

  it('fails when any package imports the gateway, even a test of one allowed everything else', () => {
    const root = tree(
      withFile(
        'packages/create-agentport',
        'src/cli.test.ts',
        "import { serve } from '@agentport/gateway';\n",
      ),
    );
    assert.deepEqual(violations(root), [
      "packages/create-agentport/src/cli.test.ts:1: imports '@agentport/gateway': no package imports the gateway (it composes the others)",
      "packages/create-agentport/src/cli.test.ts:1: imports '@agentport/gateway', which create-agentport's package.json does not list",
    ]);
  });

  it('fails when a package imports an @agentport package its package.json does not list', () => {
    const root = tree(
      withFile(
        'apps/gateway',
        'src/sdk.ts',
        "import { createA2ASdkServer } from '@agentport/a2a-sdk';\n",
      ),
    );
    assert.deepEqual(violations(root), [
      "apps/gateway/src/sdk.ts:1: imports '@agentport/a2a-sdk', which @agentport/gateway's package.json does not list",
    ]);
  });

  it('fails when a dependency is imported by no source outside tests, but not a dev or peer one', () => {
    const root = tree((packages) =>
      packages.map((p) =>
        p.manifest.name === '@agentport/rest-sse'
          ? {
              ...p,
              files: {
                'src/index.ts': "export { defineAgent } from '@agentport/core';\n",
                'src/index.test.ts': "import { listen } from '@agentport/http/node';\n",
              },
            }
          : p,
      ),
    );
    assert.deepEqual(violations(root), [
      'packages/rest-sse/package.json:0: lists @agentport/http in dependencies, but no source outside tests imports it (drop it, or make it a devDependency)',
    ]);
  });

  it('fails when a source reaches into another package by a relative path', () => {
    const root = tree(
      withFile('packages/http', 'src/deep.ts', "import { x } from '../../core/src/index.ts';\n"),
    );
    assert.deepEqual(violations(root), [
      "packages/http/src/deep.ts:1: '../../core/src/index.ts' reaches outside @agentport/http by a relative path; import its package",
    ]);
  });
});

describe('importsOf', () => {
  it('reads imports, export-from and dynamic imports, not strings or comments', () => {
    const source = [
      "import type { A } from '@agentport/core';",
      "export { b } from './b.ts';",
      "const c = await import('@agentport/http');",
      "// import '@agentport/compat';",
      'const s = "import { d } from \'@agentport/gateway\'";',
    ].join('\n');
    assert.deepEqual(importsOf(source), [
      { specifier: '@agentport/core', line: 1 },
      { specifier: './b.ts', line: 2 },
      { specifier: '@agentport/http', line: 3 },
    ]);
  });
});
