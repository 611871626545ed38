import { ContextNotFoundError } from '../errors/context-not-found-error.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { jsonWeight } from '../json-weight.ts';
import { type Message, messageFault } from '../message.ts';
import { frozenMessage } from '../tasks/memory-task-changes.ts';
import type {
  Conversation,
  ConversationAppend,
  ConversationReadOptions,
  ConversationStore,
} from './conversation-store.ts';

/** Bounds of the in-memory conversation store. */
export interface MemoryConversationStoreOptions {
  /** How many conversations it keeps; past it the least recently changed go first (default 10,000). */
  maxConversations?: number;
  /** How many messages one conversation keeps; past it its oldest go first (default 200). */
  maxMessagesPerConversation?: number;
  /**
   * How much memory its messages may hold, roughly, in bytes (see `jsonWeight`); past it the
   * least recently changed conversations go first (default 64 MiB).
   */
  maxBytes?: number;
  /** How long a conversation is kept after its last change, in milliseconds (default one hour). */
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

interface Entry {
  readonly agentName: string;
  messages: Message[];
  /** The bytes of each message, in the same order. */
  weights: number[];
  bytes: number;
  waitingTaskId: string | undefined;
  changedAt: number;
}

/** What an entry holds besides its messages, roughly. */
const ENTRY_BYTES = 200;
const HOUR_MS = 60 * 60 * 1000;

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) {
    throw new InvalidInputError(`${field} must be a positive integer`, { field });
  }
  return value;
}

function assertAppend(contextId: string, change: ConversationAppend): void {
  if (typeof contextId !== 'string' || contextId === '') {
    throw new InvalidInputError('contextId must be a non-empty string', { field: 'contextId' });
  }
  if (!Array.isArray(change.messages)) throw new TypeError('messages must be an array');
  for (const message of change.messages) {
    const fault = messageFault(message);
    if (fault !== undefined) throw new TypeError(`A conversation message must not be ${fault}`);
  }
}

/**
 * Creates the in-memory conversation store: bounded by count, messages per conversation, bytes
 * and age (each drops the oldest first), checked as it is written.
 *
 * @example
 * const conversations = createMemoryConversationStore({ maxMessagesPerConversation: 50 });
 * const runner = createTaskRunner({ agent, conversations });
 */
export function createMemoryConversationStore(
  options: MemoryConversationStoreOptions = {},
): ConversationStore {
  const maxConversations = positive(options.maxConversations, 10_000, 'maxConversations');
  const maxMessages = positive(
    options.maxMessagesPerConversation,
    200,
    'maxMessagesPerConversation',
  );
  const maxBytes = positive(options.maxBytes, 64 * 1024 * 1024, 'maxBytes');
  const ttlMs = positive(options.ttlMs, HOUR_MS, 'ttlMs');
  const now = options.now ?? Date.now;
  // Map order is change order: a change moves its conversation to the end.
  const entries = new Map<string, Entry>();
  let totalBytes = 0;

  function live(contextId: string): Entry | undefined {
    const entry = entries.get(contextId);
    if (entry === undefined) return undefined;
    if (now() - entry.changedAt < ttlMs) return entry;
    remove(contextId, entry);
    return undefined;
  }

  function remove(contextId: string, entry: Entry): void {
    entries.delete(contextId);
    totalBytes -= entry.bytes;
  }

  function trim(entry: Entry): void {
    let drop = 0;
    let dropped = 0;
    while (entry.messages.length - drop > maxMessages) {
      dropped += entry.weights[drop] as number;
      drop += 1;
    }
    if (drop === 0) return;
    entry.messages.splice(0, drop);
    entry.weights.splice(0, drop);
    entry.bytes -= dropped;
    totalBytes -= dropped;
  }

  function evict(keep: string): void {
    for (const [contextId, entry] of entries) {
      if (entries.size <= maxConversations && totalBytes <= maxBytes) return;
      if (contextId !== keep) remove(contextId, entry);
    }
  }

  function view(contextId: string, entry: Entry, limit: number | undefined): Conversation {
    const messages =
      limit !== undefined && limit < entry.messages.length
        ? entry.messages.slice(entry.messages.length - limit)
        : entry.messages.slice();
    return Object.freeze({
      contextId,
      agentName: entry.agentName,
      messages: Object.freeze(messages),
      ...(entry.waitingTaskId === undefined ? {} : { waitingTaskId: entry.waitingTaskId }),
      updatedAt: new Date(entry.changedAt).toISOString(),
    });
  }

  function append(contextId: string, change: ConversationAppend): void {
    assertAppend(contextId, change);
    let entry = live(contextId);
    if (entry !== undefined && entry.agentName !== change.agentName) {
      throw new ContextNotFoundError(contextId);
    }
    if (entry === undefined) {
      entry = {
        agentName: change.agentName,
        messages: [],
        weights: [],
        bytes: ENTRY_BYTES + 2 * contextId.length,
        waitingTaskId: undefined,
        changedAt: 0,
      };
      totalBytes += entry.bytes;
    }
    for (const given of change.messages) {
      const message = frozenMessage(given);
      const weight = jsonWeight(message);
      entry.messages.push(message);
      entry.weights.push(weight);
      entry.bytes += weight;
      totalBytes += weight;
    }
    if (change.waitingTaskId !== undefined) {
      entry.waitingTaskId = change.waitingTaskId ?? undefined;
    }
    entry.changedAt = now();
    entries.delete(contextId);
    entries.set(contextId, entry);
    trim(entry);
    evict(contextId);
  }

  return {
    get(contextId: string, readOptions: ConversationReadOptions = {}) {
      const entry = live(contextId);
      return Promise.resolve(
        entry === undefined ? undefined : view(contextId, entry, readOptions.limit),
      );
    },
    append(contextId, change) {
      try {
        append(contextId, change);
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    deleteExpired(at = new Date(now())) {
      let removed = 0;
      for (const [contextId, entry] of entries) {
        // Change order is age order: the first young one ends the sweep.
        if (at.getTime() - entry.changedAt < ttlMs) break;
        remove(contextId, entry);
        removed += 1;
      }
      return Promise.resolve(removed);
    },
  };
}
