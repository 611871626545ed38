import type { InputRequiredEvent } from '../agent-event.ts';
import { textOf } from '../message.ts';
import { AgentPortError } from './agentport-error.ts';

/**
 * `invoke` of a run that paused for its caller (409): the run asked a question, which only a
 * task can carry on from. Run the agent as a task (or read its `stream`) to answer it.
 */
export class InputRequiredError extends AgentPortError {
  /** The agent that asked. */
  readonly agentName: string;
  /** The event it paused with: the question, the schema of the answer, its state. */
  readonly event: InputRequiredEvent;

  constructor(agentName: string, event: InputRequiredEvent) {
    const question = textOf(event.question);
    super({
      code: 'input_required',
      message: `Agent '${agentName}' asks for input${question === '' ? '' : `: ${question}`}`,
      status: 409,
    });
    this.name = 'InputRequiredError';
    this.agentName = agentName;
    this.event = event;
  }
}
