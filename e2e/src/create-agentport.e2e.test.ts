import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { installTarballs, PROJECT_ENV, runIn, startServer, temporaryFolder } from './project.ts';

const run = promisify(execFile);

/** A command's argument list from a Dockerfile instruction in exec form (`CMD ["node", ...]`). */
function execForm(dockerfile: string, instruction: string): string[] {
  const line = new RegExp(`^${instruction}[^\\n[]*(\\[.*\\])$`, 'm').exec(
    dockerfile.replaceAll('\\\n', ''),
  );
  if (line?.[1] === undefined) throw new Error(`the Dockerfile has no ${instruction} in exec form`);
  return JSON.parse(line[1]) as string[];
}

// `npm create agentport@latest my-agents` is `npm exec create-agentport -- my-agents`: here with
// the packed create-agentport, in a folder outside the repository; then `npm install` (the
// AgentPort packages from their tarballs, since none is on the registry yet) and the project's
// own commands.
describe('a project written by create-agentport, installed from the tarballs', () => {
  let project: string;
  let created: string;

  beforeAll(async () => {
    const tarballs = inject('tarballs');
    const { 'create-agentport': creator, ...packages } = tarballs;
    if (creator === undefined) throw new Error('no create-agentport tarball');
    const parent = await temporaryFolder('agentport-create-');
    ({ stdout: created } = await runIn(parent, 'npm', [
      'exec',
      '--yes',
      `--package=${creator}`,
      '--',
      'create-agentport',
      'my-agents',
    ]));
    project = join(parent, 'my-agents');
    await installTarballs(project, Object.values(packages));
  });

  it('is written with the next steps printed', () => {
    expect(created).toContain('Created my-agents in ');
    expect(created).toContain('\n  cd my-agents && npm install && npm start\n');
  });

  it('passes its own npm test', async () => {
    const { stdout } = await runIn(project, 'npm', ['test']);
    expect(stdout).toMatch(/^ℹ pass 3$/m);
    expect(stdout).toMatch(/^ℹ fail 0$/m);
  });

  it('type-checks against the published declarations', async () => {
    await expect(runIn(project, 'npm', ['run', 'typecheck'])).resolves.toBeDefined();
  });

  it('serves its agent as its Dockerfile runs it, healthy by its HEALTHCHECK', async () => {
    const dockerfile = await readFile(join(project, 'Dockerfile'), 'utf8');
    const [node, ...args] = execForm(dockerfile, 'CMD');
    expect(node).toBe('node');
    const server = await startServer(project, process.execPath, args, {
      HOST: '127.0.0.1',
      PORT: '0',
    });
    const invoked = await fetch(`${server.url}/agents/word-counter/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hello agents' }),
    });
    expect(await invoked.json()).toMatchObject({ result: '2 words, 12 characters' });
    // The check as the container runs it, with the port this server listens on.
    const [, ...check] = execForm(dockerfile, 'HEALTHCHECK');
    const { port } = new URL(server.url);
    await expect(
      run(process.execPath, check, { cwd: project, env: { ...PROJECT_ENV, PORT: port } }),
    ).resolves.toBeDefined();
  });

  it('drains and stops on the SIGTERM a process manager sends npm start', async () => {
    const server = await startServer(project, 'npm', ['start'], { PORT: '0' });
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await expect(exited).resolves.toBe(0);
    // Nothing of it is left listening: the gateway itself got the signal, not only npm.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(server.output()).toContain('"msg":"stopped"');
  });
});
