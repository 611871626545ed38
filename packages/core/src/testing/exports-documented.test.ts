import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertExportsDocumented,
  documentedNames,
  exportedNames,
  findUndocumentedExports,
} from './exports-documented.ts';

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true })));
});

/** Writes a small package (file path -> content) to a fresh tmp folder and returns its path. */
async function fixture(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'exports-documented-'));
  folders.push(folder);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
  return folder;
}

function manifest(exports: unknown): string {
  return JSON.stringify({ name: 'fixture', type: 'module', exports });
}

const readme = (api: string) =>
  `# fixture\n\nUses \`createHidden\` here.\n\n## API\n\n${api}\n\n## Decisions\n\n- \`lateName\`\n`;

describe('assertExportsDocumented', () => {
  it('passes when every exported name appears as a word in a backticked span of ## API', async () => {
    const folder = await fixture({
      'package.json': manifest({ '.': './src/index.ts', './package.json': './package.json' }),
      'src/index.ts':
        "export { createFoo, type FooOptions } from './foo.ts';\nexport type { Bar } from './bar.ts';\n",
      'README.md': readme('| `createFoo(options: FooOptions)` | makes a foo |\n| `Bar` | a bar |'),
    });
    await expect(assertExportsDocumented(folder)).resolves.toBeUndefined();
  });

  it('throws naming each undocumented export with its entry point', async () => {
    const folder = await fixture({
      'package.json': manifest({
        '.': './src/index.ts',
        './extra': { types: './src/extra/index.ts', default: './src/extra/index.ts' },
      }),
      'src/index.ts': "export { createFoo, createHidden, lateName } from './foo.ts';\n",
      'src/extra/index.ts': "export { type ExtraThing, extraValue } from './extra.ts';\n",
      'README.md': readme('- `createFoo()` and extraValue in plain text'),
    });
    const error = await assertExportsDocumented(folder).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('4 exported name(s) not documented');
    expect(message).toContain("'.' (./src/index.ts): createHidden, lateName");
    expect(message).toContain("'./extra' (./src/extra/index.ts): ExtraThing, extraValue");
    expect(message).not.toContain('createFoo,');
  });

  it('does not count a longer name that merely starts with the export', async () => {
    const folder = await fixture({
      'package.json': manifest({ '.': './src/index.ts' }),
      'src/index.ts': "export { createFoo } from './foo.ts';\n",
      'README.md': readme('`createFooBar()`'),
    });
    expect(await findUndocumentedExports(folder)).toEqual([
      { entry: '.', file: './src/index.ts', name: 'createFoo' },
    ]);
  });

  it('skips ./package.json and ./testing', async () => {
    const folder = await fixture({
      'package.json': manifest({
        '.': './src/index.ts',
        './package.json': './package.json',
        './testing': './src/testing/index.ts',
      }),
      'src/index.ts': "export { documented } from './a.ts';\n",
      'src/testing/index.ts': "export { fixtureOnly } from './b.ts';\n",
      'README.md': readme('`documented`'),
    });
    expect(await findUndocumentedExports(folder)).toEqual([]);
  });

  it('throws when the README has no ## API section', async () => {
    const folder = await fixture({
      'package.json': manifest({ '.': './src/index.ts' }),
      'src/index.ts': "export { a } from './a.ts';\n",
      'README.md': '# fixture\n\n## Usage\n\n`a`\n',
    });
    await expect(assertExportsDocumented(folder)).rejects.toThrow('has no "## API" section');
  });

  it('refuses a barrel with export *', async () => {
    const folder = await fixture({
      'package.json': manifest({ '.': './src/index.ts' }),
      'src/index.ts': "export * from './a.ts';\n",
      'README.md': readme('`a`'),
    });
    await expect(assertExportsDocumented(folder)).rejects.toThrow('uses `export *`');
  });
});

describe('exportedNames', () => {
  it('reads value, type and renamed specifiers across lines, and ignores comments', () => {
    const source = [
      '/** export { commented } */',
      "export {\n  alpha,\n  type Beta,\n  gamma as delta,\n} from './a.ts';",
      "export type { Epsilon, Zeta as Eta } from './b.ts'; // export { trailing }",
      'export function localFunction() {}',
      'export const LOCAL_CONSTANT = 1;',
      'export interface LocalInterface {}',
    ].join('\n');
    expect(exportedNames(source)).toEqual([
      'alpha',
      'Beta',
      'delta',
      'Epsilon',
      'Eta',
      'localFunction',
      'LOCAL_CONSTANT',
      'LocalInterface',
    ]);
  });
});

describe('documentedNames', () => {
  it('collects the words of inline spans and fenced blocks only', () => {
    const names = documentedNames(
      'plain words `call(first, second?)` and ``double `tick` span``\n```ts\nfenced()\n```',
    );
    expect([...names].sort()).toEqual([
      'call',
      'double',
      'fenced',
      'first',
      'second',
      'span',
      'tick',
      'ts',
    ]);
    expect(names.has('plain')).toBe(false);
  });
});
