import { type Part, TASK_STATUSES, type TaskStatus } from '@agentport/core';
import { nestsWithin } from '@agentport/core/internal';
import { inputSchema } from '@agentport/http';
import * as z from 'zod';
import type { A2ATask } from './wire-task.ts';

/**
 * How deep a task's metadata may nest, objects and arrays counted, the metadata object itself
 * being 1. Every answer about the task carries it, and a value nested thousands deep is beyond
 * what `JSON.stringify` can write (a 36 KB body reaches that).
 */
export const MAX_METADATA_DEPTH = 32;

/** How long a `contextId` may be: a caller's own name for its conversation, not a document. */
export const MAX_CONTEXT_ID_LENGTH = 256;

/**
 * The body of `POST /tasks`: a non-empty `input` (a string, or a list of text, data and file
 * parts), an optional `contextId` (the conversation it joins) and optional `metadata`; unknown
 * fields are ignored.
 */
export const createTaskRequestSchema = z.object(
  {
    input: inputSchema,
    contextId: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(MAX_CONTEXT_ID_LENGTH, `must be at most ${MAX_CONTEXT_ID_LENGTH} characters`)
      .optional(),
    metadata: z
      .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
      .refine(
        (metadata) => nestsWithin(metadata, MAX_METADATA_DEPTH),
        `must not nest deeper than ${MAX_METADATA_DEPTH} levels`,
      )
      .optional(),
  },
  { error: 'must be a JSON object with an input' },
);

/** The body of `POST /tasks/{id}/messages`: the caller's next message, as `input` on create. */
export const sendMessageRequestSchema = z.object(
  { input: inputSchema },
  { error: 'must be a JSON object with an input' },
);

/** What `POST /tasks/{id}/messages` takes. */
export type SendMessageRequest = { input: string | Part[] };

/** What `POST /tasks` takes. */
export interface CreateTaskRequest {
  /** The message: its text, or its parts. */
  input: string | Part[];
  /** The conversation it joins; a task of it waiting for input is continued instead. */
  contextId?: string;
  metadata?: Record<string, unknown>;
}

/**
 * A query parameter written as a plain decimal number (`5`, `-1`, `0.5`), read as a number. What
 * `Number()` alone would also take is refused: an empty value, spaces, `0x10`, `1e1`, `Infinity`.
 */
const decimal = (error: string) =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, error)
    .transform(Number);

/**
 * A task status, by name. Typed out so that the published declarations keep the union: inferred,
 * their builder (which does not resolve core's constants) wrote `{ [x: string]: any }`.
 */
const taskStatusSchema: z.ZodEnum<{ [S in TaskStatus]: S }> = z.enum(TASK_STATUSES, {
  error: `must be one of ${TASK_STATUSES.join(', ')}`,
});

/** The query of `GET /tasks`: page size, cursor and status filter. */
export const listTasksQuerySchema = z.object({
  limit: decimal('must be a number')
    .pipe(
      z
        .number()
        .int('must be an integer')
        .min(1, 'must be at least 1')
        .max(100, 'must be at most 100'),
    )
    .optional()
    .describe('How many tasks a page holds, from 1 to 100 (default 50)'),
  cursor: z.string().min(1, 'must not be empty').optional(),
  status: taskStatusSchema.optional(),
});

/**
 * The longest a long-poll (`GET /tasks/{id}?wait=SECONDS`, `POST /tasks?wait=SECONDS`) waits, in
 * seconds: below the time proxies and load balancers give an answer by default (nginx and AWS
 * ALB 60 s, Google Cloud's and Heroku's 30 s), so that a long-poll is answered (the task as it
 * is) before a proxy in front gives up on it, answers 504, and closes the connection, which would
 * cancel a create-and-wait's task.
 */
export const MAX_WAIT_SECONDS = 25;

/**
 * The query of `GET /tasks/{id}` and `POST /tasks`: an optional `wait` in seconds (long-poll),
 * not negative; the routes wait at most {@link MAX_WAIT_SECONDS} (a longer one is capped).
 */
export const waitQuerySchema = z.object({
  wait: decimal('must be a number of seconds')
    .pipe(z.number().min(0, 'must not be negative'))
    .optional()
    .describe(
      `Seconds to wait for the task to end (a long-poll), at most ${MAX_WAIT_SECONDS}: more is capped`,
    ),
});

/** A failed task's `{ code, message }`. */
export const taskErrorSchema = z.object({ code: z.string(), message: z.string() });

/** A part of a message or an artifact: text, data (an object), or a file by URL or base64 bytes. */
export const partSchema = z.union([
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()) }),
  z
    .object({
      kind: z.literal('file'),
      mediaType: z.string(),
      name: z.string().optional(),
      url: z.string().optional(),
      bytes: z.string().optional(),
    })
    .refine((part) => (part.url === undefined) !== (part.bytes === undefined), {
      error: 'a file part has exactly one of url and bytes',
    }),
]);

/** A message of a task's history or status. */
export const messageSchema = z.object({
  messageId: z.string(),
  role: z.enum(['user', 'agent']),
  parts: z.array(partSchema),
});

const artifactSchema = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  parts: z.array(partSchema),
});

/**
 * A task as a client reads it: `id` and `status` are required; the other fields of our own server
 * take neutral defaults so servers that send less still parse.
 */
export const taskSchema: z.ZodType<A2ATask> = z.object({
  id: z.string().min(1),
  contextId: z.string().default(''),
  agentName: z.string().default(''),
  status: z.enum(TASK_STATUSES),
  statusMessage: messageSchema.optional(),
  input: z.string().default(''),
  output: z.string().optional(),
  error: taskErrorSchema.optional(),
  messages: z.array(messageSchema).default([]),
  artifacts: z.array(artifactSchema).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
  createdAt: z.string().default(''),
  updatedAt: z.string().default(''),
  seq: z.number().int().min(0).default(0),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
}) as z.ZodType<A2ATask>;

/** The body of every task answer: `{ "task": Task }`. */
export const taskResponseSchema = z.object({ task: taskSchema });

/** The body of `GET /tasks`: a page of tasks and the cursor of the next one. */
export const taskPageSchema = z.object({
  tasks: z.array(taskSchema),
  nextCursor: z.string().optional(),
});

/** Our JSON error body, as a client reads it. */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

/** Describes the first issue of a failed parse as `path: message`. */
export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}
