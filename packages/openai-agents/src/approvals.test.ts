import { createTaskRunner, type Message, textOf } from '@agentport/core';
import { approvalAnswerOf } from '@agentport/core/internal';
import { Agent, Runner, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromOpenAIAgent } from './index.ts';

const runner = new Runner({ tracingDisabled: true });
const question = `Approve the call of tool 'remove' with input {"file":"a.txt"}? Answer yes or no.`;

/** An agent whose model calls `remove` (which needs approval), then answers; and what it removed. */
function filesAgent(...calls: string[]) {
  const removed: string[] = [];
  const remove = tool({
    name: 'remove',
    description: 'Deletes a file',
    parameters: z.object({ file: z.string() }),
    needsApproval: true,
    execute: async ({ file }) => {
      removed.push(file);
      return `removed ${file}`;
    },
  });
  const model = new ScriptedModel([
    calls.map((file, index) => functionCall('remove', { file }, { callId: `call-${index + 1}` })),
    [assistantMessage('Done')],
  ]);
  const agent = fromOpenAIAgent(new Agent({ name: 'files', model, tools: [remove] }), { runner });
  return { agent, model, removed };
}

function statusText(message: Message | undefined): string {
  return message === undefined ? '' : textOf(message.parts);
}

describe('approvals', () => {
  it('pauses a tool that needs approval with a question naming it, and runs it once approved', async () => {
    const { agent, removed } = filesAgent('a.txt');
    const tasks = createTaskRunner({ agent });
    const paused = await tasks.submitAndWait('Delete a.txt');
    expect(paused.status).toBe('input-required');
    expect(statusText(paused.statusMessage)).toBe(question);
    expect(paused.inputRequest?.state).toMatchObject({ runState: expect.any(String) });
    expect(removed).toEqual([]);
    const finished = await tasks.resumeAndWait(paused.id, 'yes');
    expect(finished.status).toBe('completed');
    expect(finished.output).toBe('Done');
    expect(removed).toEqual(['a.txt']);
    await tasks.close();
  });

  it('does not run the tool when the answer is no, and the model hears it was not approved', async () => {
    const { agent, model, removed } = filesAgent('a.txt');
    const tasks = createTaskRunner({ agent });
    const paused = await tasks.submitAndWait('Delete a.txt');
    const finished = await tasks.resumeAndWait(paused.id, {
      messageId: 'answer',
      role: 'user',
      parts: [{ kind: 'data', data: { approved: false } }],
    });
    expect(finished.status).toBe('completed');
    expect(removed).toEqual([]);
    expect(JSON.stringify(model.lastCall?.request.input)).toContain(
      'Tool execution was not approved.',
    );
    await tasks.close();
  });

  it('asks the same question again when the answer is neither yes nor no', async () => {
    const { agent, removed } = filesAgent('a.txt');
    const tasks = createTaskRunner({ agent });
    const paused = await tasks.submitAndWait('Delete a.txt');
    const again = await tasks.resumeAndWait(paused.id, 'maybe later');
    expect(again.status).toBe('input-required');
    expect(statusText(again.statusMessage)).toBe(question);
    expect(removed).toEqual([]);
    const finished = await tasks.resumeAndWait(paused.id, 'y');
    expect(finished.status).toBe('completed');
    expect(removed).toEqual(['a.txt']);
    await tasks.close();
  });

  it('asks about two calls waiting for approval one at a time', async () => {
    const { agent, removed } = filesAgent('a.txt', 'b.txt');
    const tasks = createTaskRunner({ agent });
    const paused = await tasks.submitAndWait('Delete a.txt and b.txt');
    expect(statusText(paused.statusMessage)).toBe(question);
    const second = await tasks.resumeAndWait(paused.id, 'no');
    expect(statusText(second.statusMessage)).toContain(`{"file":"b.txt"}`);
    const finished = await tasks.resumeAndWait(paused.id, 'yes');
    expect(finished.status).toBe('completed');
    expect(removed).toEqual(['b.txt']);
    await tasks.close();
  });

  it('streams the call before the pause, and its result once approved', async () => {
    const { agent } = filesAgent('a.txt');
    const first = [];
    for await (const event of agent.stream('Delete a.txt')) first.push(event);
    expect(first.map((event) => event.type)).toEqual(['tool-call', 'input-required']);
    const pause = first.at(-1);
    const state = pause?.type === 'input-required' ? pause.state : undefined;
    const resumed = [];
    for await (const event of agent.stream('yes', { resumeState: state })) resumed.push(event);
    expect(resumed).toEqual([
      { type: 'tool-result', id: 'call-1', name: 'remove', output: 'removed a.txt' },
      { type: 'text-delta', delta: 'Done' },
      { type: 'done', output: 'Done' },
    ]);
  });

  it('resumes in the agent a handoff led to, which asked for the approval', async () => {
    const removed: string[] = [];
    const remove = tool({
      name: 'remove',
      description: 'Deletes a file',
      parameters: z.object({ file: z.string() }),
      needsApproval: true,
      execute: async ({ file }) => {
        removed.push(file);
        return file;
      },
    });
    const model = new ScriptedModel([
      [functionCall('transfer_to_files', {}, { callId: 'call-h' })],
      [functionCall('remove', { file: 'a.txt' }, { callId: 'call-1' })],
      [assistantMessage('Removed')],
    ]);
    const files = new Agent({ name: 'files', model, tools: [remove] });
    const triage = new Agent({ name: 'triage', model, handoffs: [files] });
    const tasks = createTaskRunner({ agent: fromOpenAIAgent(triage, { runner }) });
    const paused = await tasks.submitAndWait('Delete a.txt');
    expect(statusText(paused.statusMessage)).toBe(question);
    const finished = await tasks.resumeAndWait(paused.id, 'yes');
    expect([finished.status, finished.output]).toEqual(['completed', 'Removed']);
    expect(removed).toEqual(['a.txt']);
    await tasks.close();
  });

  it('gives the tools the run context the options make, made afresh for a resumed run', async () => {
    const seen: unknown[] = [];
    let runs = 0;
    const whoami = tool({
      name: 'whoami',
      description: 'The caller',
      parameters: z.object({}),
      needsApproval: true,
      execute: async (_args, runContext) => {
        seen.push(runContext?.context);
        return 'ok';
      },
    });
    const model = new ScriptedModel([
      [functionCall('whoami', {}, { callId: 'call-1' })],
      [assistantMessage('Done')],
    ]);
    const agent = fromOpenAIAgent(new Agent({ name: 'who', model, tools: [whoami] }), {
      runner,
      context: (run) => ({ user: run.metadata.user, run: ++runs }),
    });
    const tasks = createTaskRunner({ agent });
    const paused = await tasks.submitAndWait('Who am I?', { metadata: { user: 'ada' } });
    expect(paused.status).toBe('input-required');
    const finished = await tasks.resumeAndWait(paused.id, 'yes');
    expect(finished.status).toBe('completed');
    expect(seen).toEqual([{ user: 'ada', run: 2 }]);
    await tasks.close();
  });

  it('reads yes, no, and a data part {approved}, and nothing else, as an answer', () => {
    const of = (text: string) =>
      approvalAnswerOf({ messageId: 'm', role: 'user', parts: [{ kind: 'text', text }] });
    expect([of('yes'), of(' Y '), of('No.'), of('maybe')]).toEqual([true, true, false, undefined]);
    const data = approvalAnswerOf({
      messageId: 'm',
      role: 'user',
      parts: [{ kind: 'data', data: { approved: true } }],
    });
    expect(data).toBe(true);
  });
});
