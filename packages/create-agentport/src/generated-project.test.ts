import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './create-project.ts';
import { useTemporaryDirectories } from './testing/temporary-directory.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const temporaryDirectory = useTemporaryDirectories('all');

/**
 * What `npm install` would put in the project's node_modules, taken from the workspace: links
 * to the packages' folders, whose exports are TypeScript sources. Node strips types only outside
 * node_modules, and it resolves a link to its target, so the sources run as they are. (The
 * project installed from the packed tarballs is e2e/src/create-agentport.e2e.test.ts.)
 */
const LINKS: Record<string, string> = {
  '@agentport/core': 'packages/core',
  '@agentport/gateway': 'apps/gateway',
  '@types/node': 'node_modules/@types/node',
  typescript: 'node_modules/typescript',
};

async function linkWorkspacePackages(project: string): Promise<void> {
  for (const [name, target] of Object.entries(LINKS)) {
    const link = join(project, 'node_modules', name);
    await mkdir(join(link, '..'), { recursive: true });
    await symlink(join(ROOT, target), link, 'dir');
  }
}

/** A command's argument list from a Dockerfile instruction in exec form (`CMD ["node", ...]`). */
function execForm(dockerfile: string, instruction: string): string[] {
  const line = new RegExp(`^${instruction}[^\\n[]*(\\[.*\\])$`, 'm').exec(
    dockerfile.replaceAll('\\\n', ''),
  );
  if (line?.[1] === undefined) throw new Error(`no ${instruction} in exec form`);
  return JSON.parse(line[1]) as string[];
}

describe('the generated project, on the workspace packages', () => {
  let project: string;

  beforeAll(async () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(major > 22 || (major === 22 && minor >= 18), 'Node 22.18 or later').toBe(true);
    project = join(await temporaryDirectory(), 'my-agents');
    await createProject({ directory: project });
    await linkWorkspacePackages(project);
  });

  it('passes its own test with node --test', async () => {
    const { stdout } = await run(process.execPath, ['--test'], { cwd: project });
    expect(stdout).toMatch(/^ℹ tests 3$/m);
    expect(stdout).toMatch(/^ℹ pass 3$/m);
    expect(stdout).toMatch(/^ℹ fail 0$/m);
  });

  it('type-checks with its own tsconfig', async () => {
    const tsc = join(project, 'node_modules/typescript/bin/tsc');
    await expect(run(process.execPath, [tsc, '-p', '.'], { cwd: project })).resolves.toEqual({
      stdout: '',
      stderr: '',
    });
  }, 120_000);

  it("serves its agent with the gateway's bin, healthy by its Dockerfile's check", async () => {
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules/@agentport/gateway/package.json'), 'utf8'),
    ) as { bin: { agentport: string } };
    const bin = join(project, 'node_modules/@agentport/gateway', manifest.bin.agentport);
    const child = spawn(process.execPath, [bin, 'serve'], {
      cwd: project,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      expect(output).toContain('agents              word-counter (default: word-counter)');

      const invoked = await fetch(`${url}/agents/word-counter/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'hello agents' }),
      });
      expect(await invoked.json()).toMatchObject({ result: '2 words, 12 characters' });
      const sent = await fetch(`${url}/a2a/word-counter/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello agents' }] },
          },
        }),
      });
      expect(await sent.json()).toMatchObject({
        result: {
          task: {
            status: { state: 'TASK_STATE_COMPLETED' },
            artifacts: [{ parts: [{ text: '2 words, 12 characters' }] }],
          },
        },
      });

      const dockerfile = await readFile(join(project, 'Dockerfile'), 'utf8');
      const [command = '', ...args] = execForm(dockerfile, 'HEALTHCHECK');
      expect(command).toBe('node');
      const port = new URL(url).port;
      await expect(
        run(process.execPath, args, { env: { ...process.env, PORT: port } }),
      ).resolves.toBeDefined();
      expect(execForm(dockerfile, 'CMD')).toEqual([
        'node',
        'node_modules/@agentport/gateway/dist/lib/cli.js',
        'serve',
      ]);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    expect(child.exitCode).toBe(0);
  }, 120_000);
});
