import { type InputRequiredOptions, inputRequired, type Message } from '@agentport/core';
import type { ModelMessage } from 'ai';

/** What a run paused for an approval keeps: the conversation as the model saw it, and what it asked. */
export interface ApprovalState {
  readonly approvalId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly messages: ModelMessage[];
}

/** The approval state a resumed run carries, if it is one of ours. */
export function approvalStateOf(state: unknown): ApprovalState | undefined {
  if (state === null || typeof state !== 'object') return undefined;
  const candidate = state as Partial<ApprovalState>;
  return typeof candidate.approvalId === 'string' && Array.isArray(candidate.messages)
    ? (candidate as ApprovalState)
    : undefined;
}

/** The question a run pauses with: the tool and its input, answered by yes or no. */
export function approvalQuestion(toolName: string, input: unknown): string {
  return `Approve the call of tool '${toolName}' with input ${JSON.stringify(input)}? Answer yes or no.`;
}

/** Pauses a run for the approval of one tool call. */
export function pauseForApproval(state: ApprovalState): ReturnType<typeof inputRequired> {
  const options: InputRequiredOptions = { state };
  return inputRequired(approvalQuestion(state.toolName, state.input), options);
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

/** The model messages of a resumed run: those it paused with, and the approval response. */
export function resumedMessages(state: ApprovalState, approved: boolean): ModelMessage[] {
  return [
    ...state.messages,
    {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: state.approvalId, approved }],
    },
  ];
}
