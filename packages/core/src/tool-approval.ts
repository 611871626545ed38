import type { Message } from './message.ts';

/** The question a run pauses with for a tool call's approval: the tool and its input, yes or no. */
export function approvalQuestion(toolName: string, input: unknown): string {
  return `Approve the call of tool '${toolName}' with input ${JSON.stringify(input)}? Answer yes or no.`;
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
