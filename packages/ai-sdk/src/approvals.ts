import { type InputRequiredOptions, inputRequired } from '@agentport/core';
import { approvalQuestion } from '@agentport/core/internal';
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

/** Pauses a run for the approval of one tool call. */
export function pauseForApproval(state: ApprovalState): ReturnType<typeof inputRequired> {
  const options: InputRequiredOptions = { state };
  return inputRequired(approvalQuestion(state.toolName, state.input), options);
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
