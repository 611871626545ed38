import { describe, expect, it } from 'vitest';
import { AgentFailureError } from './agent-failure-error.ts';
import { AgentNotFoundError } from './agent-not-found-error.ts';
import { AgentPortError } from './agentport-error.ts';
import { CancellationError } from './cancellation-error.ts';
import { DuplicateAgentError } from './duplicate-agent-error.ts';
import { EventsAheadError } from './events-ahead-error.ts';
import { EventsExpiredError } from './events-expired-error.ts';
import { InvalidInputError } from './invalid-input-error.ts';
import { InvalidTransitionError } from './invalid-transition-error.ts';
import { RemoteUnavailableError } from './remote-unavailable-error.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';
import { TaskConflictError } from './task-conflict-error.ts';
import { TaskNotCancelableError } from './task-not-cancelable-error.ts';
import { TaskNotFoundError } from './task-not-found-error.ts';
import { toAgentPortError } from './to-agentport-error.ts';
import { ToolArgumentsError } from './tool-arguments-error.ts';

describe('AgentPortError', () => {
  it.each([
    [new InvalidInputError('bad'), 'invalid_input', 400],
    [new AgentNotFoundError('x'), 'agent_not_found', 404],
    [new DuplicateAgentError('x'), 'duplicate_agent', 409],
    [new TaskNotFoundError('t1'), 'task_not_found', 404],
    [new TaskNotCancelableError('t1', 'completed'), 'task_not_cancelable', 409],
    [new TaskConflictError('t1', 'working'), 'task_conflict', 409],
    [new InvalidTransitionError('completed', 'working'), 'invalid_transition', 409],
    [new AgentFailureError({ agentName: 'a' }), 'agent_failure', 500],
    [new CancellationError(), 'canceled', 409],
    [new ToolArgumentsError('calc', 'missing x'), 'invalid_tool_arguments', 400],
    [new RemoteUnavailableError('far'), 'remote_unavailable', 503],
    [new StoreUnavailableError(), 'store_unavailable', 503],
    [new EventsAheadError('t1', 9, 4), 'events_ahead', 400],
    [new EventsExpiredError('t1', 2, 30), 'events_expired', 410],
  ])('gives %o a stable code and status', (error, code, status) => {
    expect(error).toBeInstanceOf(AgentPortError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(AgentPortError.isInstance(error)).toBe(true);
  });

  it.each([200, 204, 302, 399, 600, 999, 404.5, Number.NaN, '404'])(
    'takes status %o, which would not read as an error, as 500',
    (status) => {
      const error = new AgentPortError({ code: 'odd', message: 'odd', status: status as number });
      expect(error.status).toBe(500);
    },
  );

  it('keeps every status from 400 to 599', () => {
    for (const status of [400, 404, 429, 499, 503, 599]) {
      expect(new AgentPortError({ code: 'x', message: 'x', status }).status).toBe(status);
    }
  });

  it('recognises errors from another copy of the package by their brand', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('agentport.error')]: true });
    expect(AgentPortError.isInstance(foreign)).toBe(true);
    expect(AgentPortError.isInstance(new Error('plain'))).toBe(false);
    expect(AgentPortError.isInstance(null)).toBe(false);
  });

  it('tells the classes apart: a subclass recognises only its own errors', () => {
    const failure = new AgentFailureError({ agentName: 'a' });
    expect(AgentFailureError.isInstance(failure)).toBe(true);
    expect(CancellationError.isInstance(failure)).toBe(false);
    expect(AgentPortError.isInstance(new CancellationError())).toBe(true);
    expect(CancellationError.isInstance(new CancellationError())).toBe(true);
  });

  it("recognises a subclass's errors made by another copy of the package by its name", () => {
    const brandKey = Symbol.for('agentport.error');
    // A stand-in for another copy's class of the same name.
    const Foreign = class CancellationError extends Error {
      readonly [brandKey] = true;
    };
    expect(CancellationError.isInstance(new Foreign('x'))).toBe(true);
    expect(AgentFailureError.isInstance(new Foreign('x'))).toBe(false);
  });

  it('carries typed context', () => {
    expect(new TaskNotFoundError('t9').taskId).toBe('t9');
    expect(new AgentNotFoundError('echo').agentName).toBe('echo');
    expect(new TaskNotCancelableError('t1', 'failed').taskStatus).toBe('failed');
    const ahead = new EventsAheadError('t1', 9, 4);
    expect([ahead.taskId, ahead.after, ahead.lastSeq]).toEqual(['t1', 9, 4]);
    expect(ahead.message).toBe("Task 't1' has no event 9: its last event is 4");
    const expired = new EventsExpiredError('t1', 2, 30);
    expect([expired.taskId, expired.after, expired.earliestAfter]).toEqual(['t1', 2, 30]);
    expect(expired.message).toContain('the earliest it can resume after is 30');
    const unavailable = new RemoteUnavailableError('far', { retryAfterSeconds: 4 });
    expect([unavailable.agentName, unavailable.retryAfterSeconds]).toEqual(['far', 4]);
  });

  it('hides the message of an unknown error behind a generic internal error', () => {
    const secret = new Error('password=hunter2');
    const error = toAgentPortError(secret);
    expect(error.code).toBe('internal_error');
    expect(error.status).toBe(500);
    expect(error.message).not.toContain('hunter2');
    expect(error.cause).toBe(secret);
    const known = new TaskNotFoundError('t1');
    expect(toAgentPortError(known)).toBe(known);
  });
});
