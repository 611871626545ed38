import { AgentPortError } from './agentport-error.ts';

/**
 * A task's events were asked for from a point its store no longer keeps them from: retention
 * dropped them (410). Never answered with a gap instead.
 */
export class EventsExpiredError extends AgentPortError {
  /** The task whose events were asked for. */
  readonly taskId: string;
  /** The sequence number the events were asked for after. */
  readonly after: number;
  /** The smallest `after` the store can still answer (the sequence number before the oldest event it keeps). */
  readonly earliestAfter: number;

  constructor(taskId: string, after: number, earliestAfter: number) {
    super({
      code: 'events_expired',
      message: `The events of task '${taskId}' after ${after} are no longer kept: the earliest it can resume after is ${earliestAfter}`,
      status: 410,
    });
    this.name = 'EventsExpiredError';
    this.taskId = taskId;
    this.after = after;
    this.earliestAfter = earliestAfter;
  }
}
