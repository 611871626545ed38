import {
  type InputRequiredEvent,
  inputRequired,
  type Message,
  type Part,
  textOf,
} from '@agentport/core';
import { Command } from '@langchain/langgraph';

/** What a run paused by `interrupt()` keeps to resume: the graph's thread and the interrupt's id. */
export interface InterruptState {
  readonly threadId: string;
  readonly interruptId: string | undefined;
}

/** One interrupt as the graph's `updates` stream reports it under `__interrupt__`. */
export interface PendingInterrupt {
  readonly id?: string;
  readonly value?: unknown;
  /** The JSON Schema of the answer, when `interrupt(value, { responseSchema })` gave one. */
  readonly response_schema?: unknown;
}

/** The interrupt state a resumed run carries, if it is one of ours. */
export function interruptStateOf(state: unknown): InterruptState | undefined {
  if (state === null || typeof state !== 'object') return undefined;
  const { threadId, interruptId } = state as Partial<Record<keyof InterruptState, unknown>>;
  if (typeof threadId !== 'string') return undefined;
  return { threadId, interruptId: typeof interruptId === 'string' ? interruptId : undefined };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text an interrupt asks: its value when a string, else the value's string `question`, else
 * the value as JSON.
 */
export function interruptQuestion(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isPlainObject(value) && typeof value.question === 'string') return value.question;
  return JSON.stringify(value) ?? 'The agent needs your input';
}

/**
 * Pauses a run for an interrupt: its question as text (and an object value also as a data part,
 * for callers that read it), the JSON Schema of the answer when it has one, and what resuming
 * needs as the state.
 */
export function pauseForInterrupt(pending: PendingInterrupt, threadId: string): InputRequiredEvent {
  const question: Part[] = [{ kind: 'text', text: interruptQuestion(pending.value) }];
  if (isPlainObject(pending.value)) question.push({ kind: 'data', data: pending.value });
  const state: InterruptState = { threadId, interruptId: pending.id };
  if (!isPlainObject(pending.response_schema)) return inputRequired(question, { state });
  const { $schema: _dialect, ...schema } = pending.response_schema;
  return inputRequired(question, { state, schema });
}

/** The caller's answer: the data of its first data part, else its text. */
export function answerOf(message: Message): unknown {
  for (const part of message.parts) if (part.kind === 'data') return part.data;
  return textOf(message.parts);
}

/**
 * The `Command` that resumes the paused graph with the caller's answer: addressed to the interrupt
 * by its id (so an answer that is an object is never read as a map of ids), else to the next one.
 */
export function resumeCommand(state: InterruptState, message: Message): Command {
  const answer = answerOf(message);
  return new Command({
    resume: state.interruptId === undefined ? answer : { [state.interruptId]: answer },
  });
}
