import { ContextNotFoundError } from '../errors/context-not-found-error.ts';
import { InvalidInputError } from '../errors/invalid-input-error.ts';
import { randomUuid } from '../internal/random-uuid.ts';
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

/**
 * One conversation. A message of one text part (most) is kept as its text alone, its role in
 * `roles` (`u` or `a` at the same index): a conversation kept an hour under load is one of
 * thousands, and every object kept per message costs every scavenge a copy (decision 0005).
 */
interface Entry {
  readonly agentName: string;
  /** Its messages, oldest first: a text, or a message kept whole. */
  items: Array<string | Message>;
  /** The role of each item, one letter each. */
  roles: string;
  /** How many of its messages were dropped: the index of `items[0]` among all it had. */
  dropped: number;
  bytes: number;
  waitingTaskId: string | undefined;
  changedAt: number;
  /** Its neighbours in change order (a list: a Map iterated from its start after many deletes skips every hole). */
  older: Entry | undefined;
  newer: Entry | undefined;
  readonly contextId: string;
  /** Its slot in the ring of one-turn conversations the store named, or -1 (in the map). */
  slot: number;
}

/** What an entry holds besides its messages, roughly. */
const ENTRY_BYTES = 200;
/** What a text kept alone holds besides its characters: its header and its place in `items`. */
const TEXT_ITEM_BYTES = 24 + 16;
const HOUR_MS = 60 * 60 * 1000;
/** The `.` between a ring name's UUID and its slot. */
const DOT = 0x2e;

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

/** The in-memory store's entries, in change order (a change moves its conversation to the end). */
class MemoryConversations implements ConversationStore {
  readonly #maxConversations: number;
  readonly #maxMessages: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /**
   * The conversations named by `newContextId`, by the slot their id ends with, while they have
   * one turn (most never get a second): no map to hash into or delete from. A second turn moves
   * one to the map.
   */
  readonly #ring: Array<Entry | string | undefined>;
  #nextSlot = 0;
  #ringCount = 0;
  /** The least and the most recently changed conversations. */
  #oldest: Entry | undefined;
  #newest: Entry | undefined;
  #totalBytes = 0;

  constructor(options: MemoryConversationStoreOptions) {
    this.#maxConversations = positive(options.maxConversations, 10_000, 'maxConversations');
    this.#maxMessages = positive(
      options.maxMessagesPerConversation,
      200,
      'maxMessagesPerConversation',
    );
    this.#maxBytes = positive(options.maxBytes, 64 * 1024 * 1024, 'maxBytes');
    this.#ttlMs = positive(options.ttlMs, HOUR_MS, 'ttlMs');
    this.#now = options.now ?? Date.now;
    this.#ring = new Array(this.#maxConversations);
  }

  newContextId(): string {
    const slot = this.#nextSlot;
    this.#nextSlot = (slot + 1) % this.#ring.length;
    const held = this.#ring[slot];
    // The oldest one-turn conversation named (or a name never used) gives its slot up.
    if (typeof held === 'object') this.#remove(held);
    const contextId = `${randomUuid()}.${slot.toString(36)}`;
    this.#ring[slot] = contextId;
    return contextId;
  }

  get(contextId: string, options: ConversationReadOptions = {}): Promise<Conversation | undefined> {
    const entry = this.#live(contextId);
    return Promise.resolve(entry === undefined ? undefined : view(contextId, entry, options.limit));
  }

  append(contextId: string, change: ConversationAppend): Promise<void> {
    try {
      this.#append(contextId, change);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  deleteExpired(at = new Date(this.#now())): Promise<number> {
    let removed = 0;
    // Change order is age order: the first young one ends the sweep.
    for (let entry = this.#oldest; entry !== undefined; entry = this.#oldest) {
      if (at.getTime() - entry.changedAt < this.#ttlMs) break;
      this.#remove(entry);
      removed += 1;
    }
    return Promise.resolve(removed);
  }

  /** The ring slot of a name `newContextId` gave and still holds, else -1. */
  #slotOf(contextId: string): number {
    if (contextId.length < 38 || contextId.charCodeAt(36) !== DOT) return -1;
    const slot = Number.parseInt(contextId.slice(37), 36);
    const held = this.#ring[slot];
    return held === contextId || (typeof held === 'object' && held.contextId === contextId)
      ? slot
      : -1;
  }

  #live(contextId: string): Entry | undefined {
    const slot = this.#slotOf(contextId);
    // A name it gave is in the ring (its conversation, or the name alone before its first turn).
    const held = slot === -1 ? this.#entries.get(contextId) : this.#ring[slot];
    const entry = typeof held === 'object' ? held : undefined;
    if (entry === undefined) return undefined;
    if (this.#now() - entry.changedAt < this.#ttlMs) return entry;
    this.#remove(entry);
    return undefined;
  }

  #remove(entry: Entry): void {
    if (entry.slot === -1) this.#entries.delete(entry.contextId);
    else {
      this.#ring[entry.slot] = undefined;
      this.#ringCount -= 1;
    }
    this.#unlink(entry);
    this.#totalBytes -= entry.bytes;
  }

  #unlink(entry: Entry): void {
    const { older, newer } = entry;
    if (older === undefined) this.#oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.#newest = older;
    else newer.older = older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  /** Makes an entry the most recently changed. */
  #touch(entry: Entry): void {
    if (this.#newest === entry) return;
    if (entry.older !== undefined || entry.newer !== undefined || this.#oldest === entry) {
      this.#unlink(entry);
    }
    entry.older = this.#newest;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
  }

  #append(contextId: string, change: ConversationAppend): void {
    assertAppend(contextId, change);
    let entry = this.#live(contextId);
    if (entry !== undefined && entry.agentName !== change.agentName) {
      throw new ContextNotFoundError(contextId);
    }
    if (entry !== undefined && entry.slot !== -1) this.#toMap(entry);
    if (entry === undefined) {
      const slot = this.#slotOf(contextId);
      entry = {
        contextId,
        agentName: change.agentName,
        items: [],
        roles: '',
        dropped: 0,
        bytes: ENTRY_BYTES + 2 * contextId.length,
        waitingTaskId: undefined,
        changedAt: 0,
        older: undefined,
        newer: undefined,
        slot,
      };
      if (slot === -1) this.#entries.set(contextId, entry);
      else {
        this.#ring[slot] = entry;
        this.#ringCount += 1;
      }
      this.#totalBytes += entry.bytes;
    }
    for (const given of change.messages) {
      const item = itemOf(given);
      const weight = itemBytes(item);
      entry.items.push(item);
      entry.roles += given.role === 'user' ? 'u' : 'a';
      entry.bytes += weight;
      this.#totalBytes += weight;
    }
    if (change.waitingTaskId !== undefined) entry.waitingTaskId = change.waitingTaskId ?? undefined;
    entry.changedAt = this.#now();
    this.#touch(entry);
    this.#totalBytes -= trim(entry, this.#maxMessages);
    this.#evict(entry);
  }

  /** A one-turn conversation of the ring gets a second turn: it moves to the map. */
  #toMap(entry: Entry): void {
    this.#ring[entry.slot] = undefined;
    this.#ringCount -= 1;
    entry.slot = -1;
    this.#entries.set(entry.contextId, entry);
  }

  /** Drops the least recently changed conversations (never `keep`) while over a bound. */
  #evict(keep: Entry): void {
    while (
      this.#entries.size + this.#ringCount > this.#maxConversations ||
      this.#totalBytes > this.#maxBytes
    ) {
      const oldest = this.#oldest;
      if (oldest === undefined || oldest === keep) return;
      this.#remove(oldest);
    }
  }
}

/** How a message is kept: the text of a message of one text part, else a frozen copy. */
function itemOf(message: Message): string | Message {
  const { parts } = message;
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.kind === 'text' ? only.text : frozenMessage(message);
}

/** What an item holds, roughly: a text its characters and a small header, else by `jsonWeight`. */
function itemBytes(item: string | Message): number {
  return typeof item === 'string' ? TEXT_ITEM_BYTES + 2 * item.length : jsonWeight(item);
}

/** Drops a conversation's oldest messages past `maxMessages`; the bytes they held. */
function trim(entry: Entry, maxMessages: number): number {
  const drop = entry.items.length - maxMessages;
  if (drop <= 0) return 0;
  let dropped = 0;
  for (let index = 0; index < drop; index += 1) dropped += itemBytes(entry.items[index] as string);
  entry.items.splice(0, drop);
  entry.roles = entry.roles.slice(drop);
  entry.dropped += drop;
  entry.bytes -= dropped;
  return dropped;
}

/** The message an item stands for (a text's id names its place in the conversation). */
function messageOf(contextId: string, entry: Entry, index: number): Message {
  const item = entry.items[index] as string | Message;
  if (typeof item !== 'string') return item;
  const role = entry.roles.charAt(index) === 'u' ? 'user' : 'agent';
  const parts = Object.freeze([Object.freeze({ kind: 'text' as const, text: item })]);
  return Object.freeze({ messageId: `${contextId}#${entry.dropped + index}`, role, parts });
}

/** A frozen view of a conversation, with at most its `limit` newest messages. */
function view(contextId: string, entry: Entry, limit: number | undefined): Conversation {
  const count = entry.items.length;
  const first = limit !== undefined && limit < count ? count - limit : 0;
  const messages: Message[] = [];
  for (let index = first; index < count; index += 1) {
    messages.push(messageOf(contextId, entry, index));
  }
  return Object.freeze({
    contextId,
    agentName: entry.agentName,
    messages: Object.freeze(messages),
    ...(entry.waitingTaskId === undefined ? {} : { waitingTaskId: entry.waitingTaskId }),
    updatedAt: new Date(entry.changedAt).toISOString(),
  });
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
  return new MemoryConversations(options);
}
