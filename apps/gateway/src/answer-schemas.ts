// The JSON Schemas of the gateway's success answers, and the query of the SDK binding's
// ListTasks, for the OpenAPI document (see route-docs.ts).
import { agentCardSchema, taskSchema } from '@agentport/a2a-http';
import * as z from 'zod';

/**
 * The JSON Schema of an answer, from the zod schema a client reads it with. Defaults are left out:
 * they stand in for fields other servers may omit, and the gateway always sends them.
 */
function answerSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: 'output',
    override: ({ jsonSchema }) => {
      delete jsonSchema.default;
    },
  }) as Record<string, unknown>;
}

/** The hand-rolled A2A task answer (create, get, cancel): `{ task: Task }`. */
export const TASK_ANSWER = answerSchema(z.object({ task: taskSchema }));

/** The hand-rolled A2A task page of `GET /tasks`: the tasks and the cursor of the next page. */
export const TASK_PAGE = answerSchema(
  z.object({ tasks: z.array(taskSchema), nextCursor: z.string().optional() }),
);

/** The hand-rolled A2A Agent Card. */
export const AGENT_CARD = answerSchema(agentCardSchema);

/**
 * The REST/SSE invoke answer: the agent's final output, or its question when it pauses (then
 * `taskId` is the task waiting for the answer), and the conversation it belongs to.
 */
export const INVOKE_ANSWER = answerSchema(
  z.strictObject({
    result: z.string().describe("The agent's answer, or its question when input-required"),
    contextId: z.string().describe('The conversation: send it back to continue it'),
    status: z.enum(['completed', 'input-required']),
    taskId: z.string().describe('The task waiting for the answer, when input-required').optional(),
  }),
);

/** A JSON Schema object, as the tools' parameters are given. */
const jsonSchemaObject = z.record(z.string(), z.unknown());

/** How the REST/SSE routes show an agent: its name, description and tools. */
const agentSummary = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  tools: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string().optional(),
      parameters: jsonSchemaObject,
    }),
  ),
});
export const AGENT_SUMMARY = answerSchema(agentSummary);

/** How the gateway's agent list shows a remote agent not available yet. */
const unavailableAgent = z.strictObject({
  name: z.string(),
  tools: z.array(z.never()),
  unavailable: z.literal(true),
});

/** The REST/SSE agent list: `{ agents: [...] }`, remote agents not available yet included. */
export const AGENT_LIST = answerSchema(
  z.strictObject({ agents: z.array(z.union([agentSummary, unavailableAgent])) }),
);

/** `/readyz`: ready, or degraded with the remote agents not available yet. */
export const READINESS = answerSchema(
  z.strictObject({
    status: z.enum(['ready', 'degraded']),
    unavailable: z
      .array(
        z.strictObject({
          name: z.string(),
          url: z.string().describe('Its URL, without query'),
          since: z.string().describe('When it was first found unavailable (ISO 8601)'),
          lastError: z.string().describe('Why the last try to read its card failed'),
        }),
      )
      .optional()
      .describe('The remote agents not available yet, when degraded'),
  }),
);

/** A compat ToolDef: `{ type: 'function', function: { name, description?, parameters } }`. */
const toolDef = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: jsonSchemaObject.optional(),
  }),
});

/** A compat AgentDef; `tools` and `handoffs` are left out when empty. */
const agentDef = z.strictObject({
  name: z.string(),
  instructions: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(toolDef).optional(),
  handoffs: z
    .array(
      z.strictObject({
        name: z.string(),
        description: z.string().optional(),
        tool_name: z.string(),
      }),
    )
    .optional(),
});
export const AGENT_DEF = answerSchema(agentDef);

/** The compat agent list: a bare array of AgentDefs. */
export const AGENT_DEF_LIST = answerSchema(z.array(agentDef));

/** A compat RunResponse; `tool_calls` is left out when the run made none. */
export const RUN_RESPONSE = answerSchema(
  z.strictObject({
    output: z.string(),
    agent: z.string(),
    tool_calls: z
      .array(z.strictObject({ name: z.string(), input: z.string(), output: z.string() }))
      .optional(),
    conversation_id: z.string().describe('The conversation: send it back to continue it'),
    interruption: z
      .strictObject({
        question: z.string(),
        task_id: z.string().describe('The task waiting for the answer'),
      })
      .describe(
        'Present when the agent paused for input: the next run of the conversation answers it',
      )
      .optional(),
  }),
);

/** The TaskState names the SDK binding's ListTasks filter takes (their numbers work too). */
const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

/**
 * The query of the SDK binding's `GET .../rest/{tenant}/tasks` (ListTasks), as its routes read
 * it (`parseListTasksQuery` in `@agentport/a2a-sdk`); it documents, it parses nothing.
 */
export const SDK_LIST_TASKS_QUERY = z.object({
  contextId: z.string().optional(),
  status: z.enum(TASK_STATES).describe('A TaskState, by name or by number').optional(),
  pageSize: z.int().min(1).max(100).optional(),
  pageToken: z.string().describe('The nextPageToken of the previous page').optional(),
  historyLength: z.int().min(0).optional(),
  statusTimestampAfter: z
    .string()
    .describe('An ISO 8601 time: only tasks whose status changed after it')
    .optional(),
  includeArtifacts: z.boolean().optional(),
});

/** The same without a tenant in the path: the tenant may come as a query parameter. */
export const SDK_LIST_TASKS_QUERY_WITH_TENANT = SDK_LIST_TASKS_QUERY.extend({
  tenant: z.string().optional(),
});
