import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { runIn, startServer, temporaryFolder } from './project.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What each example in `examples/` serves, and what its agent answers. */
const EXAMPLES = [
  {
    folder: 'ai-sdk',
    agent: 'weather',
    input: 'Weather in Paris?',
    answer: 'It is 21 degrees in Paris.',
    tool: 'weather',
  },
  {
    folder: 'openai-agents',
    agent: 'weather',
    input: 'Weather in Paris?',
    answer: 'It is 21 degrees in Paris.',
    tool: 'weather',
  },
  {
    folder: 'langgraph',
    agent: 'weather',
    input: 'Weather in Paris?',
    answer: 'It is 21 degrees in Paris.',
    tool: 'weather',
  },
] as const;

interface Manifest {
  dependencies?: Record<string, string>;
}

/** The workspace manifest of one of our packages, by its name. */
async function workspaceManifest(name: string): Promise<Manifest> {
  const folder = name === '@agentport/gateway' ? 'apps/gateway' : `packages/${name.split('/')[1]}`;
  return JSON.parse(await readFile(join(ROOT, folder, 'package.json'), 'utf8')) as Manifest;
}

/** Our packages an example lists, and every one of ours they depend on. */
async function agentportClosure(names: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  const visit = async (name: string) => {
    if (found.has(name)) return;
    found.add(name);
    const dependencies = Object.keys((await workspaceManifest(name)).dependencies ?? {});
    for (const dependency of dependencies.filter((each) => each.startsWith('@agentport/'))) {
      await visit(dependency);
    }
  };
  for (const name of names) await visit(name);
  return [...found].sort();
}

/**
 * Copies an example into a new folder outside the repository and installs it as a user would:
 * its own dependencies from the registry, ours from their packed tarballs (none is published).
 */
async function installExample(folder: string): Promise<string> {
  const project = await temporaryFolder(`agentport-example-${folder}-`);
  await cp(join(ROOT, 'examples', folder), project, {
    recursive: true,
    filter: (source) => !source.includes('node_modules'),
  });
  const manifestPath = join(project, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  const ours = Object.keys(manifest.dependencies ?? {}).filter((name) =>
    name.startsWith('@agentport/'),
  );
  const tarballs = inject('tarballs');
  for (const name of ours) delete manifest.dependencies?.[name];
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const needed = (await agentportClosure(ours)).map((name) => tarballs[name] as string);
  await runIn(project, 'npm', ['install', '--no-package-lock', ...needed]);
  return project;
}

describe.each(EXAMPLES)('the $folder example, installed and started', (example) => {
  it('type-checks and serves its agent on REST/SSE, A2A and compat, the tool call in its stream', async () => {
    const project = await installExample(example.folder);
    // Its code type-checks against the published declarations, as a user's editor checks it.
    await runIn(project, 'npm', ['run', 'typecheck']);
    const { url } = await startServer(project, 'npm', ['start', '--', '--port', '0']);
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const invoked = await post(`/agents/${example.agent}/invoke`, { input: example.input });
    expect(await invoked.json()).toMatchObject({ result: example.answer, status: 'completed' });

    const streamed = await (
      await post(`/agents/${example.agent}/stream`, { input: example.input })
    ).text();
    expect(streamed).toContain('event: tool-call');
    expect(streamed).toContain(`"name":"${example.tool}"`);
    const done = /event: done\n(?:id: \d+\n)?data: (.*)\n/.exec(streamed)?.[1];
    expect(JSON.parse(done ?? 'null')).toEqual({ output: example.answer });

    const card = (await (
      await fetch(`${url}/a2a/${example.agent}/.well-known/agent-card.json`)
    ).json()) as { skills: Array<{ name: string }> };
    expect(card.skills.map((skill) => skill.name)).toContain(example.tool);

    const run = await post('/compat/runs', { agent_name: example.agent, input: example.input });
    expect(await run.json()).toMatchObject({ output: example.answer });
  });
});
