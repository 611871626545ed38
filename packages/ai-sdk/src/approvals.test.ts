import { createTaskRunner, type Message } from '@agentport/core';
import { approvalAnswerOf } from '@agentport/core/internal';
import { ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromAiSdk } from './index.ts';
import { answer, usage } from './test-support/mock-answers.ts';

const callDelete = () =>
  answer([
    { type: 'tool-call', toolCallId: 'call-1', toolName: 'remove', input: '{"file":"a.txt"}' },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
  ]);
const done = () =>
  answer([
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Done' },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
  ]);

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.kind === 'text' ? part.text : '')).join('');
}

describe('approvals', () => {
  it('pauses a tool that needs approval with a question naming it, and runs it once approved', async () => {
    const removed: string[] = [];
    const remove = tool({
      description: 'Deletes a file',
      inputSchema: z.object({ file: z.string() }),
      needsApproval: true,
      execute: async ({ file }) => {
        removed.push(file);
        return { removed: file };
      },
    });
    const model = new MockLanguageModelV4({ doStream: [callDelete(), done()] });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'files', model, tools: { remove } }));
    const runner = createTaskRunner({ agent });
    const paused = await runner.submitAndWait('Delete a.txt');
    expect(paused.status).toBe('input-required');
    expect(textOf(paused.statusMessage)).toBe(
      `Approve the call of tool 'remove' with input {"file":"a.txt"}? Answer yes or no.`,
    );
    expect(removed).toEqual([]);
    const finished = await runner.resumeAndWait(paused.id, 'yes');
    expect(finished.status).toBe('completed');
    expect(finished.output).toBe('Done');
    expect(removed).toEqual(['a.txt']);
    await runner.close();
  });

  it('does not run the tool when the answer is no', async () => {
    const removed: string[] = [];
    const remove = tool({
      inputSchema: z.object({ file: z.string() }),
      needsApproval: true,
      execute: async ({ file }) => {
        removed.push(file);
        return file;
      },
    });
    const model = new MockLanguageModelV4({ doStream: [callDelete(), done()] });
    const agent = fromAiSdk(new ToolLoopAgent({ id: 'files', model, tools: { remove } }));
    const runner = createTaskRunner({ agent });
    const paused = await runner.submitAndWait('Delete a.txt');
    const finished = await runner.resumeAndWait(paused.id, {
      messageId: 'answer',
      role: 'user',
      parts: [{ kind: 'data', data: { approved: false } }],
    });
    expect(finished.status).toBe('completed');
    expect(removed).toEqual([]);
    await runner.close();
  });

  it('reads yes, no, and a data part {approved}, and nothing else, as an answer', () => {
    const of = (text: string) =>
      approvalAnswerOf({ messageId: 'm', role: 'user', parts: [{ kind: 'text', text }] });
    expect([of('yes'), of(' Y '), of('No.'), of('maybe')]).toEqual([true, true, false, undefined]);
  });
});
