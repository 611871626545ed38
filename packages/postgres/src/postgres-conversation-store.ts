import { randomUUID } from 'node:crypto';
import {
  ContextNotFoundError,
  type Conversation,
  type ConversationStore,
  InvalidInputError,
  type Message,
} from '@agentport/core';
import { messageFault } from '@agentport/core/internal';
import type { Pool } from 'pg';
import { checkedSchema } from './schema-name.ts';
import { unavailableOr } from './unavailable.ts';

/** Where the PostgreSQL conversation store keeps its conversations, and how much of them. */
export interface PostgresConversationStoreOptions {
  /** The pool it runs on. */
  pool: Pool;
  /** The schema of its tables (default `agentport`), made by `migrate`. */
  schema?: string;
  /** How many messages one conversation keeps; past it its oldest go first (default 200). */
  maxMessagesPerConversation?: number;
  /** How long a conversation is kept after its last change, in milliseconds (default one hour). */
  ttlMs?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

interface ConversationRow {
  agent_name: string;
  waiting_task_id: string | null;
  updated_at: Date;
  message: Message | null;
}

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new InvalidInputError(`${field} must be a positive integer`, { field });
  }
  return value;
}

function conversationSql(schema: string) {
  const s = `"${schema}"`;
  const named = (name: string, text: string) => ({ name: `agentport.${schema}.${name}`, text });
  return {
    // The newest `limit` messages (all with a null limit) with the conversation, oldest last.
    get: named(
      'conversation-get',
      `SELECT c.agent_name, c.waiting_task_id, c.updated_at, m.message
FROM ${s}.conversations c
LEFT JOIN LATERAL (
  SELECT index, message FROM ${s}.conversation_messages
  WHERE context_id = c.context_id AND index >= c.first_index
  ORDER BY index DESC LIMIT $3
) m ON true
WHERE c.context_id = $1 AND c.expires_at > $2
ORDER BY m.index DESC`,
    ),
    // One statement: the conversation made, continued (its agent's only) or started afresh once
    // expired, its messages added, those past the bound (or of the expired one) dropped.
    append: named(
      'conversation-append',
      `WITH changed AS (
  INSERT INTO ${s}.conversations AS c
    (context_id, agent_name, waiting_task_id, first_index, next_index, updated_at, expires_at)
  VALUES ($1, $2, CASE WHEN $3::boolean THEN $4 END, greatest(0, $5::bigint - $6::bigint), $5::bigint, $7, $8)
  ON CONFLICT (context_id) DO UPDATE SET
    agent_name = EXCLUDED.agent_name,
    waiting_task_id = CASE WHEN $3::boolean THEN $4 WHEN c.expires_at <= $7 THEN NULL
      ELSE c.waiting_task_id END,
    first_index = greatest(
      CASE WHEN c.expires_at <= $7 THEN c.next_index ELSE c.first_index END,
      c.next_index + $5::bigint - $6::bigint),
    next_index = c.next_index + $5::bigint,
    updated_at = EXCLUDED.updated_at,
    expires_at = EXCLUDED.expires_at
  WHERE c.agent_name = EXCLUDED.agent_name OR c.expires_at <= $7
  RETURNING first_index, next_index
), added AS (
  INSERT INTO ${s}.conversation_messages (context_id, index, message)
  SELECT $1, changed.next_index - $5::bigint + m.ordinality - 1, m.value
  FROM changed, json_array_elements($9::json) WITH ORDINALITY AS m(value, ordinality)
  WHERE changed.next_index - $5::bigint + m.ordinality - 1 >= changed.first_index
), dropped AS (
  DELETE FROM ${s}.conversation_messages
  WHERE context_id = $1 AND index < (SELECT first_index FROM changed)
)
SELECT 1 FROM changed`,
    ),
    deleteExpired: named(
      'conversation-delete-expired',
      `DELETE FROM ${s}.conversations WHERE expires_at <= $1`,
    ),
  };
}

function assertMessages(contextId: string, messages: unknown): asserts messages is Message[] {
  if (typeof contextId !== 'string' || contextId === '') {
    throw new InvalidInputError('contextId must be a non-empty string', { field: 'contextId' });
  }
  if (!Array.isArray(messages)) throw new TypeError('messages must be an array');
  for (const message of messages) {
    const fault = messageFault(message);
    if (fault !== undefined) throw new TypeError(`A conversation message must not be ${fault}`);
  }
}

/**
 * Creates core's `ConversationStore` on PostgreSQL (tables made by `migrate`): a conversation's
 * messages are rows numbered in order, at most `maxMessagesPerConversation` kept (the oldest
 * dropped in the append that passes the bound), each conversation kept `ttlMs` after its last
 * change; `deleteExpired` removes the expired ones.
 *
 * @example
 * const conversations = createPostgresConversationStore({ pool, maxMessagesPerConversation: 50 });
 */
export function createPostgresConversationStore(
  options: PostgresConversationStoreOptions,
): ConversationStore {
  const { pool } = options;
  const sql = conversationSql(checkedSchema(options.schema));
  const maxMessages = positiveInteger(
    options.maxMessagesPerConversation,
    200,
    'maxMessagesPerConversation',
  );
  const ttlMs = positiveInteger(options.ttlMs, 3_600_000, 'ttlMs');
  const now = options.now ?? Date.now;
  return {
    newContextId: () => randomUUID(),
    async get(contextId, readOptions = {}) {
      const { limit } = readOptions;
      if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) {
        throw new InvalidInputError('limit must be an integer of 0 or more', { field: 'limit' });
      }
      const { rows } = await unavailableOr(() =>
        pool.query<ConversationRow>({
          ...sql.get,
          values: [contextId, new Date(now()), limit ?? null],
        }),
      );
      const first = rows[0];
      if (first === undefined) return undefined;
      const messages: Message[] = [];
      for (let index = rows.length - 1; index >= 0; index -= 1) {
        const { message } = rows[index] as ConversationRow;
        if (message !== null) messages.push(message);
      }
      const conversation: Conversation = {
        contextId,
        agentName: first.agent_name,
        messages: Object.freeze(messages),
        ...(first.waiting_task_id === null ? {} : { waitingTaskId: first.waiting_task_id }),
        updatedAt: first.updated_at.toISOString(),
      };
      return Object.freeze(conversation);
    },
    async append(contextId, change) {
      assertMessages(contextId, change.messages);
      const at = now();
      const { waitingTaskId } = change;
      const result = await unavailableOr(() =>
        pool.query({
          ...sql.append,
          values: [
            contextId,
            change.agentName,
            waitingTaskId !== undefined,
            waitingTaskId ?? null,
            change.messages.length,
            maxMessages,
            new Date(at),
            new Date(at + ttlMs),
            JSON.stringify(change.messages),
          ],
        }),
      );
      if (result.rowCount === 0) throw new ContextNotFoundError(contextId);
    },
    async deleteExpired(at = new Date(now())) {
      const result = await unavailableOr(() => pool.query({ ...sql.deleteExpired, values: [at] }));
      return result.rowCount ?? 0;
    },
  };
}
