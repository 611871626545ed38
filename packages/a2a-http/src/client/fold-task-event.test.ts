import type { Task } from '@agentport/core';
import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../errors/malformed-response-error.ts';
import { foldTaskEvent } from './fold-task-event.ts';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  agentName: 'fake',
  status: 'working',
  statusMessage: { messageId: 'm0', role: 'agent', parts: [{ kind: 'text', text: 'busy' }] },
  input: 'x',
  output: 'so far',
  messages: [],
  artifacts: [],
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  seq: 4,
};

const fold = (from: Task, seq: number, event: { type: string } & Record<string, unknown>) =>
  foldTaskEvent('watchTask', from, seq, event.type, JSON.stringify(event));

describe('foldTaskEvent', () => {
  it('grows the output by a text delta and sets seq', () => {
    expect(fold(task, 5, { type: 'text-delta', delta: '!' })).toMatchObject({
      output: 'so far!',
      seq: 5,
    });
  });

  it("keeps a pause's inputSchema while paused, and drops it once the task runs again", () => {
    const message = { messageId: 'q', role: 'agent', parts: [{ kind: 'text', text: 'How many?' }] };
    const schema = { type: 'integer' };
    const at = '2026-01-01T00:00:01.000Z';
    const paused = fold(task, 5, {
      type: 'status-update',
      status: 'input-required',
      timestamp: at,
      message,
      inputSchema: schema,
    });
    expect(paused).toMatchObject({
      status: 'input-required',
      statusMessage: message,
      inputSchema: schema,
    });
    const stillPaused = fold(paused, 6, {
      type: 'status-update',
      status: 'input-required',
      timestamp: at,
    });
    expect(stillPaused.inputSchema).toEqual(schema);
    const working = fold(paused, 7, { type: 'status-update', status: 'working', timestamp: at });
    expect(working.inputSchema).toBeUndefined();
    expect(working.statusMessage).toBeUndefined();
  });

  it('adds a message to the history', () => {
    const message = { messageId: 'm1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] };
    expect(fold(task, 5, { type: 'message', message }).messages).toEqual([message]);
  });

  it('starts, appends to and replaces artifacts chunk by chunk, keeping a name', () => {
    const text = (value: string) => ({ kind: 'text', text: value });
    const chunk = (parts: unknown[], append: boolean, name?: string) => ({
      type: 'artifact-update',
      artifactId: 'a1',
      ...(name === undefined ? {} : { name }),
      parts,
      append,
      lastChunk: false,
    });
    const started = fold(task, 5, chunk([text('a')], false, 'report'));
    const appended = fold(started, 6, chunk([text('b')], true));
    expect(appended.artifacts).toEqual([
      { artifactId: 'a1', name: 'report', parts: [text('a'), text('b')] },
    ]);
    const replaced = fold(appended, 7, chunk([text('c')], false));
    expect(replaced.artifacts).toEqual([{ artifactId: 'a1', name: 'report', parts: [text('c')] }]);
  });

  it('sets the status, clears the status message and takes the output and error it carries', () => {
    const failed = fold(task, 5, {
      type: 'status-update',
      status: 'failed',
      timestamp: '2026-01-01T00:00:01.000Z',
      output: 'partial',
      error: { code: 'agent_failure', message: 'boom' },
    });
    expect(failed).toMatchObject({
      status: 'failed',
      output: 'partial',
      error: { code: 'agent_failure', message: 'boom' },
      updatedAt: '2026-01-01T00:00:01.000Z',
      seq: 5,
    });
    expect(failed).not.toHaveProperty('statusMessage');
  });

  it('changes nothing but seq for other progress events', () => {
    const event = { type: 'tool-call', id: 'c1', name: 'add', input: {} };
    expect(fold(task, 5, event)).toEqual({ ...task, seq: 5 });
  });

  it('refuses a malformed event as malformed_response', () => {
    expect(() => fold(task, 5, { type: 'text-delta', delta: 3 })).toThrow(MalformedResponseError);
    expect(() => foldTaskEvent('watchTask', task, 5, 'message', '{')).toThrow(
      MalformedResponseError,
    );
  });
});
