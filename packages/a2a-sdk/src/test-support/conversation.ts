import { Role, SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { expect } from 'vitest';

/** What a follow-up message names: the task it answers and (or) its conversation. */
export interface MessageTarget {
  taskId?: string;
  contextId?: string;
  historyLength?: number;
}

/** A blocking SendMessage request of one text part, naming a task and (or) a context. */
export function messageTo(text: string, target: MessageTarget = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: globalThis.crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(target.taskId === undefined ? {} : { taskId: target.taskId }),
      ...(target.contextId === undefined ? {} : { contextId: target.contextId }),
    },
    configuration: {
      returnImmediately: false,
      ...(target.historyLength === undefined ? {} : { historyLength: target.historyLength }),
    },
  });
}

/** The result of a SendMessage, checked to be a task. */
export function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

/** Every event of a stream. */
export async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** The texts of a task's history, oldest first, each prefixed by its role (`user:`, `agent:`). */
export function historyOf(task: Task): string[] {
  return (task.history ?? []).map((message) => {
    const text = message.parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    return `${message.role === Role.ROLE_AGENT ? 'agent' : 'user'}: ${text}`;
  });
}
