import { readFile } from 'node:fs/promises';

/** One file of a new project: its path in the project (`/`-separated) and its text. */
export interface ProjectFile {
  path: string;
  content: string;
}

/**
 * The template files and where each goes. Dotfiles are stored without their dot: npm leaves a
 * `.gitignore` out of a package's tarball (and would read it as the package's own ignore list).
 */
const TEMPLATES: ReadonlyArray<{ template: string; path: string }> = [
  { template: 'README.md', path: 'README.md' },
  { template: 'agentport.config.ts', path: 'agentport.config.ts' },
  { template: 'src/agent.ts', path: 'src/agent.ts' },
  { template: 'test/agent.test.ts', path: 'test/agent.test.ts' },
  { template: 'tsconfig.json', path: 'tsconfig.json' },
  { template: 'Dockerfile', path: 'Dockerfile' },
  { template: 'dockerignore', path: '.dockerignore' },
  { template: 'gitignore', path: '.gitignore' },
];

/** The folder of the templates, beside `src` in the workspace and beside `dist` once published. */
export const TEMPLATES_DIRECTORY = new URL('../templates/', import.meta.url);

/** The template files this package ships, as named in `templates/`. */
export const TEMPLATE_NAMES: readonly string[] = TEMPLATES.map(({ template }) => template);

/** This package's own version: every AgentPort package is released on the same version line. */
export async function ownVersion(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/** The new project's `package.json`: its name, the AgentPort packages at `^version`, its scripts. */
export function packageJson(name: string, version: string): string {
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    // Node strips TypeScript types by default from 22.18 (and 23.6): no compiler at run time.
    engines: { node: '>=22.18' },
    scripts: {
      start: 'exec agentport serve',
      test: 'node --test test/*.test.ts',
      typecheck: 'tsc',
    },
    dependencies: {
      '@agentport/core': `^${version}`,
      '@agentport/gateway': `^${version}`,
    },
    devDependencies: {
      '@types/node': '^24.0.0',
      typescript: '^5.9.3',
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Every file of a new project named `name` on AgentPort `version`, `package.json` first. */
export async function projectFiles(name: string, version: string): Promise<ProjectFile[]> {
  const templates = await Promise.all(
    TEMPLATES.map(async ({ template, path }) => ({
      path,
      content: (await readFile(new URL(template, TEMPLATES_DIRECTORY), 'utf8')).replaceAll(
        '{{name}}',
        name,
      ),
    })),
  );
  return [{ path: 'package.json', content: packageJson(name, version) }, ...templates];
}
