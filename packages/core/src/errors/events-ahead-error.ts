import { AgentPortError } from './agentport-error.ts';

/**
 * A task's events were asked for after a sequence number it has not reached: its last event is
 * older (400). A reader resuming from an id that stream never sent, or from another task's.
 */
export class EventsAheadError extends AgentPortError {
  /** The task whose events were asked for. */
  readonly taskId: string;
  /** The sequence number the events were asked for after. */
  readonly after: number;
  /** The sequence number of the task's last event. */
  readonly lastSeq: number;

  constructor(taskId: string, after: number, lastSeq: number) {
    super({
      code: 'events_ahead',
      message: `Task '${taskId}' has no event ${after}: its last event is ${lastSeq}`,
      status: 400,
    });
    this.name = 'EventsAheadError';
    this.taskId = taskId;
    this.after = after;
    this.lastSeq = lastSeq;
  }
}
