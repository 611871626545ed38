import type { Message } from '../message.ts';

/** One conversation: the messages of a `contextId`, owned by the agent that first had it. */
export interface Conversation {
  readonly contextId: string;
  /** The agent it belongs to: no other agent's run reads or joins it. */
  readonly agentName: string;
  /** Its messages (user and agent), oldest first: the newest ones the store keeps, or asked for. */
  readonly messages: readonly Message[];
  /** The task of it that waits for the caller's input, when one does (a hint: check the task). */
  readonly waitingTaskId?: string;
  /** When it last changed, as ISO 8601. */
  readonly updatedAt: string;
}

/** A change to a conversation, appended by {@link ConversationStore.append}. */
export interface ConversationAppend {
  /** The agent whose conversation it is; it creates it when there is none. */
  agentName: string;
  /** Messages added after the ones it has. */
  messages: readonly Message[];
  /** The task now waiting for input in it, or null when none is any more (default: unchanged). */
  waitingTaskId?: string | null;
}

/** Which messages of a conversation to read. */
export interface ConversationReadOptions {
  /** At most this many, the newest (default: all it keeps). */
  limit?: number;
}

/**
 * Asynchronous, pluggable storage of conversations by `contextId`, next to the task store: the
 * surfaces' runners append each finished turn (the caller's message and the agent's answer, or
 * its question), and a run reads the earlier messages as its history. A store bounds what it
 * keeps: a long conversation drops its oldest messages first.
 */
export interface ConversationStore {
  /**
   * A new, unguessable name for a conversation its caller starts (a turn that named none): what
   * a store can keep cheaply (the memory store keeps one-turn conversations it named in a ring).
   */
  newContextId(): string;
  /** The conversation, or undefined when there is none (or it expired). */
  get(contextId: string, options?: ConversationReadOptions): Promise<Conversation | undefined>;
  /**
   * Appends messages to a conversation, creating it for `change.agentName` when there is none;
   * ContextNotFoundError when it belongs to another agent (never mixed).
   */
  append(contextId: string, change: ConversationAppend): Promise<void>;
  /** Removes the conversations whose retention has run out; resolves with how many. */
  deleteExpired(now?: Date): Promise<number>;
}
