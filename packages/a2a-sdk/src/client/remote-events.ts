import type { Message, Part, StreamResponse, Task, TaskStatus } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import type { AgentProgressEvent, InputRequiredEvent } from '@agentport/core';
import { AgentFailureError, inputRequired } from '@agentport/core';
import { remoteTaskError } from '@agentport/core/internal';
import { coreMessageOf } from '../store/task-view.ts';

/** What one remote event means locally: events to yield, and the output once the task is done. */
export interface Translation {
  events: AgentProgressEvent[];
  /** Set when the remote task completed (or answered with a message). */
  output?: string;
  /** Set when the remote task waits for input: the local run pauses with its question. */
  pause?: InputRequiredEvent;
}

/** What a local run that paused on a remote pause keeps: the remote task to answer, and its context. */
export interface RemotePause {
  readonly remoteTaskId: string;
  readonly remoteContextId: string;
}

/** The remote pause a local run's `resumeState` names, if it names one. */
export function remotePauseOf(resumeState: unknown): RemotePause | undefined {
  if (typeof resumeState !== 'object' || resumeState === null) return undefined;
  const { remoteTaskId, remoteContextId } = resumeState as Partial<RemotePause>;
  if (typeof remoteTaskId !== 'string' || remoteTaskId === '') return undefined;
  return {
    remoteTaskId,
    remoteContextId: typeof remoteContextId === 'string' ? remoteContextId : '',
  };
}

function textOf(parts: readonly Part[] | undefined): string {
  let text = '';
  for (const part of parts ?? []) {
    if (part.content?.$case === 'text') text += part.content.value;
  }
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Reads back the tool-call, tool-result and handoff events our servers put in status messages. */
function progressOf(message: Message | undefined): AgentProgressEvent[] {
  const events: AgentProgressEvent[] = [];
  for (const part of message?.parts ?? []) {
    if (part.content?.$case !== 'data' || !isRecord(part.content.value)) continue;
    const value = part.content.value;
    if (
      (value.type === 'tool-call' || value.type === 'tool-result') &&
      typeof value.id === 'string' &&
      typeof value.name === 'string'
    ) {
      events.push(
        value.type === 'tool-call'
          ? { type: 'tool-call', id: value.id, name: value.name, input: value.input }
          : { type: 'tool-result', id: value.id, name: value.name, output: value.output },
      );
    } else if (
      value.type === 'handoff' &&
      typeof value.from === 'string' &&
      typeof value.to === 'string'
    ) {
      events.push({ type: 'handoff', from: value.from, to: value.to });
    }
  }
  return events;
}

function errorCodeOf(message: Message | undefined): string | undefined {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case === 'data' && isRecord(part.content.value)) {
      const { type, code } = part.content.value;
      if (type === 'error' && typeof code === 'string') return code;
    }
  }
  return undefined;
}

/** The states a run ends on: terminal, or interrupted waiting for input a run cannot give. */
const SETTLED_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/**
 * Turns the events of one remote A2A task into local agent events: artifact text becomes
 * `text-delta`s, our status messages become tool and handoff events, and the final state becomes
 * the output (completed), a pause (input or auth required) or an error (failed, rejected,
 * canceled).
 */
export class RemoteTaskTranslator {
  readonly #agentName: string;
  /** The text of each artifact, by id, in the order they appeared. */
  readonly #artifacts = new Map<string, string>();
  #taskId: string | undefined;
  #contextId = '';
  #settled = false;

  constructor(agentName: string) {
    this.#agentName = agentName;
  }

  /** The remote task's id, once an event has named it. */
  get taskId(): string | undefined {
    return this.#taskId;
  }

  /**
   * Whether the remote task has reached a state a run ends on (completed, failed, rejected,
   * canceled, input or auth required), or the remote answered with a message.
   */
  get settled(): boolean {
    return this.#settled;
  }

  /** Translates one streamed event. */
  push(event: StreamResponse): Translation {
    const payload = event.payload;
    switch (payload?.$case) {
      case 'message': {
        this.#settled = true;
        const text = textOf(payload.value.parts);
        return { events: text === '' ? [] : [{ type: 'text-delta', delta: text }], output: text };
      }
      case 'task':
        return this.task(payload.value);
      case 'artifactUpdate': {
        this.#taskId ??= payload.value.taskId || undefined;
        this.#contextId ||= payload.value.contextId;
        const { artifact, append } = payload.value;
        if (artifact === undefined) return { events: [] };
        return { events: this.#artifactText(artifact.artifactId, textOf(artifact.parts), append) };
      }
      case 'statusUpdate':
        this.#taskId ??= payload.value.taskId || undefined;
        this.#contextId ||= payload.value.contextId;
        return this.#status(payload.value.status);
      default:
        return { events: [] };
    }
  }

  /** Translates a whole task (the first stream event, or a SendMessage result). */
  task(task: Task): Translation {
    this.#taskId ??= task.id || undefined;
    this.#contextId ||= task.contextId;
    const events: AgentProgressEvent[] = [];
    for (const artifact of task.artifacts ?? []) {
      events.push(...this.#artifactText(artifact.artifactId, textOf(artifact.parts), false));
    }
    const status = this.#status(task.status, false);
    return {
      events: [...events, ...status.events],
      ...(status.output === undefined ? {} : { output: status.output }),
      ...(status.pause === undefined ? {} : { pause: status.pause }),
    };
  }

  #artifactText(artifactId: string, text: string, append: boolean): AgentProgressEvent[] {
    const previous = this.#artifacts.get(artifactId);
    if (append && previous !== undefined) {
      this.#artifacts.set(artifactId, previous + text);
      return text === '' ? [] : [{ type: 'text-delta', delta: text }];
    }
    this.#artifacts.set(artifactId, text);
    // A replaced artifact only streams what extends the text already sent.
    const sent = previous ?? '';
    const delta = text.startsWith(sent) ? text.slice(sent.length) : '';
    return delta === '' ? [] : [{ type: 'text-delta', delta }];
  }

  /**
   * The local pause of a remote task waiting for input: its question (or a sentence saying it
   * waits), the remote task and context to answer as its state.
   */
  #pause(message: Message | undefined): InputRequiredEvent {
    const question = message === undefined ? [] : coreMessageOf(message).parts;
    const state: RemotePause = {
      remoteTaskId: this.#taskId ?? '',
      remoteContextId: this.#contextId,
    };
    return inputRequired(
      question.length === 0 ? `Remote agent '${this.#agentName}' waits for input` : question,
      { state },
    );
  }

  #status(status: TaskStatus | undefined, withProgress = true): Translation {
    const message = status?.message;
    if (status !== undefined && SETTLED_STATES.has(status.state)) this.#settled = true;
    switch (status?.state) {
      case TaskState.TASK_STATE_COMPLETED: {
        const output = [...this.#artifacts.values()].join('');
        return { events: [], output: output === '' ? textOf(message?.parts) : output };
      }
      case TaskState.TASK_STATE_FAILED:
      case TaskState.TASK_STATE_REJECTED:
        throw remoteTaskError({
          agentName: this.#agentName,
          code: errorCodeOf(message) ?? 'remote_task_failed',
          message: textOf(message?.parts) || `Remote agent '${this.#agentName}' failed`,
        });
      case TaskState.TASK_STATE_CANCELED:
        throw new AgentFailureError({
          agentName: this.#agentName,
          code: 'remote_task_canceled',
          message: `The task of remote agent '${this.#agentName}' was canceled`,
        });
      case TaskState.TASK_STATE_INPUT_REQUIRED:
      case TaskState.TASK_STATE_AUTH_REQUIRED:
        return { events: [], pause: this.#pause(message) };
      default:
        return { events: withProgress ? progressOf(message) : [] };
    }
  }
}
