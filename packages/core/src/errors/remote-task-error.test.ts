import { describe, expect, it } from 'vitest';
import { AgentFailureError } from './agent-failure-error.ts';
import { remoteTaskError } from './remote-task-error.ts';

describe('remoteTaskError', () => {
  it.each(['invalid_input', 'invalid_tool_arguments'])(
    'makes a remote %s the caller error it would be locally (400)',
    (code) => {
      const error = remoteTaskError({ agentName: 'far', code, message: 'No such input' });
      expect(error).not.toBeInstanceOf(AgentFailureError);
      expect(error).toMatchObject({ code, status: 400, message: 'No such input' });
    },
  );

  it('makes any other failure an AgentFailureError with the remote code and message', () => {
    const error = remoteTaskError({ agentName: 'far', code: 'quota_exceeded', message: 'Out' });
    expect(error).toBeInstanceOf(AgentFailureError);
    expect(error).toMatchObject({ code: 'quota_exceeded', status: 500, message: 'Out' });
    expect(remoteTaskError({ agentName: 'far' })).toMatchObject({
      code: 'agent_failure',
      message: "Agent 'far' failed",
    });
  });
});
