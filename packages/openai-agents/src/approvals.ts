import { type InputRequiredEvent, inputRequired } from '@agentport/core';
import { approvalQuestion } from '@agentport/core/internal';
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

/** Pauses a run for the approval of one tool call. */
export function pauseForApproval(state: ApprovalState): InputRequiredEvent {
  return inputRequired(approvalQuestion(state.toolName, state.input), { state });
}
