import type { AgentCard, AgentInterface, AgentSkill } from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';

/** The A2A v0.3 version string, the one legacy interfaces and cards carry. */
const LEGACY_VERSION = '0.3';

/** Whether a protocol version is a v0.3 one (`[0.3, 1.0)`), the way the SDK decides it. */
export function isLegacyVersion(version: string): boolean {
  if (version.trim() === '') return true;
  const [majorText = '', minorText] = version.trim().split('.');
  const major = Number.parseInt(majorText, 10);
  const minor = minorText === undefined ? 0 : Number.parseInt(minorText, 10);
  return major === 0 && minor >= 3;
}

function legacySkill(skill: AgentSkill): Record<string, unknown> {
  const result: Record<string, unknown> = {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: [...skill.tags],
  };
  if (skill.examples.length > 0) result.examples = [...skill.examples];
  if (skill.inputModes.length > 0) result.inputModes = [...skill.inputModes];
  if (skill.outputModes.length > 0) result.outputModes = [...skill.outputModes];
  return result;
}

function legacyInterface(agentInterface: AgentInterface): { url: string; transport: string } {
  return { url: agentInterface.url, transport: agentInterface.protocolBinding };
}

/**
 * The v0.3 "hybrid" card the SDK's card handler serves to clients that do not ask for A2A 1.0:
 * v0.3 fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`, ...) taken
 * from the card's v0.3 interfaces, plus the full v1.0 `supportedInterfaces`. HTTP auth schemes
 * are carried over in the v0.3 (OpenAPI) shape; signatures are not.
 *
 * @throws VersionNotSupportedError when the card has no v0.3 interface.
 */
export function toLegacyAgentCard(card: AgentCard): Record<string, unknown> {
  const all = card.supportedInterfaces;
  const legacy = all.filter((agentInterface) => isLegacyVersion(agentInterface.protocolVersion));
  const [primary] = legacy;
  if (primary === undefined) {
    throw new VersionNotSupportedError(
      'AgentCard must have at least one interface with a protocol version in [0.3, 1.0).',
    );
  }
  const capabilities: Record<string, unknown> = {};
  if (card.capabilities?.streaming !== undefined) {
    capabilities.streaming = card.capabilities.streaming;
  }
  if (card.capabilities?.pushNotifications !== undefined) {
    capabilities.pushNotifications = card.capabilities.pushNotifications;
  }
  const result: Record<string, unknown> = {
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    protocolVersion: primary.protocolVersion || LEGACY_VERSION,
    capabilities,
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map(legacySkill),
  };
  // With the main one too, as v0.3 says an agent SHOULD (the SDK's Express card leaves it out).
  if (legacy.length > 1) result.additionalInterfaces = legacy.map(legacyInterface);
  if (card.provider) {
    result.provider = { url: card.provider.url, organization: card.provider.organization };
  }
  if (card.documentationUrl) result.documentationUrl = card.documentationUrl;
  if (card.iconUrl) result.iconUrl = card.iconUrl;
  if (card.capabilities?.extendedAgentCard !== undefined) {
    result.supportsAuthenticatedExtendedCard = card.capabilities.extendedAgentCard;
  }
  if (all.length > 0) result.supportedInterfaces = structuredClone(all);
  const schemes = legacySecuritySchemes(card);
  if (schemes !== undefined) {
    result.securitySchemes = schemes;
    result.security = Object.keys(schemes).map((name) => ({ [name]: [] }));
  }
  return result;
}

function legacySecuritySchemes(card: AgentCard): Record<string, unknown> | undefined {
  const schemes: Record<string, unknown> = {};
  for (const [name, { scheme }] of Object.entries(card.securitySchemes)) {
    if (scheme?.$case === 'httpAuthSecurityScheme') {
      schemes[name] = {
        type: 'http',
        scheme: scheme.value.scheme.toLowerCase(),
        description: scheme.value.description,
      };
    } else if (scheme?.$case === 'apiKeySecurityScheme') {
      schemes[name] = {
        type: 'apiKey',
        in: scheme.value.location,
        name: scheme.value.name,
        description: scheme.value.description,
      };
    }
  }
  return Object.keys(schemes).length > 0 ? schemes : undefined;
}
