import { SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  installTarballs,
  type ServerProcess,
  startServer,
  temporaryFolder,
  writeFiles,
} from './project.ts';

// A user's own project, outside the repository: `npm install @agentport/gateway @agentport/core`
// (here every tarball, since none is on the registry), an agentport.config.ts with an agent of
// its own, `npx agentport serve`.
const KEY = 'e2e-key-of-more-than-16';

const CONFIG = `import { defineAgent, defineTool } from '@agentport/core';
import { defineConfig } from '@agentport/gateway';

const reverse = defineTool({
  name: 'reverse',
  description: 'Reverses a text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }: { text: string }) => [...text].reverse().join(''),
});

const mirror = defineAgent({
  name: 'mirror',
  description: 'Answers with its input reversed',
  tools: [reverse],
  async *run(input: string, context) {
    const reversed: string = yield* context.callTool(reverse, { text: input });
    yield { type: 'text-delta', delta: reversed };
  },
});

export default defineConfig({ agents: [mirror], defaultAgent: 'mirror', apiKeys: ['${KEY}'] });
`;

const auth = { authorization: `Bearer ${KEY}` };

describe('the gateway installed from its tarball in a project of its own', () => {
  let gateway: ServerProcess;

  beforeAll(async () => {
    const tarballs = inject('tarballs');
    const project = await temporaryFolder('agentport-user-project-');
    await writeFiles(project, {
      'package.json': `${JSON.stringify({ name: 'my-agents', private: true, type: 'module' })}\n`,
      'agentport.config.ts': CONFIG,
    });
    await installTarballs(project, Object.values(tarballs));
    gateway = await startServer(project, 'npx', ['agentport', 'serve', '--port', '0']);
  });

  it('serves the config agent over REST/SSE, behind its API key', async () => {
    const invoke = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/agents/mirror/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ input: 'stressed' }),
      });
    const refused = await invoke({});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const answered = await invoke(auth);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ result: 'desserts' });
  });

  it('publishes both A2A cards, the tool as a skill', async () => {
    const handRolled = await fetch(`${gateway.url}/.well-known/agent.json`);
    expect(await handRolled.json()).toMatchObject({
      name: 'mirror',
      endpoint: gateway.url,
      skills: [expect.objectContaining({ id: 'reverse' })],
    });
    const official = await fetch(`${gateway.url}/a2a/mirror/.well-known/agent-card.json`);
    expect(await official.json()).toMatchObject({
      name: 'mirror',
      skills: expect.arrayContaining([expect.objectContaining({ id: 'mirror.reverse' })]),
    });
  });

  it('answers SendMessage from the official A2A client', async () => {
    const cardUrl = `${gateway.url}/a2a/mirror/.well-known/agent-card.json`;
    const card = await new DefaultAgentCardResolver().resolve(cardUrl, '');
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
    }).createFromAgentCard(card);
    const request = SendMessageRequest.fromJSON({
      message: { messageId: 'e2e-1', role: 'ROLE_USER', parts: [{ text: 'live' }] },
    });
    const task = (await client.sendMessage(request, { serviceParameters: auth })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(task.artifacts)).toContain('evil');
  });

  it('serves its docs and logs each request as a JSON line', async () => {
    const docs = await fetch(`${gateway.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toContain('/agents/mirror/invoke');
    const logged = () =>
      gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { path?: string; status?: number });
    // The line is written once the answer has gone, and reaches the pipe a moment later.
    await expect
      .poll(logged, { timeout: 5_000 })
      .toContainEqual(expect.objectContaining({ path: '/docs', status: 200 }));
  });
});
