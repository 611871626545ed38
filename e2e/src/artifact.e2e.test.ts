import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ServerProcess, startServer, temporaryFolder, writeFiles } from './project.ts';

// The gateway's artifact copied alone into an empty folder outside the repository, as the
// Dockerfile's image holds it: no workspace, no node_modules, no package manager; `node` only.
// No Docker engine runs here: this stands in for building the image, started as its ENTRYPOINT
// and CMD say, and checked with its HEALTHCHECK.
const DOCKERFILE = fileURLToPath(new URL('../../Dockerfile', import.meta.url));

/** The runtime stage of the Dockerfile (after its last FROM), continuation lines joined. */
async function runtimeStage(): Promise<string> {
  const text = (await readFile(DOCKERFILE, 'utf8')).replace(/\\\n\s*/g, ' ');
  return text.slice(text.lastIndexOf('\nFROM '));
}

/** The JSON (exec form) arguments of an instruction of the runtime stage. */
async function execForm(instruction: string): Promise<string[]> {
  const match = new RegExp(`^${instruction} (?:.* )?(\\[.*\\])$`, 'm').exec(await runtimeStage());
  if (match?.[1] === undefined) throw new Error(`no ${instruction} in exec form`);
  return JSON.parse(match[1]) as string[];
}
async function artifactFolder(prefix: string): Promise<string> {
  const folder = await temporaryFolder(prefix);
  await mkdir(join(folder, 'dist'));
  await copyFile(inject('artifact'), join(folder, 'dist/cli.js'));
  return folder;
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
  });

describe("the gateway's artifact, started with node alone", () => {
  let upstream: ServerProcess;
  let federating: ServerProcess;

  beforeAll(async () => {
    const alone = await artifactFolder('agentport-artifact-');
    const [node, ...entrypoint] = await execForm('ENTRYPOINT');
    expect(node).toBe('node');
    upstream = await startServer(alone, process.execPath, [
      ...entrypoint,
      ...(await execForm('CMD')),
      '--port',
      '0',
    ]);
    const federated = await artifactFolder('agentport-artifact-federating-');
    await writeFiles(federated, {
      'agentport.config.mjs': `export default {
  builtins: false,
  remotes: [
    { url: '${upstream.url}/agents/assistant', kind: 'a2a-http', name: 'far-assistant' },
    { url: '${upstream.url}/a2a/echo/.well-known/agent-card.json', kind: 'a2a-sdk', name: 'far-echo' },
  ],
};
`,
    });
    federating = await startServer(federated, process.execPath, [
      'dist/cli.js',
      'serve',
      '--port',
      '0',
      '--config',
      'agentport.config.mjs',
    ]);
  });

  it('is the one file the image copies, run as a user other than root', async () => {
    expect((await stat(inject('artifact'))).isFile()).toBe(true);
    const stage = await runtimeStage();
    expect(stage).toMatch(/^FROM node:24-slim$/m);
    expect(stage).toMatch(
      /^COPY --from=build \/repo\/apps\/gateway\/dist\/cli\.js \/app\/dist\/cli\.js$/m,
    );
    expect(stage).toMatch(/^WORKDIR \/app$/m);
    expect(stage).toMatch(/^USER node$/m);
    expect(stage).toMatch(/^ENV .*\bHOST=0\.0\.0\.0\b/m);
  });

  it('says what to do with a config that imports AgentPort packages it does not have', async () => {
    const folder = await artifactFolder('agentport-artifact-imports-');
    await writeFiles(folder, {
      'agentport.config.mjs':
        "import { defineConfig } from '@agentport/gateway';\nexport default defineConfig({});\n",
    });
    const failure = await promisify(execFile)(
      process.execPath,
      ['dist/cli.js', 'agents', '--config', 'agentport.config.mjs'],
      { cwd: folder },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain(
      'a config for the bundled artifact can import only node: modules: export a plain object)',
    );
  });

  it("passes the Dockerfile's HEALTHCHECK, which fails when nothing answers", async () => {
    const [command, ...args] = await execForm('HEALTHCHECK');
    expect(command).toBe('node');
    const check = (port: string) =>
      promisify(execFile)(process.execPath, args, { env: { ...process.env, PORT: port } }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
    await expect(check(new URL(upstream.url).port)).resolves.toBe(0);
    // A port just given out and taken back: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(check(String(port))).resolves.toBe(1);
  });

  it('serves the built-in agents on every surface', async () => {
    const invoke = await post(`${upstream.url}/agents/echo/invoke`, { input: 'hi' });
    expect(await invoke.json()).toMatchObject({ result: 'hi' });
    const rpc = await post(`${upstream.url}/a2a/echo/jsonrpc`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
    });
    expect(await rpc.json()).toMatchObject({
      result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
    const compat = await post(`${upstream.url}/compat/runs`, {
      agent_name: 'assistant',
      input: 'what is 6 * 7',
    });
    expect(await compat.json()).toMatchObject({ output: '6 * 7 = 42' });
    expect((await fetch(`${upstream.url}/healthz`)).status).toBe(200);
  });

  it('serves the remote agents a config names, as its own (a federating gateway)', async () => {
    const index = (await (await fetch(`${federating.url}/`)).json()) as {
      agents: Array<{ name: string }>;
    };
    expect(index.agents.map((agent) => agent.name)).toEqual(['far-assistant', 'far-echo']);
    const assistant = await post(`${federating.url}/agents/far-assistant/invoke`, {
      input: 'what is 2 + 3',
    });
    expect(await assistant.json()).toMatchObject({ result: '2 + 3 = 5' });
    const echo = await post(`${federating.url}/agents/far-echo/invoke`, { input: 'over there' });
    expect(await echo.json()).toMatchObject({ result: 'over there' });
  });
});
