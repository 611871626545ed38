import type { AgentInterface, AgentSkill } from '@a2a-js/sdk';
import { A2A_PROTOCOL_VERSION, AgentCard } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import type { Agent } from '@agentport/core';
import { InvalidInputError } from '@agentport/core';
import { parseAbsoluteUrl } from '../absolute-url.ts';

/** The agent's public identity in its AgentCard and the URL it is served at (the `card` option). */
export interface A2ASdkServerConfig {
  /** The name shown in the AgentCard. */
  name: string;
  /** The agent's version, shown in the AgentCard. */
  version: string;
  /** The description shown in the AgentCard. */
  description: string;
  /** The absolute URL the server's app is mounted at, such as `http://host:8080/a2a/echo`. */
  url: string;
}

/** Options of {@link createAgentCard}. */
export interface AgentCardOptions {
  /** The agent the card describes: its skills are the agent and its tools. */
  agent: Agent;
  /** The agent's public identity and the URL it is served at. */
  card: A2ASdkServerConfig;
  /** Also advertise A2A v0.3 interfaces (on the same URLs), so v0.3 clients work; default true. */
  legacyCompat?: boolean;
  /** The organization publishing the agent. */
  provider?: { organization: string; url: string };
  /** A link to the agent's documentation. */
  documentationUrl?: string;
  /** A link to the agent's icon. */
  iconUrl?: string;
  /**
   * Advertise that calls need `Authorization: Bearer <key>` (for a server behind auth), or, with
   * `apiKeyHeader`, the same key in that header instead (either will do).
   */
  bearerAuth?: { description?: string; apiKeyHeader?: string };
  /**
   * The media types the agent takes in a message's parts, the card's `defaultInputModes`
   * (default `['text/plain', 'application/json']`: text and data parts). An agent that reads
   * files lists theirs too (`['text/plain', 'application/json', 'image/png']`); with the SDK's
   * `validateInputModes` on, a part of another media type is refused (ContentTypeNotSupported).
   */
  inputModes?: readonly string[];
  /** The media types the agent answers with, the card's `defaultOutputModes` (same default). */
  outputModes?: readonly string[];
}

/** The path of the JSON-RPC endpoint relative to the mount. */
export const JSON_RPC_PATH = '/jsonrpc';
/** The path of the HTTP+JSON binding relative to the mount. */
export const REST_PATH = '/rest';
/** The path of the AgentCard relative to the mount. */
export const AGENT_CARD_ROUTE = '/.well-known/agent-card.json';

const TEXT_MODES = ['text/plain', 'application/json'];
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+*-]+$/;

/** The card's modes of an option: its media types, checked; the text modes without one. */
function modesOf(modes: readonly string[] | undefined, field: string): string[] {
  if (modes === undefined) return [...TEXT_MODES];
  if (!Array.isArray(modes) || modes.length === 0) {
    throw new InvalidInputError(`${field} must be a non-empty list of media types`, { field });
  }
  for (const mode of modes) {
    if (typeof mode !== 'string' || !MEDIA_TYPE.test(mode)) {
      throw new InvalidInputError(`${field} holds '${String(mode)}', not a media type`, { field });
    }
  }
  return [...modes];
}

function absoluteUrl(url: string): string {
  const parsed = parseAbsoluteUrl(url, 'A2A server url');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidInputError(`A2A server url must use http or https, got '${url}'`, {
      field: 'url',
    });
  }
  return parsed.href.replace(/\/+$/, '');
}

function skill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return {
    id,
    name,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

/**
 * The AgentCard skills of an agent: one for the agent itself, then one per tool (id
 * `<agent>.<tool>`, tagged `tool`).
 *
 * @example
 * createAgentSkills(createAssistantAgent()).map((skill) => skill.id);
 * // ['assistant', 'assistant.calculator', 'assistant.clock', 'assistant.word_count']
 */
export function createAgentSkills(agent: Agent): AgentSkill[] {
  const agentDescription = agent.description ?? agent.instructions ?? `The ${agent.name} agent.`;
  return [
    skill(agent.name, agent.name, agentDescription, ['agent']),
    ...agent.tools.map((tool) =>
      skill(
        `${agent.name}.${tool.name}`,
        tool.name,
        tool.description ?? `The ${tool.name} tool of ${agent.name}.`,
        ['tool'],
      ),
    ),
  ];
}

function bearerSecurity(
  bearerAuth: AgentCardOptions['bearerAuth'],
): Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> {
  if (bearerAuth === undefined) return { securitySchemes: {}, securityRequirements: [] };
  const description = bearerAuth.description ?? 'An API key as a bearer token';
  const bearer: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> = {
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description, scheme: 'Bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
  const header = bearerAuth.apiKeyHeader;
  if (header === undefined) return bearer;
  return {
    securitySchemes: {
      ...bearer.securitySchemes,
      apiKey: {
        scheme: {
          $case: 'apiKeySecurityScheme',
          value: { description, location: 'header', name: header },
        },
      },
    },
    // Either requirement will do.
    securityRequirements: [...bearer.securityRequirements, { schemes: { apiKey: { list: [] } } }],
  };
}

/**
 * The card as sent on the wire: its security schemes and requirements in their protobuf JSON
 * form (the rest as the SDK's own card handler sends it).
 */
export function toWireAgentCard(card: AgentCard): unknown {
  if (Object.keys(card.securitySchemes).length === 0) return card;
  const json = AgentCard.toJSON(card) as Record<string, unknown>;
  return {
    ...card,
    securitySchemes: json.securitySchemes,
    securityRequirements: json.securityRequirements,
  };
}

/** The card's two v1.0 interfaces at `base`: JSON-RPC and HTTP+JSON. */
function cardInterfaces(base: string): AgentInterface[] {
  return [
    {
      url: `${base}${JSON_RPC_PATH}`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
    {
      url: `${base}${REST_PATH}`,
      protocolBinding: 'HTTP+JSON',
      tenant: '',
      protocolVersion: A2A_PROTOCOL_VERSION,
    },
  ];
}

/**
 * Builds the standard A2A v1.0 AgentCard of an agent served at `card.url`: JSON-RPC at
 * `<url>/jsonrpc`, HTTP+JSON at `<url>/rest` (plus the same two as v0.3 interfaces), streaming on,
 * push notifications off, and the agent and its tools as skills.
 *
 * @example
 * const card = createAgentCard({
 *   agent: createEchoAgent(),
 *   card: {
 *     name: 'Echo',
 *     version: '1.0.0',
 *     description: 'Echoes its input',
 *     url: 'http://localhost:8080/a2a/echo',
 *   },
 * });
 * card.supportedInterfaces[0]?.url; // 'http://localhost:8080/a2a/echo/jsonrpc'
 */
export function createAgentCard(options: AgentCardOptions): AgentCard {
  const { agent, card: identity } = options;
  for (const field of ['name', 'version', 'description'] as const) {
    if (typeof identity[field] !== 'string' || identity[field].trim() === '') {
      throw new InvalidInputError(`A2A server config needs a non-empty '${field}'`, { field });
    }
  }
  const interfaces = cardInterfaces(absoluteUrl(identity.url));
  return {
    name: identity.name,
    description: identity.description,
    version: identity.version,
    supportedInterfaces:
      options.legacyCompat === false
        ? interfaces
        : duplicateInterfacesForLegacy(interfaces, ['JSONRPC', 'HTTP+JSON']),
    provider: options.provider,
    ...(options.documentationUrl === undefined
      ? {}
      : { documentationUrl: options.documentationUrl }),
    ...(options.iconUrl === undefined ? {} : { iconUrl: options.iconUrl }),
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    ...bearerSecurity(options.bearerAuth),
    defaultInputModes: modesOf(options.inputModes ?? agent.inputModes, 'inputModes'),
    defaultOutputModes: modesOf(options.outputModes ?? agent.outputModes, 'outputModes'),
    skills: createAgentSkills(agent),
    signatures: [],
  };
}
