import type { Agent } from '@agentport/core';
import * as z from 'zod';

/** The path of the Agent Card, relative to where the routes are served. */
export const AGENT_CARD_PATH = '/.well-known/agent.json';

/** One thing the agent can do; derived from one of its tools. */
export interface AgentSkill {
  id: string;
  name: string;
  description?: string;
  /** The JSON Schema of the tool's arguments. */
  inputSchema?: Record<string, unknown>;
}

/** What the server offers beyond create, get and cancel. */
export interface AgentCapabilities {
  /** `GET /tasks/{id}/events` streams task changes as SSE. */
  streaming?: boolean;
  /** `GET /tasks/{id}?wait=SECONDS` long-polls. */
  longPolling?: boolean;
  [key: string]: unknown;
}

/** The hand-rolled A2A Agent Card served at `/.well-known/agent.json`. */
export interface AgentCard {
  name: string;
  /** The absolute URL where the task routes are served. */
  endpoint: string;
  description?: string;
  version?: string;
  capabilities?: AgentCapabilities;
  skills?: AgentSkill[];
  /** How callers authenticate, as OpenAPI security scheme objects by name. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** Which schemes a call needs (any one entry of the list suffices), as in OpenAPI. */
  security?: Array<Record<string, string[]>>;
}

/** Card fields a server may set or override; everything else comes from the agent. */
export interface AgentCardOptions {
  /** The card's name (default: the agent's name). */
  name?: string;
  /** The absolute URL of the routes (default: derived from each card request). */
  endpoint?: string;
  description?: string;
  version?: string;
  /** Replaces the skills derived from the agent's tools. */
  skills?: AgentSkill[];
  /** Security schemes to advertise (for a server behind auth). */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** The security requirement to advertise with them. */
  security?: Array<Record<string, string[]>>;
}

/** Builds the card of an agent served at `endpoint`; skills come from its tools. */
export function buildAgentCard(
  agent: Agent,
  options: AgentCardOptions,
  endpoint: string,
): AgentCard {
  const description = options.description ?? agent.description;
  const skills =
    options.skills ??
    agent.tools.map((tool) => ({
      id: tool.name,
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.parameters,
    }));
  return {
    name: options.name ?? agent.name,
    endpoint: options.endpoint ?? endpoint,
    ...(description === undefined ? {} : { description }),
    ...(options.version === undefined ? {} : { version: options.version }),
    capabilities: { streaming: true, longPolling: true },
    skills,
    ...(options.securitySchemes === undefined ? {} : { securitySchemes: options.securitySchemes }),
    ...(options.security === undefined ? {} : { security: options.security }),
  };
}

const absoluteUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    message: 'must be an absolute http(s) URL',
  });

/** An Agent Card as a client reads it: `name` and an absolute `endpoint` are required. */
export const agentCardSchema: z.ZodType<AgentCard> = z.object({
  name: z.string().min(1, 'must not be empty'),
  endpoint: absoluteUrl,
  description: z.string().optional(),
  version: z.string().optional(),
  capabilities: z
    .looseObject({
      streaming: z.boolean().optional(),
      longPolling: z.boolean().optional(),
    })
    .optional(),
  skills: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().optional(),
        inputSchema: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
}) as z.ZodType<AgentCard>;
