import { type InputRequiredEvent, inputRequired, type Message } from '@agentport/core';
import type { RunToolApprovalItem } from '@openai/agents';

/** What a run paused for an approval keeps: the SDK's serialized RunState, and the call it asks about. */
export interface ApprovalState {
  /** `RunState.toString()` of the interrupted run. */
  readonly runState: string;
  /** The call id of the interruption asked about. */
  readonly callId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** The approval state a resumed run carries, if it is one of ours. */
export function approvalStateOf(state: unknown): ApprovalState | undefined {
  if (state === null || typeof state !== 'object') return undefined;
  const candidate = state as Partial<ApprovalState>;
  return typeof candidate.runState === 'string' &&
    typeof candidate.callId === 'string' &&
    typeof candidate.toolName === 'string'
    ? (candidate as ApprovalState)
    : undefined;
}

/** A tool call's arguments as JSON when they parse, else as the text the model wrote. */
export function parseArguments(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The call id of an interruption: the id the model gave its call, else the item's own id. */
export function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: unknown; id?: unknown };
  if (typeof raw.callId === 'string') return raw.callId;
  return typeof raw.id === 'string' ? raw.id : '';
}

/** The state to pause with for one interruption of a run whose state serializes as `runState`. */
export function approvalStateFor(runState: string, item: RunToolApprovalItem): ApprovalState {
  return {
    runState,
    callId: callIdOf(item),
    toolName: item.name ?? 'tool',
    input: parseArguments(item.arguments),
  };
}

/** The question a run pauses with: the tool and its input, answered by yes or no. */
export function approvalQuestion(toolName: string, input: unknown): string {
  return `Approve the call of tool '${toolName}' with input ${JSON.stringify(input)}? Answer yes or no.`;
}

/** Pauses a run for the approval of one tool call. */
export function pauseForApproval(state: ApprovalState): InputRequiredEvent {
  return inputRequired(approvalQuestion(state.toolName, state.input), { state });
}

const YES = /^\s*(yes|y|approve|approved|ok)\s*[.!]?\s*$/i;
const NO = /^\s*(no|n|deny|denied|reject|rejected)\s*[.!]?\s*$/i;

/** The caller's answer: a data part `{approved: boolean}`, else a text of yes or no; else undefined. */
export function approvalAnswerOf(message: Message): boolean | undefined {
  for (const part of message.parts) {
    if (part.kind === 'data' && typeof part.data.approved === 'boolean') return part.data.approved;
  }
  const text = message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
  if (YES.test(text)) return true;
  if (NO.test(text)) return false;
  return undefined;
}
