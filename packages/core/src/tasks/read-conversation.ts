import type {
  Conversation,
  ConversationReadOptions,
  ConversationStore,
} from '../conversations/conversation-store.ts';
import { toAgentPortError } from '../errors/to-agentport-error.ts';
import { agentMessage, type Message, userMessage } from '../message.ts';
import type { Task } from './task.ts';
import type { TaskStore } from './task-store.ts';

/** A completed task's one turn: its history (its input, when it kept no message) and its answer. */
function turnOf(task: Task): Message[] {
  const messages = task.messages.length > 0 ? [...task.messages] : [userMessage(task.input)];
  messages.push(agentMessage(task.output ?? ''));
  return messages;
}

/**
 * A conversation as every reader must read it: from the conversation store, or, when it has
 * none of that id, from the task that started it. A runner does not write the one turn of a task
 * that completed in a conversation of its own (named by its id, most tasks): the task holds it,
 * and the conversation is written from it when a second turn names it. Resolves undefined when
 * neither has it.
 */
export async function readConversation(
  store: TaskStore,
  conversations: ConversationStore,
  contextId: string,
  options?: ConversationReadOptions,
): Promise<Conversation | undefined> {
  const kept = await conversations.get(contextId, options);
  if (kept !== undefined) return kept;
  const task = await store.get(contextId);
  if (task === undefined || task.contextId !== contextId || task.status !== 'completed') {
    return undefined;
  }
  const messages = turnOf(task);
  await conversations.append(contextId, { agentName: task.agentName, messages }).catch((error) => {
    // Written meanwhile, by whichever reader came first: read as it is.
    if (toAgentPortError(error).code !== 'context_not_found') throw error;
  });
  return conversations.get(contextId, options);
}
